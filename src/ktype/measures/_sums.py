"""Compiled column sums for the measures of big releases (imported only for them, so that a
small job's summary does not load numba)."""

from __future__ import annotations

import numpy as np
from numba import prange

from .._jit import njit

__all__ = ["span_sums"]


@njit(parallel=True)
def span_sums(lo, hi):
    """``(hi - lo).sum(axis=0)`` in int64 (exact: integers), rows split over the threads."""
    n, r = lo.shape
    chunks = min(n, 64)
    part = np.zeros((chunks, r), dtype=np.int64)
    for c in prange(chunks):
        for i in range(c * n // chunks, (c + 1) * n // chunks):
            for j in range(r):
                part[c, j] += np.int64(hi[i, j]) - np.int64(lo[i, j])
    out = np.zeros(r, dtype=np.int64)
    for c in range(chunks):
        for j in range(r):
            out[j] += part[c, j]
    return out
