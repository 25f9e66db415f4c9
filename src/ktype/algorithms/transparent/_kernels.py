"""Compiled kernels of Tailor, Assign and Slice (numba; no Python loops over rows).

Perimeters are compared exactly when the caller passes integer coordinates and integer
multipliers (``per · Π ext`` is an integer), so ties resolve as in the paper's traces; with
float inputs the same kernels run in floating point (still transparent: every decision
reads only ids and QIs).

Length: Tailor, Assign and Slice share the perimeter arithmetic and the row-order helpers kept
here, and the strict Mondrian baseline reuses Tailor's perimeter; splitting them would put the
perimeter convention (exact integers or floats, ``W``/``M``) in two places.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..._jit import njit
from .._rules import all_ok


@njit
def _group_max_count(rows, s, cnt):
    c = 0
    for t in range(rows.shape[0]):
        v = s[rows[t]]
        cnt[v] += 1
        if cnt[v] > c:
            c = cnt[v]
    for t in range(rows.shape[0]):
        cnt[s[rows[t]]] = 0
    return c


@njit
def _add_widths(lmin, lmax, m, mj, wj, pc, sc):
    """Add dimension j's weighted width ``mj·(wj[max] − wj[min])`` of every prefix ``0..k`` to
    ``pc[k]`` and of every suffix ``k..m-1`` to ``sc[k]``, position k spanning the values
    ``lmin[k]..lmax[k]`` (one row in Tailor: ``lmin`` is ``lmax``; a column of rows in Slice)."""
    mn = lmin[0]
    mx = lmax[0]
    for k in range(m):
        if lmin[k] < mn:
            mn = lmin[k]
        if lmax[k] > mx:
            mx = lmax[k]
        pc[k] += mj * (wj[mx] - wj[mn])
    mn = lmin[m - 1]
    mx = lmax[m - 1]
    for k in range(m - 1, -1, -1):
        if lmin[k] < mn:
            mn = lmin[k]
        if lmax[k] > mx:
            mx = lmax[k]
        sc[k] += mj * (wj[mx] - wj[mn])


@njit
def _perimeter_sums(lmin, lmax, m, M, W, pc, sc):
    """``pc[k]`` / ``sc[k]``: the weighted width sum over all dimensions of the prefix ``0..k`` /
    the suffix ``k..m-1`` of positions spanning ``lmin[j, k]..lmax[j, k]`` (the dimensions
    added in order, so the floating-point sums are those of the loops this replaced)."""
    zero = W[0, 0] - W[0, 0]
    for k in range(m):
        pc[k] = zero
    for k in range(m + 1):
        sc[k] = zero
    for j in range(lmin.shape[0]):
        if M[j] != 0:
            _add_widths(lmin[j], lmax[j], m, M[j], W[j], pc, sc)


@njit
def _tailor_dim(X, W, M, ords, a, b, lc, i, xo, pc, sc):
    """The best cut of the node ``a:b`` on dimension ``i``: ``(size of the left part, its
    perimeter sum)``, the first least one in size order (size -1 when no cut is allowed).
    ``xo`` (d × m), ``pc`` (m) and ``sc`` (m + 1) are scratch."""
    d = X.shape[1]
    m = b - a
    zero = W[0, 0] - W[0, 0]
    o = ords[i, a:b]
    for k in range(m):  # one random read per row, then the sums below read sequentially
        r = o[k]
        for j in range(d):
            xo[j, k] = X[r, j]
    _perimeter_sums(xo, xo, m, M, W, pc, sc)
    best_k = -1
    best_p = zero
    for k in range(lc, m - lc + 1):
        p = k * pc[k - 1] + (m - k) * sc[k]
        if best_k < 0 or p < best_p:
            best_p = p
            best_k = k
    return best_k, best_p


@njit
def _tailor_best(X, W, M, ords, a, b, lc):
    """Tailor's best cut of the node holding positions ``a:b`` of every order: the
    ``(dimension, size of the left part)`` of least perimeter sum (first such in dimension,
    then size order)."""
    d = X.shape[1]
    m = b - a
    pc = np.empty(m, dtype=W.dtype)
    sc = np.empty(m + 1, dtype=W.dtype)
    xo = np.empty((d, m), dtype=X.dtype)  # the node's rows in order i, column by column
    best_i = -1
    best_k = -1
    best_p = W[0, 0] - W[0, 0]
    for i in range(d):
        k, p = _tailor_dim(X, W, M, ords, a, b, lc, i, xo, pc, sc)
        if k >= 0 and (best_i < 0 or p < best_p):
            best_p = p
            best_i = i
            best_k = k
    return best_i, best_k


@njit(parallel=True)
def _tailor_best_wide(X, W, M, ords, a, b, lc):
    """:func:`_tailor_best` with the dimensions on parallel threads (for a node too large to
    share the threads with others, e.g. the root): the same cut."""
    d = X.shape[1]
    m = b - a
    ks = np.empty(d, dtype=np.int64)
    ps = np.empty(d, dtype=W.dtype)
    for i in prange(d):
        ks[i], ps[i] = _tailor_dim(X, W, M, ords, a, b, lc, i, np.empty((d, m), dtype=X.dtype),
                                   np.empty(m, dtype=W.dtype), np.empty(m + 1, dtype=W.dtype))
    best_i = -1
    best_k = -1
    for i in range(d):
        if ks[i] >= 0 and (best_i < 0 or ps[i] < ps[best_i]):
            best_i = i
            best_k = ks[i]
    return best_i, best_k


@njit
def _tailor_split(ords, mark, tmp, a, b, best_i, best_k):
    """The first ``best_k`` rows of ``ords[best_i, a:b]`` go left: stable-partition the
    other orders' ``a:b`` the same way (``tmp[a:b]`` is this node's scratch)."""
    d = ords.shape[0]
    for t in range(a, a + best_k):
        mark[ords[best_i, t]] = True
    for j in range(d):
        if j == best_i:
            continue
        p1 = a
        p2 = a
        for t in range(a, b):
            r = ords[j, t]
            if mark[r]:
                ords[j, p1] = r
                p1 += 1
            else:
                tmp[p2] = r
                p2 += 1
        for t in range(a, p2):
            ords[j, p1 + t - a] = tmp[t]
    for t in range(a, a + best_k):
        mark[ords[best_i, t]] = False


@njit
def _tailor_lc(ords, s, n_values, l, two_l_stop, a, b):  # noqa: E741
    """``ℓ·c`` (c = the node's largest value count, both sides of a cut need that many rows),
    or -1 when the node ``a:b`` is not split (not ``two_l_stop``·ℓ-diverse)."""
    cnt = np.zeros(n_values, dtype=np.int64)
    c = _group_max_count(ords[0, a:b], s, cnt)
    return -1 if c * two_l_stop * l > b - a else l * c


@njit
def _tailor_cut(ords, mark, tmp, a, b, best_i, best_k):
    """Split the node ``a:b`` at its best cut: the cut position, or -1 (a leaf) without one."""
    if best_i < 0:
        return -1
    _tailor_split(ords, mark, tmp, a, b, best_i, best_k)
    return a + best_k


@njit(parallel=True)
def tailor_kernel(X, W, M, ords, s, n_values, l, two_l_stop, n_threads):  # noqa: E741
    """Tailor (Fig. 3) on pre-sorted orders ``ords[i]`` (rows by (X[:, i], key)).

    ``W[j, rank]`` is the coordinate of a rank, ``M[j]`` the multiplier of dimension j
    (``Π_{i≠j} ext_i``; 0 drops it). Returns ``group`` (leaf id per row) and the leaf count.
    ``two_l_stop`` is the split threshold factor (2 for Tailor: split while 2ℓ-diverse).

    The nodes of one depth are independent (each reads and rewrites only its positions
    ``a:b`` of the orders), so each depth runs its nodes in parallel; a depth with fewer
    nodes than ``n_threads`` (the root) runs each node's dimensions in parallel instead. Leaves are numbered as
    the paper's depth-first recursion (right child first) numbers them: by decreasing start
    position.
    """
    n = X.shape[0]
    group = np.full(n, -1, dtype=np.int64)
    mark = np.zeros(n, dtype=np.bool_)
    tmp = np.empty(n, dtype=ords.dtype)
    leaf_a = np.empty(n + 1, dtype=np.int64)
    leaf_b = np.empty(n + 1, dtype=np.int64)
    n_leaves = 0
    seg = np.empty((1, 2), dtype=np.int64)
    seg[0, 0] = 0
    seg[0, 1] = n
    while seg.shape[0] > 0:
        m = seg.shape[0]
        cut = np.empty(m, dtype=np.int64)
        if m < n_threads and n_threads > 1:  # fewer nodes than threads (the root): one node at a time, its dimensions in parallel
            for t in range(m):
                lc = _tailor_lc(ords, s, n_values, l, two_l_stop, seg[t, 0], seg[t, 1])
                best_i, best_k = _tailor_best_wide(X, W, M, ords, seg[t, 0], seg[t, 1], lc) if lc >= 0 else (-1, -1)
                cut[t] = _tailor_cut(ords, mark, tmp, seg[t, 0], seg[t, 1], best_i, best_k)
        for t in prange(m if m >= n_threads or n_threads == 1 else 0):
            lc = _tailor_lc(ords, s, n_values, l, two_l_stop, seg[t, 0], seg[t, 1])
            best_i, best_k = _tailor_best(X, W, M, ords, seg[t, 0], seg[t, 1], lc) if lc >= 0 else (-1, -1)
            cut[t] = _tailor_cut(ords, mark, tmp, seg[t, 0], seg[t, 1], best_i, best_k)
        n_next = 0
        for t in range(m):
            if cut[t] < 0:
                leaf_a[n_leaves] = seg[t, 0]
                leaf_b[n_leaves] = seg[t, 1]
                n_leaves += 1
            else:
                n_next += 2
        nseg = np.empty((n_next, 2), dtype=np.int64)
        j = 0
        for t in range(m):
            if cut[t] >= 0:
                nseg[j, 0] = seg[t, 0]
                nseg[j, 1] = cut[t]
                nseg[j + 1, 0] = cut[t]
                nseg[j + 1, 1] = seg[t, 1]
                j += 2
        seg = nseg
    order = np.argsort(-leaf_a[:n_leaves])
    for q in prange(n_leaves):
        f = order[q]
        for t in range(leaf_a[f], leaf_b[f]):
            group[ords[0, t]] = q
    return group, n_leaves


@njit
def _assign_one(rows, vstart, vcount, l, bbuf, boff, bdesc, nb):  # noqa: E741
    """Assign (Fig. 6, corrected) on one leaf.

    ``rows`` holds the leaf's rows grouped by value (blocks ``vstart[v] .. +vcount[v]``),
    each block already in a secret uniformly random order, so taking α rows from the front
    of a block is a uniform draw without replacement. Buckets are appended to ``bbuf`` from
    ``boff`` (column-major: column c of a bucket with α rows per column at ``c·α``);
    ``bdesc[nb] = (offset, α, β)``. Returns the new ``(boff, nb)``.
    """
    w = vcount.shape[0]
    rc = vcount.copy()
    ptr = vstart.copy()
    order = np.empty(w, dtype=np.int64)
    size = 0
    for v in range(w):
        size += rc[v]
    while size > 0:
        # values by descending remaining count, ties by value code (the public sorted domain)
        k = 0
        for v in range(w):
            if rc[v] > 0:
                order[k] = v
                k += 1
        wp = k
        for x in range(1, wp):
            y = order[x]
            z = x - 1
            while z >= 0 and (rc[order[z]] < rc[y] or (rc[order[z]] == rc[y] and order[z] > y)):
                order[z + 1] = order[z]
                z -= 1
            order[z + 1] = y
        beta = l
        alpha = 0
        n1 = rc[order[0]]
        while beta <= wp:
            nb_ = rc[order[beta - 1]]
            nb1 = rc[order[beta]] if beta < wp else 0
            a = nb_
            cap = (size - l * nb1) // beta
            if cap < a:
                a = cap
            if beta > l:
                cap2 = (size - l * n1) // (beta - l)
                if cap2 < a:
                    a = cap2
            if a >= 1:
                alpha = a
                break
            beta += 1
        if alpha == 0:
            return -1, nb  # not l-eligible (cannot happen after the entry check)
        for c in range(beta):
            v = order[c]
            for t in range(alpha):
                bbuf[boff + c * alpha + t] = rows[ptr[v] + t]
            ptr[v] += alpha
            rc[v] -= alpha
        bdesc[nb, 0] = boff
        bdesc[nb, 1] = alpha
        bdesc[nb, 2] = beta
        nb += 1
        boff += alpha * beta
        size -= alpha * beta
    return boff, nb


@njit
def _slice_bucket(bbuf, off, alpha, beta, X, W, M, key, group, g0):
    """Slice (Fig. 8) one bucket; final groups get ids from ``g0``. Returns next id.

    A node of the recursion is a sub-bucket of ``a`` rows per column. The bucket's rows are
    copied to a local table (``Xl``, ``kl``: position ``u`` of the bucket, column-major as in
    ``bbuf``), and for every dimension ``i`` each column's rows are kept sorted by
    ``(X[:, i], key)`` (``S[i]``; the node at relative offset ``o`` holds column ``c`` at
    ``o + c·a``). A cut keeps the first ``k`` rows of every column sorted by the chosen
    dimension on the left; the other dimensions' orders are split by a stable partition, so
    every node reads its columns already sorted: each bucket column is sorted once per
    dimension, not once per node, and the sums below read the local table only.
    """
    d = X.shape[1]
    n_all = key.shape[0]
    zero = W[0, 0] - W[0, 0]
    size = alpha * beta
    Xl = np.empty((size, d), dtype=X.dtype)
    kl = np.empty(size, dtype=np.int64)
    for u in range(size):
        r = bbuf[off + u]
        kl[u] = key[r]
        for j in range(d):
            Xl[u, j] = X[r, j]
    S = np.empty((d, size), dtype=np.int64)
    sk = np.empty(alpha, dtype=np.int64)
    for i in range(d):
        for c in range(beta):
            for t in range(alpha):
                u = c * alpha + t
                sk[t] = np.int64(Xl[u, i]) * n_all + kl[u]
            idx = np.argsort(sk)
            for t in range(alpha):
                S[i, c * alpha + t] = c * alpha + idx[t]
    left = np.zeros(size, dtype=np.bool_)  # by local position: on the left of the current cut
    tmp = np.empty(size, dtype=np.int64)
    lmin = np.empty((d, alpha), dtype=np.int64)
    lmax = np.empty((d, alpha), dtype=np.int64)
    pc = np.empty(alpha, dtype=W.dtype)
    sc = np.empty(alpha + 1, dtype=W.dtype)
    st_off = np.empty(alpha + 1, dtype=np.int64)
    st_al = np.empty(alpha + 1, dtype=np.int64)
    top = 1
    st_off[0] = 0
    st_al[0] = alpha
    g = g0
    while top > 0:
        top -= 1
        o = st_off[top]
        a = st_al[top]
        if a == 1:
            for c in range(beta):
                group[bbuf[off + S[0, o + c]]] = g
            g += 1
            continue
        best_i = -1
        best_k = -1
        best_p = zero
        for i in range(d):
            # column-wise min/max of every position t (the columns' rows read once each, with
            # all their dimensions together)
            for j in range(d):
                for t in range(a):
                    mn = Xl[S[i, o + t], j]
                    mx = mn
                    for c in range(1, beta):
                        x = Xl[S[i, o + c * a + t], j]
                        if x < mn:
                            mn = x
                        if x > mx:
                            mx = x
                    lmin[j, t] = mn
                    lmax[j, t] = mx
            _perimeter_sums(lmin, lmax, a, M, W, pc, sc)
            for k in range(1, a):
                p = k * beta * pc[k - 1] + (a - k) * beta * sc[k]
                if best_i < 0 or p < best_p:
                    best_p = p
                    best_i = i
                    best_k = k
        k = best_k
        for c in range(beta):
            for t in range(a):
                left[S[best_i, o + c * a + t]] = t < k
        # every order rewritten into the sub-buckets' layouts: left (k per column), then right
        for i in range(d):
            for c in range(beta):
                pl = c * k
                pr = beta * k + c * (a - k)
                for t in range(a):
                    u = S[i, o + c * a + t]
                    if left[u]:
                        tmp[pl] = u
                        pl += 1
                    else:
                        tmp[pr] = u
                        pr += 1
            for t in range(beta * a):
                S[i, o + t] = tmp[t]
        st_off[top] = o
        st_al[top] = k
        top += 1
        st_off[top] = o + beta * k
        st_al[top] = a - k
        top += 1
    return g


@njit
def balanced_bins(cost, n_bins):
    """Items split into ``n_bins`` bins of about equal total cost (largest first, each to the
    least loaded bin: the LPT rule): ``(items, start)``, bin ``w`` holding
    ``items[start[w]:start[w + 1]]`` in increasing item order. Used to run uneven independent
    pieces of work on a fixed number of threads (numba's ``prange`` splits a range statically)."""
    n = cost.shape[0]
    load = np.zeros(n_bins, dtype=np.float64)
    bin_of = np.empty(n, dtype=np.int64)
    for q in np.argsort(-cost, kind="mergesort"):
        w = 0
        for v in range(1, n_bins):
            if load[v] < load[w]:
                w = v
        bin_of[q] = w
        load[w] += cost[q]
    start = np.zeros(n_bins + 1, dtype=np.int64)
    for q in range(n):
        start[bin_of[q] + 1] += 1
    for w in range(n_bins):
        start[w + 1] += start[w]
    fill = start[:-1].copy()
    items = np.empty(n, dtype=np.int64)
    for q in range(n):
        items[fill[bin_of[q]]] = q
        fill[bin_of[q]] += 1
    return items, start


@njit(parallel=True)
def ace_kernel(rows, leaf_start, s, n_values, l, X, W, M, key, n_threads):  # noqa: E741
    """Ace (Assign + Slice) on every leaf; ``rows`` sorted by (leaf, value, secret rank).

    Returns the final group id of each row (``-1`` if a leaf was not ℓ-eligible). Leaves are
    independent, and so are the buckets Assign makes: Assign runs per leaf, then Slice per
    bucket, both on ``n_threads`` threads with the work balanced by size. A bucket of α rows
    per column ends in exactly α groups, so every bucket's first group id is the number of
    groups of the buckets before it, leaf by leaf: the ids of a leaf-by-leaf, bucket-by-bucket
    run. Every leaf uses its own stretch ``a:b`` of the bucket buffer and of the bucket
    descriptors (a leaf of ``b - a`` rows has fewer than ``b - a`` buckets).
    """
    n = key.shape[0]
    group = np.full(n, -1, dtype=np.int64)
    bbuf = np.empty(rows.shape[0], dtype=np.int64)
    bdesc = np.empty((rows.shape[0] + 1, 3), dtype=np.int64)
    n_leaves = leaf_start.shape[0] - 1
    n_buckets = np.zeros(n_leaves, dtype=np.int64)
    items, bin_start = balanced_bins(np.diff(leaf_start).astype(np.float64), n_threads)
    for w in prange(n_threads):
        for q in range(bin_start[w], bin_start[w + 1]):
            lf = items[q]
            a = leaf_start[lf]
            b = leaf_start[lf + 1]
            # value blocks of this leaf
            nv = 0
            for t in range(a, b):
                if t == a or s[rows[t]] != s[rows[t - 1]]:
                    nv += 1
            vstart = np.empty(nv, dtype=np.int64)
            vcount = np.zeros(nv, dtype=np.int64)
            v = -1
            for t in range(a, b):
                if t == a or s[rows[t]] != s[rows[t - 1]]:
                    v += 1
                    vstart[v] = t - a
                vcount[v] += 1
            boff, nb = _assign_one(rows[a:b], vstart, vcount, l, bbuf[a:b], 0, bdesc[a:b + 1], 0)
            n_buckets[lf] = nb if boff >= 0 else -1
    total_buckets = 0
    for lf in range(n_leaves):
        if n_buckets[lf] < 0:
            return group, -1
        total_buckets += n_buckets[lf]
    # every bucket: its leaf's start, its descriptor row, its first group id, its cost
    where = np.empty(total_buckets, dtype=np.int64)
    first = np.empty(total_buckets, dtype=np.int64)
    cost = np.empty(total_buckets, dtype=np.float64)
    q = 0
    g = 0
    for lf in range(n_leaves):
        a = leaf_start[lf]
        for bi in range(n_buckets[lf]):
            where[q] = a + bi
            first[q] = g
            alpha = bdesc[a + bi, 1]
            cost[q] = alpha * bdesc[a + bi, 2] * np.log2(alpha + 1.0)
            g += alpha
            q += 1
    items, bin_start = balanced_bins(cost, n_threads)
    for w in prange(n_threads):
        for q in range(bin_start[w], bin_start[w + 1]):
            bq = items[q]
            r = where[bq]
            lf = np.searchsorted(leaf_start, r, side="right") - 1
            a = leaf_start[lf]
            _slice_bucket(bbuf[a:leaf_start[lf + 1]], bdesc[r, 0], bdesc[r, 1], bdesc[r, 2], X, W, M, key, group, first[bq])
    return group, g


@njit
def rows_by_label(label, n_labels):
    """A stable counting sort: the rows in order of ``label`` (input order within a label) and
    the start of every label's stretch (``n_labels + 1`` offsets)."""
    start = np.zeros(n_labels + 1, dtype=np.int64)
    for r in range(label.shape[0]):
        start[label[r] + 1] += 1
    for b in range(n_labels):
        start[b + 1] += start[b]
    fill = start[:-1].copy()
    order = np.empty(label.shape[0], dtype=np.int64)
    for r in range(label.shape[0]):
        b = label[r]
        order[fill[b]] = r
        fill[b] += 1
    return order, start


@njit
def group_boxes(X, group, n_groups):
    """Per-group minimum and maximum rank of every QI (the MBR)."""
    n, d = X.shape
    lo = np.full((n_groups, d), np.iinfo(np.int32).max, dtype=np.int32)
    hi = np.full((n_groups, d), -1, dtype=np.int32)
    for r in range(n):
        g = group[r]
        for j in range(d):
            x = X[r, j]
            if x < lo[g, j]:
                lo[g, j] = x
            if x > hi[g, j]:
                hi[g, j] = x
    return lo, hi




@njit
def strict_mondrian_kernel(X, W, M, s, n_values, k, rules):
    """A strict Mondrian (LeFevre et al., ICDE 2006) in the precise form ktype fixes for the
    baselines of Xiao, Tao & Koudas (who give no details), with the accept test "both halves
    have at least k rows and pass the model's rule" (``rules``: a pack of
    :mod:`ktype.algorithms._rules`, e.g. frequency ℓ-diversity ``max count · num ≤ size · den``).

    Dimensions are tried by decreasing normalized width ``M[j]·(W[j,max] − W[j,min])`` (ties
    by index); on dimension j the lower median ``med`` of the node's values splits it into
    ``L = {x ≤ med}`` and ``R = {x > med}``; the first dimension whose halves pass splits,
    recursively; a node where no dimension works is a leaf. Returns a leaf id per row and the
    leaf count. An empty pack drops the diversity test (Mask's QI-only k-anonymous partition,
    k = ℓ); ``k = 1`` with the ℓ-diversity rule is the ℓ-diverse Mondrian, whose accept test reads the
    halves' sensitive values: what makes it *not* transparent (docs/design/transparency.md R1).
    """
    n, d = X.shape
    idx = np.arange(n)
    group = np.full(n, -1, dtype=np.int64)
    stack_a = np.empty(n + 2, dtype=np.int64)
    stack_b = np.empty(n + 2, dtype=np.int64)
    stack_a[0] = 0
    stack_b[0] = n
    top = 1
    g = 0
    width = np.empty(d, dtype=W.dtype)
    tot = np.zeros(n_values, dtype=np.int64)
    cl = np.zeros(n_values, dtype=np.int64)
    cr = np.zeros(n_values, dtype=np.int64)
    check = rules[0].shape[0] > 0
    while top > 0:
        top -= 1
        a = stack_a[top]
        b = stack_b[top]
        m = b - a
        for j in range(d):
            mn = X[idx[a], j]
            mx = mn
            for t in range(a, b):
                x = X[idx[t], j]
                if x < mn:
                    mn = x
                if x > mx:
                    mx = x
            width[j] = M[j] * (W[j, mx] - W[j, mn])
        dims = np.arange(d)
        for x in range(1, d):
            y = dims[x]
            z = x - 1
            while z >= 0 and width[dims[z]] < width[y]:
                dims[z + 1] = dims[z]
                z -= 1
            dims[z + 1] = y
        for t in range(a, b):
            tot[s[idx[t]]] += 1
        split = False
        for q in range(d):
            j = dims[q]
            vals = np.empty(m, dtype=np.int64)
            for t in range(m):
                vals[t] = X[idx[a + t], j]
            vals.sort()
            med = vals[(m - 1) // 2]
            nl = 0
            for t in range(a, b):
                r = idx[t]
                if X[r, j] <= med:
                    nl += 1
                    cl[s[r]] += 1
            ok = nl >= k and m - nl >= k
            if ok and check:
                for v in range(n_values):
                    cr[v] = tot[v] - cl[v]
                ok = all_ok(rules, cl, nl) and all_ok(rules, cr, m - nl)
            for t in range(a, b):
                cl[s[idx[t]]] = 0
            if ok:
                left = np.empty(nl, dtype=np.int64)
                right = np.empty(m - nl, dtype=np.int64)
                p1 = 0
                p2 = 0
                for t in range(a, b):
                    r = idx[t]
                    if X[r, j] <= med:
                        left[p1] = r
                        p1 += 1
                    else:
                        right[p2] = r
                        p2 += 1
                for t in range(nl):
                    idx[a + t] = left[t]
                for t in range(m - nl):
                    idx[a + nl + t] = right[t]
                stack_a[top] = a
                stack_b[top] = a + nl
                top += 1
                stack_a[top] = a + nl
                stack_b[top] = b
                top += 1
                split = True
                break
        for t in range(a, b):
            tot[s[idx[t]]] = 0
        if not split:
            for t in range(a, b):
                group[idx[t]] = g
            g += 1
    return group, g
