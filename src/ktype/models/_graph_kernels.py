"""Compiled kernels of the consistency graph (:mod:`ktype.models._graph`): the scans that list,
per released box, the original record types it is consistent with, and the sort of those edges.

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


#: candidates a block of scan rows may hold (:func:`type_edges`): its buffer is 32 MB
SCAN_BLOCK = 1 << 22


def type_edges(xa, orders, oid, blo, bhi, start, stop):
    """Per scan row s, the original types inside its box among the candidates
    ``orders[oid[s], start[s]:stop[s]]`` (a range of one sorted order: the one column, or
    the (pivot, second column) key, that holds the fewest candidates for its box; every
    column is tested). Returns ``(cnt, out)``: row s's types are
    ``out[ptr[s]:ptr[s + 1]]`` with ``ptr`` the running sum of ``cnt``.
    """
    return _in_blocks(start, stop, lambda s0, s1, off, hits, cnt: _scan_type_block(
        xa, orders, oid, blo, bhi, start, stop, s0, s1, off, hits, cnt))


def type_edges_sets(xa, blo, bhi, words, woff, start, stop):
    """:func:`type_edges` for freeform releases: scan row s reads the types
    ``start[s]:stop[s]`` of ``xa``'s own order and tests every column; a value-set column
    ``c`` (``woff[c] >= 0``) also tests membership in row s's set, bit ``v & 63`` of
    ``words[s, woff[c] + (v >> 6)]`` (:func:`pack_set_words`).

    A skip scan: when type ``a`` first fails column ``c``, so does every type after it that
    shares its columns ``0..c`` (they hold the same values there), and the scan jumps past
    that run (:func:`_prefix_run_ends`). Types sorted by their columns (as the graph builds
    them) form long runs; any order stays correct. On the 10^6-row census release this
    visits 6.5 * 10^7 of the 1.2 * 10^9 candidates.
    """
    ends = _prefix_run_ends(xa)
    return _in_blocks(start, stop, lambda s0, s1, off, hits, cnt: _scan_type_block_sets(
        xa, ends, blo, bhi, words, woff, start, stop, s0, s1, off, hits, cnt))


def _in_blocks(start, stop, scan):
    """Run ``scan(s0, s1, off, hits, cnt)`` over blocks of scan rows and gather the hits.

    Each candidate is tested once: a block is the longest run of rows whose candidates fit
    :data:`SCAN_BLOCK` entries (a larger row is a block of its own); ``scan`` tests them in
    parallel, row s writing from ``hits[off[s - s0]]`` on, and each block's hits are
    compacted before the next.
    """
    ns = len(start)
    width = np.maximum(stop - start, 0).astype(np.int64)
    cnt = np.zeros(ns, dtype=np.int64)
    hits = np.empty(max(SCAN_BLOCK, int(width.max()) if ns else 0, 1), dtype=np.int64)
    parts = []
    s0 = 0
    cum = np.concatenate([[0], np.cumsum(width)])
    while s0 < ns:
        # the longest run of rows from s0 whose candidates fit the buffer (at least one row)
        s1 = max(int(np.searchsorted(cum, cum[s0] + len(hits), "right")) - 1, s0 + 1)
        off = cum[s0:s1 + 1] - cum[s0]
        scan(s0, s1, off, hits, cnt)
        parts.append(_compact_hits(hits, off, cnt[s0:s1]))
        s0 = s1
    return cnt, (np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64))


@njit(parallel=True)
def _scan_type_block(xa, orders, oid, blo, bhi, start, stop, s0, s1, off, hits, cnt):  # pragma: no cover - compiled
    """Scan rows ``s0:s1``: row s writes its hits from ``hits[off[s - s0]]`` on and their
    number into ``cnt[s]``."""
    for s in prange(s0, s1):
        o = orders[oid[s]]
        p = off[s - s0]
        c = 0
        for t in range(start[s], stop[s]):
            a = o[t]
            if _in_ranges(xa, a, blo, bhi, s):
                hits[p + c] = a
                c += 1
        cnt[s] = c


@njit
def _compact_hits(hits, off, cnt):  # pragma: no cover - compiled
    """The hits of a block's rows, one after the other."""
    out = np.empty(cnt.sum(), dtype=np.int64)
    p = 0
    for s in range(cnt.shape[0]):
        out[p : p + cnt[s]] = hits[off[s] : off[s] + cnt[s]]
        p += cnt[s]
    return out


