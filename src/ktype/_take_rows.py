"""A compiled, parallel ``a[order]`` for 2-D row arrays: the reordering of a release's
per-row arrays into canonical order (:class:`ktype.freeform_release.FreeformRelease` moves
its cells, value sets and witness, 10⁶ rows of up to ~100 bytes each). numpy gathers the rows
one ``memcpy`` at a time on one core; this copies them in two threads.

Kept in its own module so that importing a release imports no numba.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ._jit import njit

__all__ = ["take_rows"]


@njit(parallel=True)
def _take_rows(a, order, out):  # pragma: no cover - compiled
    w = a.shape[1]
    for t in prange(order.shape[0]):
        src = order[t]
        for c in range(w):
            out[t, c] = a[src, c]


def take_rows(a: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``np.ascontiguousarray(a[order])`` for an index array ``order`` with values in
    ``[0, len(a))`` (not checked: the caller's permutation); compiled for a 2-D ``a``."""
    if np.ndim(a) != 2:
        return np.ascontiguousarray(np.asarray(a)[order])
    a = np.ascontiguousarray(a)
    out = np.empty((len(order), a.shape[1]), dtype=a.dtype)
    if len(order) and a.shape[1]:
        _take_rows(a, np.ascontiguousarray(order, dtype=np.int64), out)
    return out
