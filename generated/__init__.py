"""Models generated from schemas/ by tools/codegen: one subpackage per phi-core version."""
