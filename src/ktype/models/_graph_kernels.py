"""Compiled kernels of the consistency graph (:mod:`ktype.models._graph`): the two passes that
count and list, per released box, the original record types it is consistent with.

Kept in their own module so that importing the checkers imports no numba: the graph loads
these kernels the first time it builds edges.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from .._jit import njit


@njit(parallel=True)
def _count_type_edges(xa, blo, bhi, start, stop):  # pragma: no cover - compiled
    """Pass 1: number of original types consistent with each box type.

    ``xa`` rows are sorted by column 0, and ``[start[b], stop[b])`` is the range of types
    whose column 0 lies inside box ``b``; only the other columns are tested.
    """
    nb = blo.shape[0]
    r = xa.shape[1]
    cnt = np.zeros(nb, dtype=np.int64)
    for b in prange(nb):
        c = 0
        for a in range(start[b], stop[b]):
            ok = True
            for col in range(1, r):
                v = xa[a, col]
                if v < blo[b, col] or v > bhi[b, col]:
                    ok = False
                    break
            if ok:
                c += 1
        cnt[b] = c
    return cnt


@njit(parallel=True)
def _fill_type_edges(xa, blo, bhi, start, stop, ptr, out):  # pragma: no cover - compiled
    """Pass 2: write the consistent original types of box ``b`` at ``out[ptr[b]:ptr[b+1]]``."""
    nb = blo.shape[0]
    r = xa.shape[1]
    for b in prange(nb):
        p = ptr[b]
        for a in range(start[b], stop[b]):
            ok = True
            for col in range(1, r):
                v = xa[a, col]
                if v < blo[b, col] or v > bhi[b, col]:
                    ok = False
                    break
            if ok:
                out[p] = a
                p += 1


@njit
def _in_box(xa, a, blo, bhi, bits, is_set, b):  # pragma: no cover - compiled
    """Whether original type ``a`` lies in box type ``b`` (ranges, and sets where ``is_set``)."""
    for col in range(1, xa.shape[1]):
        v = xa[a, col]
        if v < blo[b, col] or v > bhi[b, col]:
            return False
        if is_set[col] and not (bits[b, col, v >> 6] >> np.uint64(v & 63)) & np.uint64(1):
            return False
    return True


@njit(parallel=True)
def _count_type_edges_sets(xa, blo, bhi, bits, is_set, start, stop):  # pragma: no cover - compiled
    """Pass 1 for freeform releases: set columns test membership in the box's value set."""
    nb = blo.shape[0]
    cnt = np.zeros(nb, dtype=np.int64)
    for b in prange(nb):
        c = 0
        for a in range(start[b], stop[b]):
            if _in_box(xa, a, blo, bhi, bits, is_set, b):
                c += 1
        cnt[b] = c
    return cnt


@njit(parallel=True)
def _fill_type_edges_sets(xa, blo, bhi, bits, is_set, start, stop, ptr, out):  # pragma: no cover - compiled
    """Pass 2 for freeform releases (see :func:`_count_type_edges_sets`)."""
    nb = blo.shape[0]
    for b in prange(nb):
        p = ptr[b]
        for a in range(start[b], stop[b]):
            if _in_box(xa, a, blo, bhi, bits, is_set, b):
                out[p] = a
                p += 1
