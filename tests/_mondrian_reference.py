"""A frozen copy of the sequential Mondrian implementation (ktype before #13 item 5), kept as the
reference the parallel implementation in ``ktype.algorithms.mondrian`` must reproduce release for
release (``test_mondrian_parallel.py``). Not registered; do not change its behaviour. The
helpers the rewrite left unchanged (split conditions, LCA, hierarchy tables, canonical
ranks) are imported from ``ktype.algorithms.mondrian``; the partitioning itself is copied.
"""

from __future__ import annotations

import numpy as np

from ktype._jit import njit
from ktype.algorithms.mondrian import (
    _allowed,
    _canonical_rank,
    _conditions,
    _hierarchy_tables,
    _kth_smallest,
    _lca,
    _order_desc,
)
from ktype.data.dataset import Dataset
from ktype.exceptions import InfeasibleError
from ktype.models._base import PrivacyModel
from ktype.release import Release

__all__ = ["reference_mondrian"]



def reference_mondrian(dataset: Dataset, models: tuple[PrivacyModel, ...], *, mode: str = "strict") -> Release:
    """The sequential Mondrian of ktype before the parallel rewrite (see the module docstring)."""
    k, sens, s, n_s, cond = _conditions(dataset, models)
    n = dataset.n
    tables = _hierarchy_tables(dataset)
    X = np.ascontiguousarray(dataset.X, dtype=np.int64)
    needs_canon = mode == "relaxed" and not all(h.is_tree for h in dataset.hierarchies)
    canon = _canonical_rank(X, s) if needs_canon else np.zeros(1, dtype=np.int64)
    whole = np.bincount(s, minlength=n_s).astype(np.int64)
    if not _allowed.py_func(whole, n, k, cond):  # once, in Python: no separate compile
        raise InfeasibleError(
            f"The whole table ({n} rows) does not satisfy {[str(m) for m in models]}; no partition can. "
            "Lower l (or p), or check the sensitive column's distribution."
        )
    idx, starts = _mondrian_core(X, s, n_s, canon, k, mode == "strict", cond, *tables)
    starts = np.sort(starts)
    # per partition: tight ranks, then the allowed closure (LCA for hierarchies)
    lo, hi = _partition_boxes(X, idx, starts, *tables)
    part = np.empty(n, dtype=np.int64)
    part[idx] = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, n)))
    return Release.build(
        dataset,
        lo,
        hi,
        recoding="multidimensional",
        provenance={"partitions": int(len(starts)), "mode": mode},
        classes=part,
    )


