"""numba kernels of the full-domain lattice algorithms (no Python loops over rows or nodes).

Frequency-set kernels (roll-up, bit packing, class statistics, suppression surcharge) used by
:mod:`._engine`, and lattice kernels (predictive tagging, roll-up source choice, bound
propagation, Flash paths) used by :mod:`._lattice`. Compiled on first call and cached on disk
(``cache=True``).

Length: the compiled kernels of the lattice engine (roll-up, hashing, counts, measures per class);
numba compiles the small helpers they share into their callers, so they live in one module.
"""

from __future__ import annotations

import numpy as np

from ..._jit import njit
from .._hashtab import EMPTY, ROW_SEED, capacity, find_or_insert, home_slot, next_slot, row_hash

__all__ = [
    "_box_ids",
    "_bottom_kernel",
    "_box_max_kernel",
    "_column_counts",
    "_class_stats",
    "_evaluate_k_kernel",
    "_floor_tag_kernel",
    "_lattice_kernel",
    "_merge_keys",
    "_next_open",
    "_pack_kernel",
    "_pair_counts",
    "_pair_small",
    "_pair_stairs",
    "_path_bounded_kernel",
    "_path_kernel",
    "_rollup_key_kernel",
    "_rollup_kernel",
    "_rollup_packed_kernel",
    "_source_kernel",
    "_spread_max_kernel",
    "_sum_rows",
    "_support_emd_kernel",
    "_surcharge_packed",
    "_surcharge_tab",
    "_tag_kernel",
    "_unpack_kernel",
    "fast_rollup",
]

@njit
def _rollup_kernel(tab, cnt, maps, offs):  # pragma: no cover - compiled
    """Map every row of ``tab`` through per-column ``maps`` and merge equal rows.

    Returns ``(out_tab, out_cnt, inv)``: distinct mapped rows in first-appearance order,
    their summed counts, and the output row of each input row.
    """
    d, r = tab.shape
    size, shift = capacity(d)
    slots = np.full(size, -1, dtype=np.int64)
    out_tab = np.empty((max(d, 1), r), dtype=tab.dtype)
    out_cnt = np.zeros(max(d, 1), dtype=np.int64)
    inv = np.empty(d, dtype=np.int64)
    buf = np.empty(r, dtype=np.int32)
    g = 0
    for i in range(d):
        h = ROW_SEED
        for j in range(r):
            v = maps[offs[j] + tab[i, j]]
            buf[j] = v
            h = row_hash(h, v)
        s = home_slot(h, shift)
        while True:
            e = slots[s]
            if e == -1:
                slots[s] = g
                for j in range(r):
                    out_tab[g, j] = buf[j]
                out_cnt[g] = cnt[i]
                inv[i] = g
                g += 1
                break
            same = True
            for j in range(r):
                if out_tab[e, j] != buf[j]:
                    same = False
                    break
            if same:
                out_cnt[e] += cnt[i]
                inv[i] = e
                break
            s = next_slot(s, size)
    return out_tab[:g], out_cnt[:g], inv


@njit
def _merge_keys(keys, cnt, want_inv):  # pragma: no cover - compiled
    """Merge equal non-negative int64 ``keys``: ``(rep, out_cnt, inv)``.

    The table of :mod:`ktype.algorithms._hashtab`; each slot holds its key and its output
    row, so a probe reads one slot. ``rep[o]`` is the first input row of output row ``o``
    (first-appearance order), ``out_cnt`` the summed counts, ``inv`` the output row of each
    input row (empty unless ``want_inv``).
    """
    d = keys.shape[0]
    size, shift = capacity(d)
    skey = np.full(size, EMPTY, dtype=np.int64)
    sgrp = np.empty(size, dtype=np.int64)
    inv = np.empty(d if want_inv else 0, dtype=np.int64)
    rep = np.empty(max(d, 1), dtype=np.int64)
    out_cnt = np.empty(max(d, 1), dtype=np.int64)
    g = 0
    for i in range(d):
        s, new = find_or_insert(skey, keys[i], shift)
        if new:
            sgrp[s] = g
            rep[g] = i
            out_cnt[g] = cnt[i]
            g += 1
        else:
            out_cnt[sgrp[s]] += cnt[i]
        if want_inv:
            inv[i] = sgrp[s]
    return rep[:g], out_cnt[:g], inv


