"""Compiled kernels of the consistency graph (:mod:`ktype.models._graph`): the two passes that
count and list, per released box, the original record types it is consistent with.

Kept in their own module so that importing the checkers imports no numba: the graph loads
these kernels the first time it builds edges.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from .._jit import njit


@njit
def _in_ranges(xa, a, blo, bhi, s):  # pragma: no cover - compiled
    """Whether original type ``a`` lies in the ranges of scan row ``s`` (every column)."""
    for col in range(xa.shape[1]):
        v = xa[a, col]
        if v < blo[s, col] or v > bhi[s, col]:
            return False
    return True


@njit(parallel=True)
def _count_type_edges(xa, orders, oid, blo, bhi, start, stop):  # pragma: no cover - compiled
    """Pass 1: number of original types inside the ranges of each scan row.

    Scan row ``s`` reads the types ``orders[oid[s], start[s]:stop[s]]`` (a range of one
    sorted order: the one column, or the (pivot, second column) key, that holds the fewest
    candidates for its box) and tests every column.
    """
    ns = blo.shape[0]
    cnt = np.zeros(ns, dtype=np.int64)
    for s in prange(ns):
        o = orders[oid[s]]
        c = 0
        for t in range(start[s], stop[s]):
            if _in_ranges(xa, o[t], blo, bhi, s):
                c += 1
        cnt[s] = c
    return cnt


@njit(parallel=True)
def _fill_type_edges(xa, orders, oid, blo, bhi, start, stop, ptr, out):  # pragma: no cover - compiled
    """Pass 2: write the types counted by :func:`_count_type_edges` at ``out[ptr[s]:ptr[s+1]]``."""
    ns = blo.shape[0]
    for s in prange(ns):
        o = orders[oid[s]]
        p = ptr[s]
        for t in range(start[s], stop[s]):
            a = o[t]
            if _in_ranges(xa, a, blo, bhi, s):
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
