"""Compiled passes of the freeform checker's witness test (:mod:`ktype.models.freeform`):
whether each edge of the private generalization graph lies inside its box, and whether each
box's preimages are distinct. Written for the checker alone (no algorithm code), one pass
per box instead of numpy gathers of every edge's value per column.

Kept in their own module so that importing the checkers imports no numba.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from .._jit import njit


@njit(parallel=True)
def edges_inside(X, pre, lo, hi, set_cols, offsets, members, inside):  # pragma: no cover - compiled
    """``inside[t, s]`` = record ``pre[t, s]`` lies in box ``t``: inside its ranges
    ``lo[t] .. hi[t]`` on every column and, for each set column ``set_cols[q]``, its value
    ``v`` is in the box's value set, ``members[t, offsets[q] + v]`` (the sets side by side, a
    column per leaf rank). ``X``: the records' leaf ranks; ``pre`` in ``[0, len(X))``. One pass
    per box, each record's row read once."""
    r = X.shape[1]
    for t in prange(pre.shape[0]):
        for s in range(pre.shape[1]):
            i = pre[t, s]
            ok = True
            for c in range(r):
                x = X[i, c]
                if x < lo[t, c] or x > hi[t, c]:
                    ok = False
            for q in range(len(set_cols)):
                if not members[t, offsets[q] + X[i, set_cols[q]]]:
                    ok = False
            inside[t, s] = ok


@njit(parallel=True)
def distinct_rows(pre):  # pragma: no cover - compiled
    """Whether each row of ``pre`` holds distinct values (pairwise for short rows, else a sort)."""
    n, d = pre.shape
    out = np.ones(n, dtype=np.bool_)
    for t in prange(n):
        if d <= 16:
            for a in range(d):
                for b in range(a + 1, d):
                    if pre[t, a] == pre[t, b]:
                        out[t] = False
        else:
            srt = np.sort(pre[t])
            for a in range(1, d):
                if srt[a] == srt[a - 1]:
                    out[t] = False
    return out