@njit
def _column_counts(X, offs, total):  # pragma: no cover - compiled
    """Per-column value counts of ``X`` in one pass: ``out[offs[j] + v]`` = rows with ``X[:, j] == v``."""
    out = np.zeros(total, dtype=np.int64)
    d, r = X.shape
    for i in range(d):
        for j in range(r):
            out[offs[j] + X[i, j]] += 1
    return out


@njit
def _bottom_kernel(X, ident, offs, shifts):  # pragma: no cover - compiled
    """The bottom frequency set straight from the input rows when level-0 ids bit-pack: each
    row's code ``OR_j ident[offs[j] + X[i, j]] << shifts[j]``, merged by :func:`_merge_keys`.
    Returns ``(tab, codes, cnt, inv)`` with the distinct rows in first-appearance order (as
    :func:`_rollup_kernel` returns them)."""
    d, r = X.shape
    keys = np.empty(d, dtype=np.int64)
    for i in range(d):
        key = np.int64(0)
        for j in range(r):
            key |= np.int64(ident[offs[j] + X[i, j]]) << shifts[j]
        keys[i] = key
    rep, cnt, inv = _merge_keys(keys, np.ones(d, dtype=np.int64), True)
    g = rep.shape[0]
    tab = np.empty((g, r), dtype=np.int32)
    codes = np.empty(g, dtype=np.int64)
    for o in range(g):
        i = rep[o]
        codes[o] = keys[i]
        for j in range(r):
            tab[o, j] = ident[offs[j] + X[i, j]]
    return tab, codes, cnt, inv


@njit
def _rollup_key_kernel(tab, cnt, maps, offs, mult):  # pragma: no cover - compiled
    """:func:`_rollup_kernel` when the mapped rows fit a mixed-radix int64 key (faster):
    keys first, then :func:`_merge_keys`."""
    d, r = tab.shape
    keys = np.empty(d, dtype=np.int64)
    for i in range(d):
        key = np.int64(0)
        for j in range(r):
            key += np.int64(maps[offs[j] + tab[i, j]]) * mult[j]
        keys[i] = key
    rep, out_cnt, inv = _merge_keys(keys, cnt, True)
    g = rep.shape[0]
    out_tab = np.empty((g, r), dtype=tab.dtype)
    for o in range(g):
        i = rep[o]
        for j in range(r):
            out_tab[o, j] = maps[offs[j] + tab[i, j]]
    return out_tab, out_cnt, inv


@njit
def _pack_kernel(tab, shifts):  # pragma: no cover - compiled
    """Bit-pack each row of group ids: ``code = OR_j tab[i, j] << shifts[j]``."""
    d, r = tab.shape
    codes = np.empty(d, dtype=np.int64)
    for i in range(d):
        c = np.int64(0)
        for j in range(r):
            c |= np.int64(tab[i, j]) << shifts[j]
        codes[i] = c
    return codes


@njit
def _unpack_kernel(codes, shifts, masks):  # pragma: no cover - compiled
    """Inverse of :func:`_pack_kernel`: ``(g, r)`` int32 group ids."""
    d = codes.shape[0]
    r = shifts.shape[0]
    tab = np.empty((d, r), dtype=np.int32)
    for i in range(d):
        for j in range(r):
            tab[i, j] = (codes[i] >> shifts[j]) & masks[j]
    return tab


@njit
def _rollup_packed_kernel(codes, cnt, upflat, upoff, shifts, masks, src_lv, dst_lv, want_inv):  # pragma: no cover - compiled
    """Roll-up of a bit-packed frequency set ``(codes, cnt)`` of node ``src_lv`` to ``dst_lv``.

    Column ``j``'s group id sits in bits ``shifts[j] .. shifts[j] + bits(masks[j])`` of a
    row's code. Only the columns whose level changes are remapped (through
    ``upflat[upoff[j, a, b] + group]``, the level-up map of column ``j`` from ``a`` to ``b``);
    the others keep their bits, so a roll-up from a direct specialization does one lookup
    per row. Mapped codes are merged by :func:`_merge_keys`. Returns
    ``(out_codes, out_cnt, inv)`` (``inv`` empty unless ``want_inv``).
    """
    d = codes.shape[0]
    r = shifts.shape[0]
    ch = np.empty(r, dtype=np.int64)
    base = np.empty(r, dtype=np.int64)
    nch = 0
    keep = np.int64(-1)
    for j in range(r):
        if src_lv[j] != dst_lv[j]:
            ch[nch] = j
            base[nch] = upoff[j, src_lv[j], dst_lv[j]]
            nch += 1
            keep &= ~(masks[j] << shifts[j])
    keys = np.empty(d, dtype=np.int64)
    for i in range(d):
        c = codes[i]
        key = c & keep
        for t in range(nch):
            j = ch[t]
            key |= np.int64(upflat[base[t] + ((c >> shifts[j]) & masks[j])]) << shifts[j]
        keys[i] = key
    rep, out_cnt, inv = _merge_keys(keys, cnt, want_inv)
    return keys[rep], out_cnt, inv


