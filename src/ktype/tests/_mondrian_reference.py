"""A frozen copy of the sequential Mondrian implementation (ktype before #13 item 5), kept as the
reference the parallel implementation in ``ktype.algorithms.mondrian`` must reproduce release for
release (``test_mondrian_parallel.py``). Not registered; do not change its behaviour.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ktype._grouping import lexsort_rows
from ktype.data.dataset import Dataset
from ktype.exceptions import InfeasibleError, UnsupportedModelError
from ktype.models._base import PrivacyModel
from ktype.models.kanonymity import KAnonymity
from ktype.release import Release

__all__ = ["reference_mondrian"]

# diversity predicate codes used inside the compiled core
_DIV_NONE, _DIV_DISTINCT, _DIV_ENTROPY, _DIV_RECURSIVE, _DIV_FREQUENCY = 0, 1, 2, 3, 4
_T_NONE, _T_EQUAL, _T_ORDERED = 0, 1, 2


def reference_mondrian(dataset: Dataset, models: tuple[PrivacyModel, ...], *, mode: str = "strict") -> Release:
    """The sequential Mondrian of ktype before the parallel rewrite (see the module docstring)."""
    k = 1
    div_kind, div_l, div_c = _DIV_NONE, 0.0, 0.0
    t_kind, t_val = _T_NONE, 0.0
    sens = None
    for m in models:
        if isinstance(m, KAnonymity):
            k = max(k, m.k)
            continue
        col = dataset.sensitive_column(getattr(m, "sensitive", None))
        if sens is not None and col != sens:
            raise UnsupportedModelError("mondrian's extra conditions must all concern the same sensitive attribute.")
        sens = col
        if type(m).__name__ == "TCloseness":
            if t_kind != _T_NONE:
                raise UnsupportedModelError("mondrian takes at most one TCloseness model.")
            dist = m.distance  # type: ignore[attr-defined]
            if dist not in ("equal", "ordered"):
                raise UnsupportedModelError(
                    f"mondrian supports t-closeness with the 'equal' or 'ordered' distance, not {dist!r}."
                )
            t_kind, t_val = (_T_EQUAL if dist == "equal" else _T_ORDERED), float(m.t)  # type: ignore[attr-defined]
        else:
            if div_kind != _DIV_NONE:
                raise UnsupportedModelError("mondrian takes at most one ℓ-diversity / p-sensitivity model.")
            div_kind, div_l, div_c = _diversity_code(m)
    n = dataset.n
    if sens is not None:
        s = np.ascontiguousarray(dataset.sensitive_codes[sens], dtype=np.int64)
        n_s = len(dataset.sensitive_values[sens])
    else:
        s = np.zeros(n, dtype=np.int64)
        n_s = 1
    q = np.bincount(s, minlength=n_s) / n
    cond = (div_kind, div_l, div_c, t_kind, t_val, q)
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


def _diversity_code(m: PrivacyModel) -> tuple[int, float, float]:
    name = type(m).__name__
    if name == "DistinctLDiversity":
        return _DIV_DISTINCT, float(m.l), 0.0  # type: ignore[attr-defined]
    if name == "PSensitivity":
        return _DIV_DISTINCT, float(m.p), 0.0  # type: ignore[attr-defined]
    if name == "EntropyLDiversity":
        return _DIV_ENTROPY, float(m.l), 0.0  # type: ignore[attr-defined]
    if name == "RecursiveCLDiversity":
        return _DIV_RECURSIVE, float(m.l), float(m.c)  # type: ignore[attr-defined]
    if name == "FrequencyLDiversity":
        return _DIV_FREQUENCY, float(m.l), 0.0  # type: ignore[attr-defined]
    raise UnsupportedModelError(f"mondrian does not support {name}.")


def _canonical_rank(X: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Rank of each row in content order (identical rows are interchangeable)."""
    order = lexsort_rows([X[:, j] for j in range(X.shape[1])] + [s])
    canon = np.empty(len(order), dtype=np.int64)
    canon[order] = np.arange(len(order))
    return canon