@njit
def _mondrian_core(X, s, n_s, canon, k, strict, cond,
                   is_tree, sizes, anc_flat, anc_off, anc_w, nlo_flat, nhi_flat, node_off,
                   cptr_flat, cptr_off, ch_flat, ch_off):
    n, r = X.shape
    idx = np.arange(n)
    buf = np.empty(n, dtype=np.int64)
    part = np.empty(n, dtype=np.int64)
    # pending parts and finished part starts: disjoint non-empty row ranges, at most n of each
    # (arrays, not lists of tuples: far less numba compile time on a cold start)
    starts = np.empty(n + 1, dtype=np.int64)
    n_starts = 0
    stack = np.empty((n + 1, 2), dtype=np.int64)
    stack[0, 0] = 0
    stack[0, 1] = n
    n_stack = 1
    mn = np.empty(r, dtype=np.int64)
    mx = np.empty(r, dtype=np.int64)
    width = np.empty(r, dtype=np.float64)
    while n_stack > 0:
        n_stack -= 1
        a = stack[n_stack, 0]
        b = stack[n_stack, 1]
        size = b - a
        if size < 2 * k:
            starts[n_starts] = a
            n_starts += 1
            continue
        # tight ranges
        for d in range(r):
            mn[d] = X[idx[a], d]
            mx[d] = mn[d]
        for p in range(a, b):
            i = idx[p]
            for d in range(r):
                v = X[i, d]
                if v < mn[d]:
                    mn[d] = v
                elif v > mx[d]:
                    mx[d] = v
        for d in range(r):
            if is_tree[d]:
                node = _lca(mn[d], mx[d], d, anc_flat, anc_off, anc_w, nhi_flat, node_off)
                span = nhi_flat[node_off[d] + node] - nlo_flat[node_off[d] + node]
            else:
                span = mx[d] - mn[d]
            width[d] = span / max(sizes[d] - 1, 1)
        order = _order_desc(width)
        done = False
        for oi in range(r):
            d = order[oi]
            if width[d] <= 0.0:
                break
            nparts = _choose_split(X, s, n_s, canon, idx, a, b, d, k, strict, cond,
                                   is_tree[d], mn[d], mx[d], anc_flat, anc_off, anc_w, nlo_flat, nhi_flat,
                                   node_off, cptr_flat, cptr_off, ch_flat, ch_off, part)
            if nparts >= 2:
                # stable counting sort of idx[a:b] by part id
                cnt = np.zeros(nparts + 1, dtype=np.int64)
                for p in range(a, b):
                    cnt[part[p] + 1] += 1
                for q in range(nparts):
                    cnt[q + 1] += cnt[q]
                pos = cnt.copy()
                for p in range(a, b):
                    q = part[p]
                    buf[a + pos[q]] = idx[p]
                    pos[q] += 1
                for p in range(a, b):
                    idx[p] = buf[p]
                for q in range(nparts):
                    if cnt[q + 1] > cnt[q]:
                        stack[n_stack, 0] = a + cnt[q]
                        stack[n_stack, 1] = a + cnt[q + 1]
                        n_stack += 1
                done = True
                break
        if not done:
            starts[n_starts] = a
            n_starts += 1
    return idx, starts[:n_starts]  # sorted by the caller (numpy, no compile)


@njit
def _choose_split(X, s, n_s, canon, idx, a, b, d, k, strict, cond, tree, lo, hi,
                  anc_flat, anc_off, anc_w, nlo_flat, nhi_flat, node_off, cptr_flat, cptr_off, ch_flat, ch_off,
                  part):
    """Assign part ids in ``part[a:b]``; return the number of parts (0 = not allowed)."""
    size = b - a
    span = hi - lo + 1
    # histogram of values on dimension d
    cnt = np.zeros(span, dtype=np.int64)
    for p in range(a, b):
        cnt[X[idx[p], d] - lo] += 1
    if tree:
        node = _lca(lo, hi, d, anc_flat, anc_off, anc_w, nhi_flat, node_off)
        base = cptr_off[d]
        c0 = cptr_flat[base + node]
        c1 = cptr_flat[base + node + 1]
        nch = c1 - c0
        if nch >= 2:
            # multi-way split into the children of the LCA
            bounds = np.empty(nch, dtype=np.int64)  # hi rank of each child
            for c in range(nch):
                child = ch_flat[ch_off[d] + c0 + c]
                bounds[c] = nhi_flat[node_off[d] + child]
            child_of = np.empty(span, dtype=np.int64)
            c = 0
            for v in range(span):
                while bounds[c] < v + lo:
                    c += 1
                child_of[v] = c
            ok = True
            hist = np.zeros((nch, n_s), dtype=np.int64)
            csize = np.zeros(nch, dtype=np.int64)
            for p in range(a, b):
                i = idx[p]
                c = child_of[X[i, d] - lo]
                csize[c] += 1
                hist[c, s[i]] += 1
            # relabel non-empty children densely
            dense = np.full(nch, -1, dtype=np.int64)
            nd = 0
            for c in range(nch):
                if csize[c] > 0:
                    if not _allowed(hist[c], csize[c], k, cond):
                        ok = False
                    dense[c] = nd
                    nd += 1
            if ok and nd >= 2:
                for p in range(a, b):
                    part[p] = dense[child_of[X[idx[p], d] - lo]]
                return nd
            # binary grouping of children at the median (contiguous runs)
            cum = 0
            best_c = -1
            best_gap = size + 1
            for c in range(nch - 1):
                cum += csize[c]
                if cum >= k and size - cum >= k:
                    gap = abs(2 * cum - size)
                    if gap < best_gap:
                        best_gap = gap
                        best_c = c
            if best_c < 0:
                return 0
            cut = bounds[best_c]
            return _binary_by_value(X, s, n_s, idx, a, b, d, cut, k, cond, part)
        return 0
    # ordered attribute: median split
    half = size // 2
    cum = 0
    med = 0
    for v in range(span):
        cum += cnt[v]
        if cum >= half:
            med = v
            break
    if strict:
        # candidate cuts (left = values <= cut): the median, or just below it (ties go right);
        # the more balanced allowed one wins
        left_med = cum
        left_prev = left_med - cnt[med]
        first = med
        second = med - 1
        if abs(2 * left_prev - size) < abs(2 * left_med - size):
            first = med - 1
            second = med
        for cand in (first, second):
            nl = left_med if cand == med else left_prev
            if nl >= k and size - nl >= k:
                nparts = _binary_by_value(X, s, n_s, idx, a, b, d, cand + lo, k, cond, part)
                if nparts == 2:
                    return 2
        return 0
    # relaxed: exactly half the records go left; ties at the median by canonical order
    below = 0
    for v in range(med):
        below += cnt[v]
    need = half - below  # records with value med that go left
    medval = med + lo
    ties = np.empty(cnt[med], dtype=np.int64)
    t = 0
    for p in range(a, b):
        i = idx[p]
        if X[i, d] == medval:
            ties[t] = canon[i]
            t += 1
    thresh = _kth_smallest(ties, need - 1) if need > 0 else -1
    hl = np.zeros(n_s, dtype=np.int64)
    hr = np.zeros(n_s, dtype=np.int64)
    for p in range(a, b):
        i = idx[p]
        v = X[i, d]
        left = v < medval or (v == medval and canon[i] <= thresh)
        part[p] = 0 if left else 1
        if left:
            hl[s[i]] += 1
        else:
            hr[s[i]] += 1
    if _allowed(hl, half, k, cond) and _allowed(hr, size - half, k, cond):
        return 2
    return 0