@njit
def _prefix_run_ends(xa):  # pragma: no cover - compiled
    """``ends[a, c]``: the end of the run of consecutive rows from ``a`` on that equal row
    ``a`` in columns ``0..c`` (the first row after ``a`` differing there, or ``len(xa)``)."""
    A, C = xa.shape
    ends = np.empty((A, C), dtype=np.int64)
    if A:
        ends[A - 1, :] = A
    for a in range(A - 2, -1, -1):
        first_diff = C
        for c in range(C):
            if xa[a, c] != xa[a + 1, c]:
                first_diff = c
                break
        for c in range(C):
            ends[a, c] = a + 1 if c >= first_diff else ends[a + 1, c]
    return ends


@njit(parallel=True)
def _scan_type_block_sets(xa, ends, blo, bhi, words, woff, start, stop, s0, s1, off, hits, cnt):  # pragma: no cover - compiled
    """:func:`_scan_type_block` for freeform releases (see :func:`type_edges_sets`). The
    test is written out here: as a called function it took 2.5x as long."""
    C = xa.shape[1]
    for b in prange(s0, s1):
        p = off[b - s0]
        c = 0
        a = start[b]
        while a < stop[b]:
            inside = True
            for col in range(C):
                v = xa[a, col]
                w = woff[col]
                if v < blo[b, col] or v > bhi[b, col] or (
                        w >= 0 and not (words[b, w + (v >> 6)] >> np.uint64(v & 63)) & np.uint64(1)):
                    a = ends[a, col]  # the rest of the run fails column col too
                    inside = False
                    break
            if inside:
                hits[p + c] = a
                c += 1
                a += 1
        cnt[b] = c


@njit
def pack_set_words(member, words, w0):  # pragma: no cover - compiled
    """OR value set ``member[i]`` (booleans over a column's values) into the bit words
    ``words[i, w0:]``: value ``v`` is bit ``v & 63`` of word ``w0 + (v >> 6)``."""
    for i in range(member.shape[0]):
        for v in range(member.shape[1]):
            if member[i, v]:
                words[i, w0 + (v >> 6)] |= np.uint64(1) << np.uint64(v & 63)


@njit
def _mix(z):  # pragma: no cover - compiled
    """The splitmix64 finalizer (a 64-bit mixing bijection)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit
def box_hashes(lo, hi, words):  # pragma: no cover - compiled
    """A 64-bit hash of each row ``(lo[i], hi[i], words[i])`` (equal rows, equal hashes)."""
    n = lo.shape[0]
    out = np.empty(n, dtype=np.uint64)
    for i in range(n):
        z = np.uint64(0x9E3779B97F4A7C15)
        for c in range(lo.shape[1]):
            z = _mix(z ^ ((np.uint64(lo[i, c]) << np.uint64(32)) | np.uint64(hi[i, c])))
        for w in range(words.shape[1]):
            z = _mix(z ^ words[i, w])
        out[i] = z
    return out


@njit
def rows_equal_to(lo, hi, words, rep):  # pragma: no cover - compiled
    """Whether every row ``i`` equals row ``rep[i]`` in ``lo``, ``hi`` and ``words``."""
    for i in range(lo.shape[0]):
        j = rep[i]
        for c in range(lo.shape[1]):
            if lo[i, c] != lo[j, c] or hi[i, c] != hi[j, c]:
                return False
        for w in range(words.shape[1]):
            if words[i, w] != words[j, w]:
                return False
    return True


@njit
def _sort_type_edges(orig, box, A, B):  # pragma: no cover - compiled
    """The edges ``(orig[e], box[e])`` sorted by original type, then box type (pairs are
    distinct): two stable counting sorts, by box type and then by original type."""
    E = orig.shape[0]
    cnt = np.zeros(max(A, B) + 1, dtype=np.int64)
    for e in range(E):
        cnt[box[e] + 1] += 1
    for b in range(B):
        cnt[b + 1] += cnt[b]
    by_box = np.empty(E, dtype=np.int64)
    for e in range(E):
        by_box[cnt[box[e]]] = e
        cnt[box[e]] += 1
    cnt[:] = 0
    for e in range(E):
        cnt[orig[e] + 1] += 1
    for a in range(A):
        cnt[a + 1] += cnt[a]
    so = np.empty(E, dtype=np.int64)
    sb = np.empty(E, dtype=np.int64)
    for t in range(E):
        e = by_box[t]
        p = cnt[orig[e]]
        so[p] = orig[e]
        sb[p] = box[e]
        cnt[orig[e]] = p + 1
    return so, sb


@njit
def k_factor_capacities(ea, eb, ma, mb, k):  # pragma: no cover - compiled
    """Capacity of type edge ``e`` in the k-factor network: ``min(ma·mb, k·ma, k·mb)`` of its
    original type's and box type's multiplicities (one pass, no temporaries over the edges)."""
    out = np.empty(ea.shape[0], dtype=np.int64)
    for e in range(ea.shape[0]):
        a = ma[ea[e]]
        b = mb[eb[e]]
        out[e] = min(a * b, k * min(a, b))
    return out


@njit
def _short(s, left):  # pragma: no cover - compiled
    """Some node's active capacities ``s`` fall short of what it has ``left``."""
    for i in range(s.shape[0]):
        if s[i] < left[i]:
            return True
    return False