def _hierarchy_tables(dataset: Dataset) -> tuple[np.ndarray, ...]:
    """Flatten all hierarchies into arrays the compiled core can read."""
    is_tree = np.array([h.is_tree for h in dataset.hierarchies], dtype=np.bool_)
    sizes = np.array([h.size for h in dataset.hierarchies], dtype=np.int64)
    anc_parts, anc_off, anc_w = [], [0], []
    nlo_parts, nhi_parts, node_off = [], [], [0]
    cptr_parts, cptr_off, ch_parts, ch_off = [], [0], [], [0]
    for h in dataset.hierarchies:
        if h.is_tree:
            anc = h._anc.astype(np.int64)
            nodes_lo = h.node_lo.astype(np.int64)
            nodes_hi = h.node_hi.astype(np.int64)
            nn = len(nodes_lo)
            par = h.node_parent.astype(np.int64)
            child_nodes = np.arange(1, nn)
            order = np.lexsort((nodes_lo[child_nodes], par[child_nodes]))
            ch = child_nodes[order]
            counts = np.bincount(par[ch], minlength=nn)
            ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        else:
            anc = np.zeros((1, 1), dtype=np.int64)
            nodes_lo = nodes_hi = np.zeros(1, dtype=np.int64)
            ptr = np.zeros(2, dtype=np.int64)
            ch = np.zeros(0, dtype=np.int64)
        anc_parts.append(anc.ravel())
        anc_off.append(anc_off[-1] + anc.size)
        anc_w.append(anc.shape[1])
        nlo_parts.append(nodes_lo)
        nhi_parts.append(nodes_hi)
        node_off.append(node_off[-1] + len(nodes_lo))
        cptr_parts.append(ptr)
        cptr_off.append(cptr_off[-1] + len(ptr))
        ch_parts.append(ch)
        ch_off.append(ch_off[-1] + len(ch))
    cat = np.concatenate
    return (
        is_tree,
        sizes,
        cat(anc_parts),
        np.array(anc_off, dtype=np.int64),
        np.array(anc_w, dtype=np.int64),
        cat(nlo_parts),
        cat(nhi_parts),
        np.array(node_off, dtype=np.int64),
        cat(cptr_parts),
        np.array(cptr_off, dtype=np.int64),
        cat(ch_parts) if ch_parts else np.zeros(0, dtype=np.int64),
        np.array(ch_off, dtype=np.int64),
    )


@njit(cache=True)
def _allowed(hist: np.ndarray, size: int, k: int, cond) -> bool:
    """Whether a part with sensitive histogram ``hist`` may be published."""
    if size < k:
        return False
    div_kind, div_l, div_c, t_kind, t_val, q = cond
    if t_kind != _T_NONE:
        # EMD to the whole table's distribution q (Li, Li, Venkatasubramanian 2007)
        emd = 0.0
        if t_kind == _T_EQUAL:
            for v in range(len(hist)):
                emd += abs(hist[v] / size - q[v])
            emd *= 0.5
        else:
            cum = 0.0
            for v in range(len(hist)):
                cum += hist[v] / size - q[v]
                emd += abs(cum)
            emd /= max(len(hist) - 1, 1)
        if emd > t_val + 1e-12:
            return False
    if div_kind == _DIV_NONE:
        return True
    if div_kind == _DIV_DISTINCT:
        d = 0
        for v in hist:
            if v > 0:
                d += 1
        return d >= div_l
    if div_kind == _DIV_ENTROPY:
        e = 0.0
        for v in hist:
            if v > 0:
                p = v / size
                e -= p * np.log(p)
        return e >= np.log(div_l) - 1e-12
    if div_kind == _DIV_FREQUENCY:
        mx = 0
        for v in hist:
            if v > mx:
                mx = v
        return mx * div_l <= size * (1.0 + 1e-12)
    # recursive (c, l): r1 < c * (r_l + ... + r_m); r_l + ... + r_m = total - (l-1 largest)
    # (the largest values by repeated scans: no sort, whose numba compile costs seconds)
    li = int(div_l)
    used = np.zeros(len(hist), dtype=np.bool_)
    total = 0
    for v in hist:
        total += v
    top = 0
    r1 = 0
    for t in range(min(li - 1, len(hist))):
        best = -1
        for v in range(len(hist)):
            if not used[v] and (best < 0 or hist[v] > hist[best]):
                best = v
        used[best] = True
        top += hist[best]
        if t == 0:
            r1 = hist[best]
    if li - 1 <= 0:
        for v in hist:
            if v > r1:
                r1 = v
    return r1 < div_c * (total - top)


@njit(cache=True)
def _order_desc(w):
    """Indexes of ``w`` by decreasing value, ties by index (a stable insertion sort of the
    ``r`` attribute widths; numba's sorts cost seconds of compile time on a cold start)."""
    r = w.shape[0]
    order = np.arange(r)
    for i in range(1, r):
        cur = order[i]
        j = i - 1
        while j >= 0 and w[order[j]] < w[cur]:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = cur
    return order


@njit(cache=True)
def _kth_smallest(a, kth):
    """The ``kth`` smallest (0-based) of distinct int64 values ``a`` (in place; quickselect)."""
    lo, hi = 0, a.shape[0] - 1
    while lo < hi:
        pivot = a[(lo + hi) // 2]
        i, j = lo, hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if kth <= j:
            hi = j
        elif kth >= i:
            lo = i
        else:
            return a[kth]
    return a[kth]


@njit(cache=True)
def _lca(lo: int, hi: int, d: int, anc_flat, anc_off, anc_w, nhi_flat, node_off) -> int:
    w = anc_w[d]
    base = anc_off[d] + lo * w
    for t in range(w):
        node = anc_flat[base + t]
        if nhi_flat[node_off[d] + node] >= hi:
            return node
    return 0


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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
