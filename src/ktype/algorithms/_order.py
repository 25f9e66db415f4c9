"""The content order of a table's records, for algorithms whose output must not depend on the
input order (they process records in this order, and equal records are interchangeable)."""

from __future__ import annotations

import numpy as np

from .._grouping import lexsort_rows
from ..data.dataset import Dataset
from ..release import _sort_codes

__all__ = ["content_order"]


def content_order(dataset: Dataset) -> np.ndarray:
    """Record indices sorted by content: the quasi-identifiers' leaf ranks, then the sensitive
    codes, then the insensitive values (stable: ties keep the input order, but tied records
    have equal content)."""
    cols = [dataset.X[:, j] for j in range(dataset.r)]
    cols += [np.asarray(dataset.sensitive_codes[c]) for c in dataset.sensitive]
    cols += [_sort_codes(dataset.data[c].to_numpy()) for c in dataset.insensitive]
    return lexsort_rows(cols)