@njit
def _class_stats(cnt, ok, k):  # pragma: no cover - compiled
    """One pass over a node's classes: ``(n_ok, suppressed, Σ_ok |E|², Σ_E |E|·max(|E|, k))``."""
    n_ok = 0
    sup = 0
    sq = 0.0
    dm = 0.0
    for i in range(cnt.shape[0]):
        c = cnt[i]
        fc = float(c)
        dm += fc * (fc if c > k else float(k))
        if ok[i]:
            n_ok += 1
            sq += fc * fc
        else:
            sup += c
    return n_ok, sup, sq, dm


@njit
def _surcharge_packed(codes, cnt, ok, costs, coff, lv, shifts, masks):  # pragma: no cover - compiled
    """Σ over failing classes of ``|E| · Σ_j costs[coff[j, lv[j]] + group_j]`` (packed rows):
    the extra cost of publishing their cells as the root (see :meth:`Encoded._value`)."""
    r = shifts.shape[0]
    base = np.empty(r, dtype=np.int64)
    for j in range(r):
        base[j] = coff[j, lv[j]]
    tot = 0.0
    for i in range(codes.shape[0]):
        if ok[i]:
            continue
        c = codes[i]
        s = 0.0
        for j in range(r):
            s += costs[base[j] + ((c >> shifts[j]) & masks[j])]
        tot += s * cnt[i]
    return tot


@njit
def _surcharge_tab(tab, cnt, ok, costs, coff, lv):  # pragma: no cover - compiled
    """:func:`_surcharge_packed` for a frequency set stored as a ``(g, r)`` table."""
    g, r = tab.shape
    base = np.empty(r, dtype=np.int64)
    for j in range(r):
        base[j] = coff[j, lv[j]]
    tot = 0.0
    for i in range(g):
        if ok[i]:
            continue
        s = 0.0
        for j in range(r):
            s += costs[base[j] + tab[i, j]]
        tot += s * cnt[i]
    return tot


@njit
def _evaluate_k_kernel(
    codes, cnt, upflat, upoff, shifts, masks, src_lv, dst_lv, k, costs, coff, limit, always, want_inv
):  # pragma: no cover - compiled
    """Evaluate a node in one call when k-anonymity is the only model (a class passes iff
    ``|E| >= k``): :func:`_rollup_packed_kernel`, :func:`_class_stats`, and the suppression
    surcharge (:func:`_surcharge_packed`) when some record is suppressed and the node is
    feasible (``suppressed <= limit``) or ``always``."""
    out, out_cnt, inv = _rollup_packed_kernel(codes, cnt, upflat, upoff, shifts, masks, src_lv, dst_lv, want_inv)
    ok = out_cnt >= k
    n_ok, sup, sq, dm = _class_stats(out_cnt, ok, k)
    extra = 0.0
    if sup > 0 and (sup <= limit or always):
        extra = _surcharge_packed(out, out_cnt, ok, costs, coff, dst_lv, shifts, masks)
    return out, out_cnt, inv, ok, n_ok, sup, sq, dm, extra


@njit
def _sum_rows(inv, hist, g):  # pragma: no cover - compiled
    out = np.zeros((g, hist.shape[1]), dtype=np.int64)
    for i in range(inv.shape[0]):
        o = inv[i]
        for v in range(hist.shape[1]):
            out[o, v] += hist[i, v]
    return out


def fast_rollup(tab: np.ndarray, cnt: np.ndarray, maps: list[np.ndarray], offs: np.ndarray, radix: list[int]):
    """Roll-up with an int64 mixed-radix key when it fits, else by comparing rows."""
    flat = np.concatenate(maps) if maps else np.zeros(0, dtype=np.int32)
    total = 1
    for x in radix:
        total *= int(x)
    if total < 2**62:
        mult = np.ones(len(radix), dtype=np.int64)
        for j in range(len(radix) - 2, -1, -1):
            mult[j] = mult[j + 1] * int(radix[j + 1])
        return _rollup_key_kernel(tab, cnt, flat, offs, mult)
    return _rollup_kernel(tab, cnt, flat, offs)


