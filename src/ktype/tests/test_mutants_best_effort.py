"""Tests written for the surviving mutants of the best-effort full-domain searches
(``fulldomain/_lightning.py``, ``_genetic.py``, ``_sparse.py``); see docs/mutation.md."""
