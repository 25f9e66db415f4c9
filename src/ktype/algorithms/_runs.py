"""Compiled helpers for releases handed over class by class (runs of consecutive rows).

Mondrian and the transparent algorithms (Tailor, Ace, Hybrid) hand their rows to
:meth:`ktype.release.Release.build` grouped by published box; each run of rows then gets its
class's box here, written by all threads.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from .._jit import njit

__all__ = ["boxes_by_run"]


@njit(parallel=True)
def boxes_by_run(box_lo, box_hi, sizes, n):
    """Row ``t`` of run ``c`` (runs of ``sizes[c]`` consecutive rows) gets box ``c``: what
    :meth:`ktype.plan.BoxPlan.apply` gives for the class of every row, written in parallel
    (on a fresh 10^7-row table the page faults of the new arrays are most of the time)."""
    r = box_lo.shape[1]
    lo = np.empty((n, r), dtype=np.int32)
    hi = np.empty((n, r), dtype=np.int32)
    first = np.empty(sizes.shape[0], dtype=np.int64)
    p = 0
    for c in range(sizes.shape[0]):
        first[c] = p
        p += sizes[c]
    for c in prange(sizes.shape[0]):
        for t in range(first[c], first[c] + sizes[c]):
            for j in range(r):
                lo[t, j] = box_lo[c, j]
                hi[t, j] = box_hi[c, j]
    return lo, hi
