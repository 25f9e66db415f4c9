"""Mondrian for k-anonymity alone, in numpy: the same partitions as the compiled core, no compilation.

The compiled core (:mod:`ktype.algorithms.mondrian`) costs several seconds of numba
compilation on the first run of a fresh install; on a small table that is far more than the
partitioning itself. This module partitions level by level with whole-array numpy
operations over all the parts of a depth (``reduceat`` ranges, sorts by ``(part, value)``,
``bincount`` over ``(part, child)`` pairs): no Python loop over rows or parts, only over
depths, attempts (at most ``r`` per depth) and attributes. It handles k-anonymity alone
(the only condition is the part size), strict and relaxed; ℓ-diversity and t-closeness
conditions run in the compiled core. The rules are the compiled core's, step for step (see
``mondrian.py``): widest normalized span first, ties by column order; ordered attributes at
the median (strict: the median or the value below it, the more balanced allowed cut;
relaxed: exactly half, ties at the median by canonical rank); hierarchies into the children
of the lowest common ancestor, else two contiguous runs of children at the median.
``test_mondrian_parallel.py`` checks that both give the same release.

It is a cold-start *backend* of Mondrian's one rule, not a second rule: a change of the rule is
made here and in ``mondrian.py`` together (docs/design/rules.md, "Mondrian"). It is kept because
it was measured to pay: Adult at k = 10 takes 0.3 s here against 37 s for the compiled core's
first run with an empty numba cache, and 0.7 s for a warm compiled run
(benchmarks/results/mondrian_backends.md).
"""

from __future__ import annotations

import numpy as np

from ..data.dataset import Dataset

__all__ = ["partition_numpy"]