@njit
def _box_ids(heights, strides, lv, up):  # pragma: no cover - compiled
    """Ids of the nodes above (``up``) or below ``lv``, itself included.

    Visits only the box ``[lv, heights]`` (or ``[0, lv]``), an odometer over level vectors
    that keeps the node id (``Σ L_j·strides[j]``) in step.
    """
    r = lv.shape[0]
    lo = np.empty(r, dtype=np.int64)
    hi = np.empty(r, dtype=np.int64)
    node = 0
    size = 1
    for j in range(r):
        lo[j] = lv[j] if up else 0
        hi[j] = heights[j] if up else lv[j]
        node += lo[j] * strides[j]
        size *= hi[j] - lo[j] + 1
    out = np.empty(size, dtype=np.int64)
    cur = lo.copy()
    for t in range(size):
        out[t] = node
        j = r - 1
        while j >= 0:
            if cur[j] < hi[j]:
                cur[j] += 1
                node += strides[j]
                break
            node -= (cur[j] - lo[j]) * strides[j]
            cur[j] = lo[j]
            j -= 1
    return out


@njit
def _tag_kernel(heights, strides, state, lv, up, value):  # pragma: no cover - compiled
    """Set ``state`` to ``value`` on unclassified nodes above (``up``) or below ``lv``."""
    for node in _box_ids(heights, strides, lv, up):
        if state[node] == 0:
            state[node] = value


@njit
def _source_kernel(cache_levels, cache_rows, k, lv):  # pragma: no cover - compiled
    """Index of the cached node below ``lv`` with the fewest rows."""
    best = 0
    best_rows = cache_rows[0]
    r = lv.shape[0]
    for i in range(1, k):
        if cache_rows[i] >= best_rows:
            continue
        ok = True
        for j in range(r):
            if cache_levels[i, j] > lv[j]:
                ok = False
                break
        if ok:
            best = i
            best_rows = cache_rows[i]
    return best


@njit
def _spread_max_kernel(levels, heights, strides, vals, upward):  # pragma: no cover - compiled
    """In place: each node's value becomes the max over the nodes below it (``upward``: its
    specializations, itself included) or above it (its generalizations).

    One pass by node id suffices: a direct specialization ``i - strides[j]`` has a smaller id
    than ``i`` and its own value is already the max over everything below it.
    """
    n, r = levels.shape
    if upward:
        for i in range(n):
            v = vals[i]
            for j in range(r):
                if levels[i, j] > 0:
                    w = vals[i - strides[j]]
                    if w > v:
                        v = w
            vals[i] = v
    else:
        for i in range(n - 1, -1, -1):
            v = vals[i]
            for j in range(r):
                if levels[i, j] < heights[j]:
                    w = vals[i + strides[j]]
                    if w > v:
                        v = w
            vals[i] = v
    return vals


@njit
def _path_kernel(levels, heights, strides, state, climb, start):  # pragma: no cover - compiled
    """Path upward from ``start`` through unclassified direct generalizations, taking the
    one with the lowest ``climb`` (ties: lowest id) at each step."""
    none = np.empty(0)
    return _path_bounded_kernel(levels, heights, strides, state, climb, start, none, none, np.inf, 0)


@njit
def _lattice_kernel(heights, size):  # pragma: no cover - compiled
    """Level vectors of every node by id (mixed radix, first column most significant) as int64
    and int8, and each node's height ``Σ L_j``: an odometer over the ids."""
    r = heights.shape[0]
    levels = np.empty((size, r), dtype=np.int64)
    levels8 = np.empty((size, r), dtype=np.int8)
    height = np.empty(size, dtype=np.int64)
    cur = np.zeros(r, dtype=np.int64)
    h = 0
    for i in range(size):
        for j in range(r):
            levels[i, j] = cur[j]
            levels8[i, j] = cur[j]
        height[i] = h
        j = r - 1
        while j >= 0:
            if cur[j] < heights[j]:
                cur[j] += 1
                h += 1
                break
            h -= cur[j]
            cur[j] = 0
            j -= 1
    return levels, levels8, height


