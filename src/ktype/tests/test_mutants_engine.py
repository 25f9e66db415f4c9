"""Tests written for the surviving mutants of the lattice engine (``fulldomain/_engine.py``,
``_lattice.py``, ``_hashed.py``): flash and exhaustive against an independent brute force.
See docs/mutation.md."""
