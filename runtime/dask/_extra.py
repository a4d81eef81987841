"""``phi_wire.dask`` is an optional part of phi-wire (``pip install 'phi-wire[dask]'``): this says,
in one line naming the extra, when its packages are missing."""

from __future__ import annotations

from phi_wire.remote import DASK_EXTRA, MissingExtra

__all__ = ["require"]


def require() -> None:
    """Raise ``MissingExtra`` (one line naming ``pip install 'phi-wire[dask]'``) unless dask
    and distributed are installed."""
    try:
        import dask.bag  # noqa: F401
        import distributed  # noqa: F401
    except ImportError:
        raise MissingExtra(f"phi_wire.dask needs the dask extra: {DASK_EXTRA}") from None