@njit
def _binary_by_value(X, s, n_s, idx, a, b, d, cut, k, cond, part):
    hl = np.zeros(n_s, dtype=np.int64)
    hr = np.zeros(n_s, dtype=np.int64)
    nl = 0
    for p in range(a, b):
        i = idx[p]
        if X[i, d] <= cut:
            part[p] = 0
            hl[s[i]] += 1
            nl += 1
        else:
            part[p] = 1
            hr[s[i]] += 1
    if _allowed(hl, nl, k, cond) and _allowed(hr, b - a - nl, k, cond):
        return 2
    return 0


@njit
def _partition_boxes(X, idx, starts, is_tree, sizes, anc_flat, anc_off, anc_w, nlo_flat, nhi_flat, node_off,
                     cptr_flat, cptr_off, ch_flat, ch_off):
    """Publish, for every row, its partition's tightest allowed box."""
    n, r = X.shape
    lo = np.empty((n, r), dtype=np.int32)
    hi = np.empty((n, r), dtype=np.int32)
    mn = np.empty(r, dtype=np.int64)
    mx = np.empty(r, dtype=np.int64)
    np_ = len(starts)
    for q in range(np_):
        a = starts[q]
        b = starts[q + 1] if q + 1 < np_ else n
        for d in range(r):
            mn[d] = X[idx[a], d]
            mx[d] = mn[d]
        for p in range(a + 1, b):
            i = idx[p]
            for d in range(r):
                v = X[i, d]
                if v < mn[d]:
                    mn[d] = v
                elif v > mx[d]:
                    mx[d] = v
        for d in range(r):
            if is_tree[d]:
                node = _lca(mn[d], mx[d], d, anc_flat, anc_off, anc_w, nhi_flat, node_off)
                mn[d] = nlo_flat[node_off[d] + node]
                mx[d] = nhi_flat[node_off[d] + node]
        for p in range(a, b):
            i = idx[p]
            for d in range(r):
                lo[i, d] = mn[d]
                hi[i, d] = mx[d]
    return lo, hi
