"""Compiled kernel of the risk of local recodings (imported on first use: ``ktype risk`` on a
table or a global recoding never loads numba)."""

from __future__ import annotations

from numba import prange

from .._jit import njit


@njit(parallel=True)
def _count_in_boxes(lo, hi, full, pts, mult, out):  # pragma: no cover - compiled
    """``out[b] = Σ mult[t]`` over distinct points ``t`` inside box ``b`` (all columns)."""
    B, r = lo.shape
    T = pts.shape[0]
    for b in prange(B):
        s = 0
        for t in range(T):
            ok = True
            for j in range(r):
                v = pts[t, j]
                if v < 0:
                    if not full[b, j]:
                        ok = False
                        break
                elif v < lo[b, j] or v > hi[b, j]:
                    ok = False
                    break
            if ok:
                s += mult[t]
        out[b] = s