@njit
def _next_open(order, state, pos, unclassified):  # pragma: no cover - compiled
    """First position ``i >= pos`` of ``order`` whose node is not known infeasible
    (``state != -1``), or with ``unclassified`` whose node is unclassified (``state == 0``);
    ``len(order)`` if none."""
    n = order.shape[0]
    if unclassified:
        while pos < n and state[order[pos]] != 0:
            pos += 1
    else:
        while pos < n and state[order[pos]] == -1:
            pos += 1
    return pos


@njit
def _box_max_kernel(heights, strides, vals, lv, up, value):  # pragma: no cover - compiled
    """``vals[x] = max(vals[x], value)`` for every node ``x`` above (``up``) or below ``lv``."""
    for node in _box_ids(heights, strides, lv, up):
        if vals[node] < value:
            vals[node] = value


@njit
def _path_bounded_kernel(levels, heights, strides, state, climb, start, mono, sharp, thr, pruned):  # pragma: no cover - compiled
    """:func:`_path_kernel` restricted to nodes whose lower bound ``mono + sharp`` is at most
    ``thr``: an unclassified successor above the threshold is marked ``pruned`` on the way
    (and, when its generalization-monotone part ``mono`` alone exceeds ``thr``, every
    unclassified node above it too) and is not climbed through. Empty ``mono``: no bounds."""
    r = levels.shape[1]
    bounded = mono.shape[0] > 0
    path = np.empty(int(heights.sum()) + 1, dtype=np.int64)
    path[0] = start
    m = 1
    cur = start
    while True:
        best = -1
        for j in range(r):
            if levels[cur, j] < heights[j]:
                s = cur + strides[j]
                if state[s] != 0:
                    continue
                if bounded:
                    if mono[s] > thr:
                        _tag_kernel(heights, strides, state, levels[s].astype(np.int64), True, pruned)
                        continue
                    if mono[s] + sharp[s] > thr:
                        state[s] = pruned
                        continue
                if best < 0 or climb[s] < climb[best] or (climb[s] == climb[best] and s < best):
                    best = s
        if best < 0:
            return path[:m]
        path[m] = best
        m += 1
        cur = best


@njit
def _support_emd_kernel(hist, dist, q):  # pragma: no cover - compiled
    """Per class: ``Σ_v q_v · min_{u : hist[u] > 0} dist[v, u]``, the least EMD to ``q`` of
    any distribution on the class's sensitive values (every unit of ``q`` at ``v`` travels
    at least to the nearest value present)."""
    g, V = hist.shape
    out = np.empty(g)
    for i in range(g):
        tot = 0.0
        for v in range(V):
            best = np.inf
            for u in range(V):
                if hist[i, u] > 0 and dist[v, u] < best:
                    best = dist[v, u]
            tot += q[v] * best
        out[i] = tot
    return out


@njit
def _pair_counts(tab, cnt, upflat, base, G, pa, pb, poff, total):  # pragma: no cover - compiled
    """Records per pair of groups, for every pair of columns ``(pa[p], pb[p])``, from a
    frequency set's ``(g, r)`` table of group ids: column ``j``'s id is first mapped up through
    ``upflat[base[j] + id]`` (to the column's floor level, ``G[j]`` groups); pair ``p``'s table
    is ``out[poff[p] + x·G[pb[p]] + y]``. Rows are taken in blocks of 4,096 whose mapped ids are
    laid out by column; each pair is then one tight loop over the block (30% faster than all
    pairs per row; the scratch stays small whatever the number of rows)."""
    d, r = tab.shape
    B = 4096
    gg = np.empty((r, min(B, max(d, 1))), dtype=np.int32)
    out = np.zeros(total, dtype=np.int64)
    for s in range(0, d, B):
        e = min(s + B, d)
        for i in range(s, e):
            for j in range(r):
                gg[j, i - s] = upflat[base[j] + tab[i, j]]
        c = cnt[s:e]
        for p in range(pa.shape[0]):
            ga = gg[pa[p], : e - s]
            gb = gg[pb[p], : e - s]
            o = poff[p]
            m = G[pb[p]]
            for i in range(e - s):
                out[o + ga[i] * m + gb[i]] += c[i]
    return out