def _lca(h, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Lowest common ancestor node of the leaf ranks ``lo..hi`` (per element)."""
    cand = h.arrays().anc[lo]  # ancestors of the leaf lo, deepest first, padded with the root
    first = np.argmax(h.node_hi[cand] >= hi[:, None], axis=1)
    return cand[np.arange(len(lo)), first].astype(np.int64)


def _children(h) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Children of every node sorted by their first leaf: ``(child, ptr, key)`` where the
    children of node ``v`` are ``child[ptr[v]:ptr[v + 1]]`` and ``key = parent * size + hi``
    increases along ``child`` (for the row -> child lookup by ``searchsorted``)."""
    ha = h.arrays()
    kids, ptr = ha.child, ha.child_ptr
    key = ha.node_parent[kids].astype(np.int64) * h.size + ha.node_hi[kids]
    return kids, ptr, key


def _excl(sizes: np.ndarray) -> np.ndarray:
    """Exclusive prefix sums (starts of consecutive runs of the given sizes)."""
    out = np.zeros(len(sizes), dtype=np.int64)
    np.cumsum(sizes[:-1], out=out[1:])
    return out


def _kth_per_run(values: np.ndarray, run: np.ndarray, n_runs: int, kth: np.ndarray) -> np.ndarray:
    """Per run ``g`` (rows with ``run == g``), the ``kth[g]``-th smallest value (0-based)."""
    order = np.lexsort((values, run))
    counts = np.bincount(run, minlength=n_runs)
    return values[order][_excl(counts) + kth]


def partition_numpy(dataset: Dataset, k: int, strict: bool, canon: np.ndarray) -> tuple[np.ndarray, ...]:
    """Mondrian partitions for ``KAnonymity(k)``: ``(rows, start, box_lo, box_hi)`` as the
    compiled core returns them (input rows in final position order, each published part's
    first position and its box)."""
    X = np.asarray(dataset.X, dtype=np.int64)
    n, r = X.shape
    hs = dataset.hierarchies
    denom = np.array([max(h.size - 1, 1) for h in hs], dtype=np.float64)
    kids = {d: _children(h) for d, h in enumerate(hs) if h.is_tree}
    perm = np.arange(n, dtype=np.int64)  # input row at each position
    seg_a = np.zeros(1, dtype=np.int64)
    seg_n = np.full(1, n, dtype=np.int64)
    out_start, out_lo, out_hi = [], [], []
    while len(seg_a):
        m = len(seg_a)
        pos = np.repeat(seg_a - _excl(seg_n), seg_n) + np.arange(int(seg_n.sum()))
        rows = perm[pos]
        XA = X[rows]
        seg = np.repeat(np.arange(m), seg_n)
        offs = _excl(seg_n)
        mn = np.minimum.reduceat(XA, offs, axis=0)
        mx = np.maximum.reduceat(XA, offs, axis=0)
        width = np.empty((m, r), dtype=np.float64)
        for d, h in enumerate(hs):
            if h.is_tree:
                node = _lca(h, mn[:, d], mx[:, d])
                width[:, d] = (h.node_hi[node] - h.node_lo[node]) / denom[d]
            else:
                width[:, d] = (mx[:, d] - mn[:, d]) / denom[d]
        order = np.argsort(-width, axis=1, kind="stable")
        undecided = seg_n >= 2 * k
        nparts = np.zeros(m, dtype=np.int64)
        child = np.zeros(len(rows), dtype=np.int64)  # child id of each active row
        for oi in range(r):
            d_t = order[:, oi]
            undecided &= width[np.arange(m), d_t] > 0.0
            for d in range(r):
                S = np.flatnonzero(undecided & (d_t == d))
                if len(S) == 0:
                    continue
                ok, cnt, ch = _split(hs[d], kids.get(d), XA[:, d], seg, offs, seg_n, mn[:, d], mx[:, d], S, k, strict,
                                     canon, rows)
                hit = S[ok]
                nparts[hit] = cnt[ok]
                sel = np.isin(seg, hit)
                child[sel] = ch[sel]
                undecided[hit] = False
        # publish the parts that are not split
        fin = nparts == 0
        if fin.any():
            box_lo = mn[fin].copy()
            box_hi = mx[fin].copy()
            for d, h in enumerate(hs):
                if h.is_tree:
                    node = _lca(h, box_lo[:, d], box_hi[:, d])
                    box_lo[:, d] = h.node_lo[node]
                    box_hi[:, d] = h.node_hi[node]
            out_start.append(seg_a[fin])
            out_lo.append(box_lo)
            out_hi.append(box_hi)
        # split parts: rows ordered by child, stable (earlier position first)
        spl = nparts > 0
        if not spl.any():
            break
        srow = spl[seg]
        new = np.lexsort((child[srow], seg[srow]))
        perm[pos[srow]] = rows[srow][new]
        ns = np.flatnonzero(spl)
        pbase = _excl(nparts[ns])  # first child slot of each split part
        rank = np.cumsum(spl) - 1  # index of a split part in ns
        cid = pbase[rank[seg[srow]]] + child[srow]  # child slot of each row of a split part
        csize = np.bincount(cid, minlength=int(nparts[ns].sum()))
        before = np.concatenate([[0], np.cumsum(csize)])
        seg_a = np.repeat(seg_a[ns], nparts[ns]) + before[:-1] - np.repeat(before[pbase], nparts[ns])
        seg_n = csize
    start = np.concatenate(out_start) if out_start else np.zeros(0, dtype=np.int64)
    box_lo = np.concatenate(out_lo).astype(np.int32) if out_lo else np.zeros((0, r), dtype=np.int32)
    box_hi = np.concatenate(out_hi).astype(np.int32) if out_hi else np.zeros((0, r), dtype=np.int32)
    return perm, start, box_lo, box_hi


def _split(h, kids, v_all, seg, offs, seg_n, mn_d, mx_d, S, k, strict, canon, rows):  # noqa: PLR0913, PLR0915
    """Try to split the parts ``S`` on one attribute (values ``v_all`` of the active rows).

    Returns ``(ok, nparts, child)``: per part of ``S`` whether the split is allowed and into
    how many children, and per active row its child id (meaningful for rows of parts of ``S``).
    """
    m = len(seg_n)
    inS = np.zeros(m, dtype=bool)
    inS[S] = True
    where = np.full(m, -1, dtype=np.int64)
    where[S] = np.arange(len(S))
    rmask = inS[seg]
    v = v_all[rmask]
    g = where[seg[rmask]]  # index into S of each row
    size = seg_n[S]
    child = np.zeros(len(v_all), dtype=np.int64)
    ok = np.zeros(len(S), dtype=bool)
    nparts = np.zeros(len(S), dtype=np.int64)
    if h.is_tree:
        kid, ptr, key = kids
        node = _lca(h, mn_d[S], mx_d[S])
        c0 = ptr[node]
        nch = ptr[node + 1] - c0
        multi = nch >= 2
        if not multi.any():
            return ok, nparts, child
        # the child of the LCA that holds each row's value
        ci = np.searchsorted(key, node[g] * h.size + v) - c0[g]
        nch_m = np.where(multi, nch, 0)
        pbase = _excl(nch_m)
        pair = pbase[g] + ci
        rm = multi[g]
        csize = np.bincount(pair[rm], minlength=int(nch_m.sum()))
        pg = np.repeat(np.arange(len(S)), nch_m)  # part of each (part, child) pair
        nonempty = csize > 0
        small = np.bincount(pg, weights=(nonempty & (csize < k)), minlength=len(S)) > 0
        nd = np.bincount(pg, weights=nonempty, minlength=len(S)).astype(np.int64)
        mw = multi & ~small & (nd >= 2)
        dense = np.cumsum(nonempty) - 1 - np.repeat(_excl(nd), nch_m)  # dense child id per pair
        rows_mw = mw[g]
        ch = np.zeros(len(v), dtype=np.int64)
        ch[rows_mw] = dense[pair[rows_mw]]
        ok |= mw
        nparts[mw] = nd[mw]
        # else two contiguous runs of children, cut at the most balanced allowed boundary
        bin_ = multi & ~mw
        if bin_.any():
            before = np.concatenate([[0], np.cumsum(csize)])
            cum = before[1:] - np.repeat(before[pbase], nch_m)  # rows in children 0..c of the part
            cidx = np.arange(len(csize)) - np.repeat(pbase, nch_m)
            sz = size[pg]
            valid = (cidx < nch[pg] - 1) & (cum >= k) & (sz - cum >= k) & bin_[pg]
            gap = np.abs(2 * cum - sz)
            big = np.iinfo(np.int64).max
            keyv = np.where(valid, gap * (len(csize) + 1) + cidx, big)
            best = np.full(len(S), big, dtype=np.int64)
            np.minimum.at(best, pg, keyv)
            has = best < big
            best_c = np.where(has, best % (len(csize) + 1), 0)
            cut = np.where(has, h.node_hi[kid[np.minimum(c0 + best_c, len(kid) - 1)]], 0)
            sel = bin_ & has
            rows_b = sel[g]
            ch[rows_b] = (v[rows_b] > cut[g[rows_b]]).astype(np.int64)
            ok |= sel
            nparts[sel] = 2
        child[rmask] = ch
        return ok, nparts, child
    half = size // 2
    med = _kth_per_run(v, g, len(S), half - 1)
    below = np.bincount(g, weights=v < med[g], minlength=len(S)).astype(np.int64)
    if strict:
        upto = np.bincount(g, weights=v <= med[g], minlength=len(S)).astype(np.int64)
        swap = np.abs(2 * below - size) < np.abs(2 * upto - size)
        cut1 = np.where(swap, med - 1, med)
        nl1 = np.where(swap, below, upto)
        cut2 = np.where(swap, med, med - 1)
        nl2 = np.where(swap, upto, below)
        ok1 = (nl1 >= k) & (size - nl1 >= k)
        ok2 = (nl2 >= k) & (size - nl2 >= k)
        ok = ok1 | ok2
        cut = np.where(ok1, cut1, cut2)
        child[rmask] = (v > cut[g]).astype(np.int64)
    else:
        need = half - below
        tie = v == med[g]
        cv = canon[rows[rmask]]
        thresh = np.full(len(S), -1, dtype=np.int64)
        want = need > 0
        if want.any():
            tg = g[tie]
            kth = np.where(want, need - 1, 0)
            ntie = np.bincount(tg, minlength=len(S))
            kth = np.minimum(kth, np.maximum(ntie - 1, 0))
            th = _kth_per_run(cv[tie], tg, len(S), kth)
            thresh = np.where(want, th, -1)
        left = (v < med[g]) | (tie & (cv <= thresh[g]))
        child[rmask] = (~left).astype(np.int64)
        ok = (half >= k) & (size - half >= k)
    nparts[ok] = 2
    return ok, nparts, child

