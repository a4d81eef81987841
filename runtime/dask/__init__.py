"""phi_wire.dask (placeholder)."""
