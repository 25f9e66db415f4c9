"""Compiled kernels of micro-aggregation: a k-d tree with deletions, MDAV and V-MDAV.

MDAV asks, per group it forms, for the record farthest from a point and for the k nearest
records of a point, among the records not yet grouped. Answering both by a scan of the
remaining records costs O(n) per group, O(n²/k) in all (hours for a million rows). A k-d tree
over the records whose nodes count their remaining records answers both by branch and bound
(a node is skipped when its box cannot hold a better record, or when it holds no remaining
record), and a deletion decrements the counts from a leaf to the root.

Ties: every query orders records by (squared distance, index), the index being the record's
position in the canonical (content) order chosen by the caller, so the groups do not depend on
the input row order.
"""

from __future__ import annotations

import numpy as np

from ..._jit import njit

LEAF_SIZE = 16


@njit
def build_tree(P):
    """A k-d tree over the rows of ``P`` (n, d): returns the node arrays and ``leaf_of`` (row -> leaf).

    Nodes split at the median of their widest coordinate; a leaf holds at most LEAF_SIZE rows,
    stored as the slice ``perm[start:end]``.
    """
    n, d = P.shape
    cap = 2 * (n // LEAF_SIZE + 1) * 2 + 8
    start = np.zeros(cap, dtype=np.int64)
    end = np.zeros(cap, dtype=np.int64)
    left = np.full(cap, -1, dtype=np.int64)
    right = np.full(cap, -1, dtype=np.int64)
    parent = np.full(cap, -1, dtype=np.int64)
    blo = np.zeros((cap, d), dtype=np.float64)
    bhi = np.zeros((cap, d), dtype=np.float64)
    count = np.zeros(cap, dtype=np.int64)
    perm = np.arange(n)
    leaf_of = np.zeros(n, dtype=np.int64)
    stack = np.zeros(cap, dtype=np.int64)
    m = 1
    start[0] = 0
    end[0] = n
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        v = stack[top]
        a, b = start[v], end[v]
        count[v] = b - a
        for j in range(d):
            lo = np.inf
            hi = -np.inf
            for t in range(a, b):
                x = P[perm[t], j]
                if x < lo:
                    lo = x
                if x > hi:
                    hi = x
            blo[v, j] = lo
            bhi[v, j] = hi
        if b - a <= LEAF_SIZE:
            for t in range(a, b):
                leaf_of[perm[t]] = v
            continue
        dim = 0
        w = -1.0
        for j in range(d):
            if bhi[v, j] - blo[v, j] > w:
                w = bhi[v, j] - blo[v, j]
                dim = j
        if w <= 0.0:  # all rows equal: split in the middle of the slice
            mid = (a + b) // 2
        else:
            seg = perm[a:b].copy()
            order = np.argsort(P[seg, dim], kind="mergesort")
            perm[a:b] = seg[order]
            mid = (a + b) // 2
        for c, (s, e) in enumerate(((a, mid), (mid, b))):
            start[m] = s
            end[m] = e
            parent[m] = v
            if c == 0:
                left[v] = m
            else:
                right[v] = m
            stack[top] = m
            top += 1
            m += 1
    return start[:m], end[:m], left[:m], right[:m], parent[:m], blo[:m], bhi[:m], count[:m], perm, leaf_of


@njit
def _maxdist2(q, blo, bhi, v):
    s = 0.0
    for j in range(q.shape[0]):
        a = abs(q[j] - blo[v, j])
        b = abs(q[j] - bhi[v, j])
        m = a if a > b else b
        s += m * m
    return s


@njit
def _mindist2(q, blo, bhi, v):
    s = 0.0
    for j in range(q.shape[0]):
        if q[j] < blo[v, j]:
            t = blo[v, j] - q[j]
            s += t * t
        elif q[j] > bhi[v, j]:
            t = q[j] - bhi[v, j]
            s += t * t
    return s


@njit
def _dist2(P, i, q):
    s = 0.0
    for j in range(q.shape[0]):
        t = P[i, j] - q[j]
        s += t * t
    return s


@njit
def farthest(P, q, alive, start, end, left, right, blo, bhi, count, perm, stack):
    """The remaining row farthest from ``q`` (largest squared distance, then lowest index)."""
    best_d = -1.0
    best_i = -1
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        v = stack[top]
        if count[v] == 0:
            continue
        if _maxdist2(q, blo, bhi, v) < best_d:
            continue
        if left[v] < 0:
            for t in range(start[v], end[v]):
                i = perm[t]
                if not alive[i]:
                    continue
                dd = _dist2(P, i, q)
                if dd > best_d or (dd == best_d and i < best_i):
                    best_d = dd
                    best_i = i
            continue
        lc, rc = left[v], right[v]
        if _maxdist2(q, blo, bhi, lc) >= _maxdist2(q, blo, bhi, rc):  # visit the more promising first
            stack[top] = rc
            stack[top + 1] = lc
        else:
            stack[top] = lc
            stack[top + 1] = rc
        top += 2
    return best_i


@njit
def nearest(P, q, m, alive, start, end, left, right, blo, bhi, count, perm, stack, out_i, out_d):
    """The ``m`` remaining rows nearest to ``q`` (by squared distance, then index), nearest first,
    written to ``out_i[:m]``; returns how many were found (fewer when fewer remain)."""
    filled = 0
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        v = stack[top]
        if count[v] == 0:
            continue
        if filled == m and _mindist2(q, blo, bhi, v) > out_d[m - 1]:
            continue
        if left[v] < 0:
            for t in range(start[v], end[v]):
                i = perm[t]
                if not alive[i]:
                    continue
                dd = _dist2(P, i, q)
                if filled == m and (dd > out_d[m - 1] or (dd == out_d[m - 1] and i > out_i[m - 1])):
                    continue
                pos = filled if filled < m else m - 1  # insertion into the sorted list
                while pos > 0 and (out_d[pos - 1] > dd or (out_d[pos - 1] == dd and out_i[pos - 1] > i)):
                    out_d[pos] = out_d[pos - 1]
                    out_i[pos] = out_i[pos - 1]
                    pos -= 1
                out_d[pos] = dd
                out_i[pos] = i
                if filled < m:
                    filled += 1
            continue
        lc, rc = left[v], right[v]
        if _mindist2(q, blo, bhi, lc) <= _mindist2(q, blo, bhi, rc):  # nearer child popped first
            stack[top] = rc
            stack[top + 1] = lc
        else:
            stack[top] = lc
            stack[top + 1] = rc
        top += 2
    return filled


@njit
def _remove(i, alive, leaf_of, parent, count, P, start, end, left, right, blo, bhi, perm):
    """Remove row ``i``: decrement the counts from its leaf to the root and shrink the boxes
    to the remaining rows (the leaf's box from its rows, each ancestor's from its children)."""
    alive[i] = False
    d = P.shape[1]
    v = leaf_of[i]
    count[v] -= 1
    for j in range(d):
        blo[v, j] = np.inf
        bhi[v, j] = -np.inf
    for t in range(start[v], end[v]):
        u = perm[t]
        if alive[u]:
            for j in range(d):
                x = P[u, j]
                if x < blo[v, j]:
                    blo[v, j] = x
                if x > bhi[v, j]:
                    bhi[v, j] = x
    v = parent[v]
    while v >= 0:
        count[v] -= 1
        a, b = left[v], right[v]
        for j in range(d):
            lo = np.inf
            hi = -np.inf
            if count[a] > 0:
                lo = blo[a, j]
                hi = bhi[a, j]
            if count[b] > 0:
                lo = min(lo, blo[b, j])
                hi = max(hi, bhi[b, j])
            blo[v, j] = lo
            bhi[v, j] = hi
        v = parent[v]


@njit
def _anchor(P, alive, c):
    """The remaining rows sorted by decreasing distance to ``c`` (ties by index), and the distances."""
    n, d = P.shape
    m = 0
    for i in range(n):
        if alive[i]:
            m += 1
    idx = np.empty(m, dtype=np.int64)
    dist = np.empty(m, dtype=np.float64)
    t = 0
    for i in range(n):
        if alive[i]:
            idx[t] = i
            dist[t] = -np.sqrt(_dist2(P, i, c))
            t += 1
    order = np.argsort(dist, kind="mergesort")
    return idx[order], -dist[order]


@njit
def far_from(P, q, alive, oi, od, c0, head):
    """The remaining row farthest from ``q`` (largest distance, then lowest index), found by
    scanning the rows in decreasing distance to the anchor ``c0`` and stopping when the
    triangle inequality ``d(x, q) <= d(x, c0) + d(c0, q)`` rules out the rest. Returns the row,
    the first alive position of the list, and how many entries were scanned."""
    while head < len(oi) and not alive[oi[head]]:
        head += 1
    delta = np.sqrt(_dist2_pt(q, c0))
    best_d = -1.0
    best_s = -1.0
    best_i = -1
    scanned = 0
    for t in range(head, len(oi)):
        if best_i >= 0 and (od[t] + delta) * (1.0 + 1e-12) + 1e-300 < best_s:
            break
        i = oi[t]
        scanned += 1
        if not alive[i]:
            continue
        dd = _dist2(P, i, q)
        if dd > best_d or (dd == best_d and i < best_i):
            best_d = dd
            best_s = np.sqrt(dd)
            best_i = i
    return best_i, head, scanned


@njit
def _dist2_pt(a, b):
    s = 0.0
    for j in range(a.shape[0]):
        t = a[j] - b[j]
        s += t * t
    return s


@njit
def mdav_kernel(P, k, variable, gamma):
    """Group label of every row of ``P`` (canonical order): MDAV, or V-MDAV when ``variable``.

    MDAV (Domingo-Ferrer & Mateo-Sanz 2002; Domingo-Ferrer & Torra 2005): while at least 3k
    rows remain, take the row xr farthest from the centroid of the remaining rows and the row
    xs farthest from xr, and form a group of xr and its k-1 nearest remaining rows, then one of
    xs and its k-1 nearest. With 2k..3k-1 rows left, one more group around the row farthest
    from the centroid, and the rest (k..2k-1 rows) form the last group; with fewer than 2k
    rows, they form the last group.

    V-MDAV (Solanas & Martínez-Ballesté 2006): while at least k rows remain, take the row e
    farthest from the centroid of the remaining rows and its k-1 nearest remaining rows; then
    extend the group, up to 2k-1 rows, by the remaining row e_in nearest to the group as long
    as its distance d_in to the group is below ``gamma`` times the distance d_out from e_in to
    its nearest other remaining row. The fewer than k rows left at the end join the group
    with the nearest centroid.
    """
    n, d = P.shape
    start, end, left, right, parent, blo, bhi, count, perm, leaf_of = build_tree(P)
    stack = np.zeros(len(start) + 4, dtype=np.int64)
    alive = np.ones(n, dtype=np.bool_)
    label = np.full(n, -1, dtype=np.int64)
    total = np.zeros(d, dtype=np.float64)
    for i in range(n):
        for j in range(d):
            total[j] += P[i, j]
    remaining = n
    g = 0
    c = np.zeros(d, dtype=np.float64)
    nb_i = np.zeros(max(k, 2), dtype=np.int64)
    nb_d = np.zeros(max(k, 2), dtype=np.float64)
    two_i = np.zeros(2, dtype=np.int64)
    two_d = np.zeros(2, dtype=np.float64)
    members = np.zeros(2 * k, dtype=np.int64)
    for j in range(d):
        c[j] = total[j] / n
    c0 = c.copy()
    oi, od = _anchor(P, alive, c0)
    head = 0
    while remaining >= (k if variable else 3 * k):
        for j in range(d):
            c[j] = total[j] / remaining
        xr, head, scanned = far_from(P, c, alive, oi, od, c0, head)
        if scanned > 256 + remaining // 256:  # the centroid moved away from the anchor: re-anchor
            c0 = c.copy()
            oi, od = _anchor(P, alive, c0)
            head = 0
        xs = -1
        if not variable:
            xs = farthest(P, P[xr], alive, start, end, left, right, blo, bhi, count, perm, stack)
        got = nearest(P, P[xr], k, alive, start, end, left, right, blo, bhi, count, perm, stack, nb_i, nb_d)
        size = 0
        for t in range(got):
            i = nb_i[t]
            label[i] = g
            members[size] = i
            size += 1
            _remove(i, alive, leaf_of, parent, count, P, start, end, left, right, blo, bhi, perm)
            for j in range(d):
                total[j] -= P[i, j]
        remaining -= got
        if variable:
            while size < 2 * k - 1 and remaining > 0:
                # e_in: the remaining row nearest to any member; d_in its distance
                e_in = -1
                d_in = np.inf
                for t in range(size):
                    if nearest(P, P[members[t]], 1, alive, start, end, left, right, blo, bhi, count, perm, stack,
                               two_i, two_d) == 1:
                        if two_d[0] < d_in or (two_d[0] == d_in and two_i[0] < e_in):
                            d_in = two_d[0]
                            e_in = two_i[0]
                # d_out: from e_in to its nearest other remaining row
                got2 = nearest(P, P[e_in], 2, alive, start, end, left, right, blo, bhi, count, perm, stack,
                               two_i, two_d)
                d_out = np.inf
                for t in range(got2):
                    if two_i[t] != e_in:
                        d_out = two_d[t]
                        break
                if not (np.sqrt(d_in) < gamma * np.sqrt(d_out)):
                    break
                label[e_in] = g
                members[size] = e_in
                size += 1
                _remove(e_in, alive, leaf_of, parent, count, P, start, end, left, right, blo, bhi, perm)
                for j in range(d):
                    total[j] -= P[e_in, j]
                remaining -= 1
            g += 1
            continue
        g += 1
        if not alive[xs]:  # only when rows coincide: the farthest from xr among those left
            xs = farthest(P, P[xr], alive, start, end, left, right, blo, bhi, count, perm, stack)
        got = nearest(P, P[xs], k, alive, start, end, left, right, blo, bhi, count, perm, stack, nb_i, nb_d)
        for t in range(got):
            i = nb_i[t]
            label[i] = g
            _remove(i, alive, leaf_of, parent, count, P, start, end, left, right, blo, bhi, perm)
            for j in range(d):
                total[j] -= P[i, j]
        remaining -= got
        g += 1
    if variable:
        if remaining > 0:  # fewer than k left: each joins the group with the nearest centroid
            cen = np.zeros((g, d), dtype=np.float64)
            cnt = np.zeros(g, dtype=np.int64)
            for i in range(n):
                if label[i] >= 0:
                    cnt[label[i]] += 1
                    for j in range(d):
                        cen[label[i], j] += P[i, j]
            for h in range(g):
                for j in range(d):
                    cen[h, j] /= cnt[h]
            for i in range(n):
                if label[i] < 0:
                    best = -1
                    bd = np.inf
                    for h in range(g):
                        dd = 0.0
                        for j in range(d):
                            t = P[i, j] - cen[h, j]
                            dd += t * t
                        if dd < bd:
                            bd = dd
                            best = h
                    label[i] = best
        return label, g
    if remaining >= 2 * k:
        for j in range(d):
            c[j] = total[j] / remaining
        xr = farthest(P, c, alive, start, end, left, right, blo, bhi, count, perm, stack)
        got = nearest(P, P[xr], k, alive, start, end, left, right, blo, bhi, count, perm, stack, nb_i, nb_d)
        for t in range(got):
            i = nb_i[t]
            label[i] = g
            _remove(i, alive, leaf_of, parent, count, P, start, end, left, right, blo, bhi, perm)
        remaining -= got
        g += 1
    if remaining > 0:
        for i in range(n):
            if alive[i]:
                label[i] = g
        g += 1
    return label, g


@njit
def group_sums(P, label, g):
    """Per-group row counts and coordinate sums."""
    n, d = P.shape
    cnt = np.zeros(g, dtype=np.int64)
    s = np.zeros((g, d), dtype=np.float64)
    for i in range(n):
        h = label[i]
        cnt[h] += 1
        for j in range(d):
            s[h, j] += P[i, j]
    return cnt, s