@njit
def _settle(s, left, other):  # pragma: no cover - compiled
    """The nodes whose edges were just filled (``s == left``) have nothing left; False when
    that overdrew a node of the other side (``other < 0``: no full flow)."""
    for i in range(s.shape[0]):
        if s[i] == left[i]:
            left[i] = 0
    for i in range(other.shape[0]):
        if other[i] < 0:
            return False
    return True


@njit
def forced_flow(ea, eb, cap, da, db):  # pragma: no cover - compiled
    """Fix the flow a full transportation flow must carry on *forced* edges.

    Network: supplies ``da`` (original types ``a``), demands ``db`` (box types ``b``), edge
    ``e`` from ``ea[e]`` to ``eb[e]`` with capacity ``cap[e]``; a full flow meets every supply
    and demand. Rounds, until nothing changes: each active edge's capacity is cut to the
    supply and demand left at its ends (no full flow carries more; an edge cut to 0 leaves);
    a node whose active edges' capacities add up to exactly what it has left must fill all of
    them, so their flow is fixed at capacity, taken from the other ends, and the edges leave.
    Every step keeps exactly the full flows of the network (each is forced in all of them).

    Returns ``(flow, active, capacity, supply left, demand left, ok)``. ``ok`` is False when a
    node is seen unable to meet what it has left (fewer active capacities, or a demand driven
    below 0): then no full flow exists, which the caller establishes with a maximum flow of
    the whole network, not with this.
    """
    E = ea.shape[0]
    A = da.shape[0]
    B = db.shape[0]
    f = np.zeros(E, dtype=np.int64)
    act = np.ones(E, dtype=np.bool_)
    c = cap.copy()
    la = da.copy()
    lb = db.copy()
    sa = np.empty(A, dtype=np.int64)
    sb = np.empty(B, dtype=np.int64)
    changed = True
    while changed:
        changed = False
        for side in range(2):
            sa[:] = 0
            sb[:] = 0
            for e in range(E):
                if act[e]:
                    m = min(c[e], la[ea[e]], lb[eb[e]])
                    c[e] = m
                    if m == 0:
                        act[e] = False
                    else:
                        sa[ea[e]] += m
                        sb[eb[e]] += m
            if _short(sa, la) or _short(sb, lb):
                return f, act, c, la, lb, False
            for e in range(E):
                if act[e]:
                    u = ea[e]
                    v = eb[e]
                    if side == 0 and sa[u] == la[u]:
                        lb[v] -= c[e]
                    elif side == 1 and sb[v] == lb[v]:
                        la[u] -= c[e]
                    else:
                        continue
                    f[e] = c[e]
                    act[e] = False
                    changed = True
            settled = _settle(sa, la, lb) if side == 0 else _settle(sb, lb, la)
            if not settled:
                return f, act, c, la, lb, False
    return f, act, c, la, lb, True