@njit
def _pair_small(counts, off, Ga, Gb, mapa, mapb, Bn, scratch, thresh):  # pragma: no cover - compiled
    """Records in groups of ``1 .. thresh − 1`` records of one pair table (``Ga × Gb`` at
    ``off`` in ``counts``) after mapping its rows through ``mapa`` and columns through ``mapb``
    (``Bn`` target columns)."""
    na = 0
    for x in range(Ga):
        if mapa[x] + 1 > na:
            na = mapa[x] + 1
    m = na * Bn
    for t in range(m):
        scratch[t] = 0
    for x in range(Ga):
        row = mapa[x] * Bn
        for y in range(Gb):
            c = counts[off + x * Gb + y]
            if c:
                scratch[row + mapb[y]] += c
    s = 0
    for t in range(m):
        c = scratch[t]
        if 0 < c < thresh:
            s += c
    return s


@njit
def _pair_stairs(counts, upflat, upoff, floor, heights, ngroups, G, pa, pb, poff, thresh, limit):  # pragma: no cover - compiled
    """For each pair ``p = (a, b)`` of columns and each level ``la`` of ``a``, the least level
    ``lb`` of ``b`` at which the pair's groups smaller than ``thresh`` hold at most ``limit``
    records (``heights[b] + 1`` if none; for ``la`` below ``a``'s floor as well). That count
    does not increase with either level, so the stair does not increase with ``la``, and one
    walk per pair finds it."""
    P = pa.shape[0]
    H = heights.shape[0]
    hmax = 0
    for j in range(H):
        if heights[j] > hmax:
            hmax = heights[j]
    stairs = np.empty((P, hmax + 1), dtype=np.int64)
    big = 1  # the largest pair table kept (not the widest column squared)
    for p in range(P):
        if G[pa[p]] * G[pb[p]] > big:
            big = G[pa[p]] * G[pb[p]]
    scratch = np.zeros(big, dtype=np.int64)
    for p in range(P):
        a = pa[p]
        b = pb[p]
        fa = floor[a]
        fb = floor[b]
        for la in range(hmax + 1):
            stairs[p, la] = heights[b] + 1
        lb = heights[b] + 1  # stair of the previous la (an upper bound of this one's)
        for la in range(fa, heights[a] + 1):
            mapa = upflat[upoff[a, fa, la] : upoff[a, fa, la] + G[a]]
            top = min(lb, heights[b])
            mapb = upflat[upoff[b, fb, top] : upoff[b, fb, top] + G[b]]
            if _pair_small(counts, poff[p], G[a], G[b], mapa, mapb, ngroups[b, top], scratch, thresh) > limit:
                stairs[p, la] = heights[b] + 1
                continue
            lb = top
            while lb > fb:
                mapb = upflat[upoff[b, fb, lb - 1] : upoff[b, fb, lb - 1] + G[b]]
                if _pair_small(counts, poff[p], G[a], G[b], mapa, mapb, ngroups[b, lb - 1], scratch, thresh) > limit:
                    break
                lb -= 1
            stairs[p, la] = lb
    return stairs


@njit
def _floor_tag_kernel(levels, heights, strides, state, floor, pa, pb, stairs):  # pragma: no cover - compiled
    """Tag infeasible (``state`` −1 where 0) every node below a column floor or a pair stair:
    ``L_j < floor[j]`` for some ``j``, or ``L_b < stairs[p, L_a]`` for some pair ``p = (a, b)``.
    The maximal such nodes (the other columns at the top) are marked, then every node with a
    marked direct generalization, in one pass by decreasing id. Returns the number of nodes
    below the floors."""
    n, r = levels.shape
    mark = np.zeros(n, dtype=np.bool_)
    topid = 0
    for j in range(r):
        topid += heights[j] * strides[j]
    for j in range(r):
        if floor[j] > 0:
            mark[topid - (heights[j] - floor[j] + 1) * strides[j]] = True
    for p in range(pa.shape[0]):
        a = pa[p]
        b = pb[p]
        for la in range(heights[a] + 1):
            s = stairs[p, la]
            if s > 0:
                mark[topid - (heights[a] - la) * strides[a] - (heights[b] - s + 1) * strides[b]] = True
    below = 0
    for i in range(n - 1, -1, -1):
        m = mark[i]
        if not m:
            for j in range(r):
                if levels[i, j] < heights[j] and mark[i + strides[j]]:
                    m = True
                    break
        if m:
            mark[i] = True
            below += 1
            if state[i] == 0:
                state[i] = -1
    return below
