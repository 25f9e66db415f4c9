"""Compiled kernels of the freeform heuristics (Doka et al., ASIA CCS 2015, §5-7).

One *block* is a contiguous run of rows of the lexicographically sorted table (the whole
table, or one partition of §8.1). Per block the state of each post-image ``T_j`` is its
current box: ``lo, hi`` (numeric columns, values scaled by ``1/(U-L)`` so that widths are
NCPs) and a bit set per categorical column. ``post[i, t]`` / ``pre[j, t]`` hold the edges
chosen by iteration ``t`` (block-local indices); iteration 0 is the identity.

Edge weight (§5, the "redefined" weight, written out from Eqs. 1-3): the increase of
``T_j``'s NCP sum if ``q_i`` joins it, ``Σ_num (max(hi, x) − min(lo, x) − (hi − lo)) + Σ_cat [x ∉ Set_j]/(|A|−1)``.
Every ``T_j`` gains exactly one pre-image per iteration, so the weights computed at the
start of an iteration are exact for it and the final GCP is the sum of the selected weights
divided by ``d·n``.

Beside the heuristics' per-block passes (``run_blocks``, ``block_weights``), this module
holds the compiled steps of publishing a freeform release: ``chunk_matchings`` (Hopcroft-Karp
on each block of rows that no edge crosses, the blocks in parallel: the random decomposition
into k perfect matchings) and ``box_ranges`` / ``box_members`` (each published box's ranges and
value sets, computed per box instead of through a gather of every cell).

Length: every compiled pass of the freeform heuristics in one module, because numba inlines
and specialises them together (Greedy's and SortGreedy's iterations share the weight, the box
state and the swap resolution; the scan's branch-free minima sit beside the weights they read).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..._jit import njit
from ..._matching import _hopcroft_karp

_INF = np.inf
_ALL_FREE = np.zeros(0, dtype=np.bool_)  # "every listed box is free"


@njit(inline="always")
def _weight(xnum, xcat, wcat, lo, hi, bits, i, j):  # pragma: no cover - compiled
    w = 0.0
    for a in range(xnum.shape[1]):
        x = xnum[i, a]
        if x < lo[j, a]:
            w += lo[j, a] - x
        elif x > hi[j, a]:
            w += x - hi[j, a]
    for c in range(xcat.shape[1]):
        v = xcat[i, c]
        if not (bits[j, c, v >> 6] >> np.uint64(v & 63)) & np.uint64(1):
            w += wcat[c]
    return w


@njit
def _init_state(xnum, xcat, n_words):  # pragma: no cover - compiled
    m = xnum.shape[0]
    lo = xnum.copy()
    hi = xnum.copy()
    bits = np.zeros((m, xcat.shape[1], n_words), dtype=np.uint64)
    for j in range(m):
        for c in range(xcat.shape[1]):
            v = xcat[j, c]
            bits[j, c, v >> 6] |= np.uint64(1) << np.uint64(v & 63)
    return lo, hi, bits


@njit
def _extend(xnum, xcat, lo, hi, bits, i, j):  # pragma: no cover - compiled
    """Add record ``i`` to box ``j``."""
    for a in range(xnum.shape[1]):
        x = xnum[i, a]
        if x < lo[j, a]:
            lo[j, a] = x
        if x > hi[j, a]:
            hi[j, a] = x
    for c in range(xcat.shape[1]):
        v = xcat[i, c]
        bits[j, c, v >> 6] |= np.uint64(1) << np.uint64(v & 63)


@njit
def _is_used(post, t, i, j):  # pragma: no cover - compiled
    for s in range(t):
        if post[i, s] == j:
            return True
    return False


@njit
def _weights_matrix(xnum, xcat, wcat, lo, hi, bits, post, t):  # pragma: no cover - compiled
    """Dense ``(m, m)`` weights of iteration ``t``; edges used before are ``inf``.

    Row by row: for record ``i`` each term of :func:`_weight` is added to the whole row at
    once, over the boxes' state transposed to ``(column, box)`` so that the inner loop runs
    over contiguous boxes with one value of ``i`` (SIMD). ``W[i, j]`` gets the same terms in
    the same order as :func:`_weight` (a term that is zero there is skipped, here it adds
    ``+0.0``), so the weights are bit for bit those of :func:`_weight`.
    """
    m = xnum.shape[0]
    na = xnum.shape[1]
    nc = xcat.shape[1]
    loT = np.ascontiguousarray(lo.T)
    hiT = np.ascontiguousarray(hi.T)
    nw = bits.shape[2]
    bitsT = np.empty((nc, nw, m), dtype=np.uint64)
    for j in range(m):
        for c in range(nc):
            for w in range(nw):
                bitsT[c, w, j] = bits[j, c, w]
    W = np.empty((m, m), dtype=np.float64)
    for i in range(m):
        row = W[i]
        row[:] = 0.0
        for a in range(na):
            x = xnum[i, a]
            la = loT[a]
            ha = hiT[a]
            for j in range(m):
                row[j] += max(la[j] - x, 0.0)
                row[j] += max(x - ha[j], 0.0)
        for c in range(nc):
            v = xcat[i, c]
            bw = bitsT[c, v >> 6]
            sh = np.uint64(v & 63)
            wc = wcat[c]
            for j in range(m):
                row[j] += 0.0 if (bw[j] >> sh) & np.uint64(1) else wc
        for s in range(t):
            row[post[i, s]] = _INF
    return W


@njit
def _has(bits, j, c, v):  # pragma: no cover - compiled
    return (bits[j, c, v >> 6] >> np.uint64(v & 63)) & np.uint64(1) != 0


@njit
def _scan_list(xnum, xcat, wcat, lo, hi, bits, post, t, i, lst, isfree, skip_c, skip_v, best, bj):  # pragma: no cover - compiled
    """Cheapest free (``isfree``; empty = all), available box of ``lst`` for ``i``, improving
    on ``best``/``bj`` (boxes holding ``skip_v`` in column ``skip_c`` are skipped: already
    scanned); ties by lowest id."""
    for j in lst:
        if len(isfree) and not isfree[j]:
            continue
        if skip_c >= 0 and _has(bits, j, skip_c, skip_v):
            continue
        if _is_used(post, t, i, j):
            continue
        w = _weight(xnum, xcat, wcat, lo, hi, bits, i, j)
        if w < best or (w == best and j < bj):
            best = w
            bj = j
    return best, bj


@njit
def _best_free(xnum, xcat, wcat, lo, hi, bits, post, t, i, free, nfree, lo_q, hi_q):  # pragma: no cover - compiled
    """Cheapest available post-image among ``free[lo_q:hi_q]`` for ``i`` (ties: lowest id)."""
    best, bj = _scan_list(xnum, xcat, wcat, lo, hi, bits, post, t, i, free[lo_q:hi_q], _ALL_FREE, -1, 0, _INF, -1)
    return bj, best


@njit
def _take(free, fpos, nfree, j):  # pragma: no cover - compiled
    """Remove ``j`` from the free list (swap with the last); returns the new length."""
    q = fpos[j]
    last = free[nfree - 1]
    free[q] = last
    fpos[last] = q
    free[nfree - 1] = j
    fpos[j] = nfree - 1
    return nfree - 1


@njit
def _swap_in(xnum, xcat, wcat, lo, hi, bits, post, t, i, matchS, matchT, free, fpos, nfree, order_y):  # pragma: no cover - compiled
    """Dead-end resolution (Alg. 1 lines 3-5): find a matched ``y`` (in ``order_y``) whose
    post-image ``j`` is available to ``i`` and that can move to a free ``T_m`` (cheapest);
    returns the new free-list length, or -1 if no single swap exists."""
    for y in order_y:
        if y < 0 or matchS[y] < 0:
            continue
        j = matchS[y]
        if _is_used(post, t, i, j):
            continue
        bm, bw = _best_free(xnum, xcat, wcat, lo, hi, bits, post, t, y, free, nfree, 0, nfree)
        if bm < 0:
            continue
        nfree = _take(free, fpos, nfree, bm)
        matchS[y] = bm
        matchT[bm] = y
        matchS[i] = j
        matchT[j] = i
        return nfree
    return -1


@njit
def _value_lists(bits, c, m_c):  # pragma: no cover - compiled
    """CSR lists: for each value ``v`` of categorical column ``c``, the boxes containing it."""
    n = bits.shape[0]
    cnt = np.zeros(m_c + 1, dtype=np.int64)
    for j in range(n):
        for v in range(m_c):
            if _has(bits, j, c, v):
                cnt[v + 1] += 1
    ptr = np.cumsum(cnt)
    idx = np.empty(ptr[-1], dtype=np.int64)
    fill = ptr[:-1].copy()
    for j in range(n):
        for v in range(m_c):
            if _has(bits, j, c, v):
                idx[fill[v]] = j
                fill[v] += 1
    return ptr, idx


@njit
def _pair_lists(bits, c1, m1, c2, m2):  # pragma: no cover - compiled
    """CSR lists over value pairs ``(v1, v2)``: the boxes containing both."""
    n = bits.shape[0]
    cnt = np.zeros(m1 * m2 + 1, dtype=np.int64)
    for j in range(n):
        for v1 in range(m1):
            if _has(bits, j, c1, v1):
                for v2 in range(m2):
                    if _has(bits, j, c2, v2):
                        cnt[v1 * m2 + v2 + 1] += 1
    ptr = np.cumsum(cnt)
    idx = np.empty(ptr[-1], dtype=np.int64)
    fill = ptr[:-1].copy()
    for j in range(n):
        for v1 in range(m1):
            if _has(bits, j, c1, v1):
                for v2 in range(m2):
                    if _has(bits, j, c2, v2):
                        idx[fill[v1 * m2 + v2]] = j
                        fill[v1 * m2 + v2] += 1
    return ptr, idx


@njit
def _pruned_best(xnum, xcat, wcat, lo, hi, bits, post, t, i, isfree, free, nfree, c1, c2, p1, i1, p12, i12, m2):  # pragma: no cover - compiled
    """Exact cheapest available box for ``i`` with lower-bound pruning on the two
    categorical columns of largest weight ``c1``, ``c2`` (``wcat[c1] >= wcat[c2]``): boxes
    holding both of ``i``'s values first (bound 0), then those holding only its ``c1``
    value (bound ``wcat[c2]``), then the rest (bound ``wcat[c1]``); a class is skipped when
    the best weight found is below its bound, so the result equals the full scan's."""
    a = xcat[i, c1]
    b = xcat[i, c2]
    best = _INF
    bj = -1
    key = a * m2 + b
    best, bj = _scan_list(xnum, xcat, wcat, lo, hi, bits, post, t, i, i12[p12[key]:p12[key + 1]], isfree, -1, 0, best, bj)
    if best >= wcat[c2]:
        best, bj = _scan_list(xnum, xcat, wcat, lo, hi, bits, post, t, i, i1[p1[a]:p1[a + 1]], isfree, c2, b, best, bj)
    if best >= wcat[c1]:
        best, bj = _scan_list(xnum, xcat, wcat, lo, hi, bits, post, t, i, free[:nfree], isfree, c1, a, best, bj)
    return bj


@njit
def _greedy_iteration(xnum, xcat, wcat, lo, hi, bits, post, t, window, matchS, matchT, c1, c2, m1, m2):  # pragma: no cover - compiled
    """One iteration of Greedy (Alg. 1): records in (lexicographic) row order take the
    cheapest available post-image. ``window > 0`` restricts the first scan to post-images
    whose position is within ``window`` of the record's (candidate pruning; a record with
    no available candidate there scans all free ones). Returns 0, or -1 on failure."""
    m = xnum.shape[0]
    free = np.arange(m)
    fpos = np.arange(m)
    nfree = m
    # position-ordered free flags for the windowed scan
    isfree = np.ones(m, dtype=np.bool_)
    prune = c2 >= 0 and window <= 0
    if prune:
        p1, i1 = _value_lists(bits, c1, m1)
        p12, i12 = _pair_lists(bits, c1, m1, c2, m2)
    else:
        p1 = i1 = p12 = i12 = np.zeros(1, dtype=np.int64)
    for i in range(m):
        bj = -1
        if window > 0:
            best = _INF
            a = max(0, i - window)
            b = min(m, i + window + 1)
            for j in range(a, b):
                if not isfree[j] or _is_used(post, t, i, j):
                    continue
                w = _weight(xnum, xcat, wcat, lo, hi, bits, i, j)
                if w < best:
                    best = w
                    bj = j
        if bj < 0 and prune:
            bj = _pruned_best(xnum, xcat, wcat, lo, hi, bits, post, t, i, isfree, free, nfree, c1, c2, p1, i1, p12, i12, m2)
        elif bj < 0:
            bj, _ = _best_free(xnum, xcat, wcat, lo, hi, bits, post, t, i, free, nfree, 0, nfree)
        if bj >= 0:
            nfree = _take(free, fpos, nfree, bj)
            isfree[bj] = False
            matchS[i] = bj
            matchT[bj] = i
        else:
            order_y = np.arange(i - 1, -1, -1)
            nf = _swap_in(xnum, xcat, wcat, lo, hi, bits, post, t, i, matchS, matchT, free, fpos, nfree, order_y)
            if nf < 0:
                return -1
            nfree = nf
            for q in range(nfree, m):
                isfree[free[q]] = False
    return 0


#: int64 key of a weight: for non-negative floats (``+0.0`` up to ``+inf``) the bit pattern read
#: as an int64 orders exactly like the value, and equal keys are equal weights
_INF_KEY = np.array([np.inf]).view(np.int64)[0]
#: key of a taken row / column (ORed in): above every weight, ``inf`` included
_TAKEN = np.iinfo(np.int64).max


@njit
def _row_best(Wk, m, i, pen_c):  # pragma: no cover - compiled
    """Free column ``j`` of least ``(W[i, j], j)`` with ``W[i, j] < inf`` (-1: none).

    ``Wk`` are the weights' int64 keys, ``pen_c[j]`` is :data:`_TAKEN` for a taken column,
    else 0: the least ``Wk | pen_c`` is a branch-free minimum (SIMD), then the first column
    holding it."""
    base = i * m
    mn = _TAKEN
    for j in range(m):
        mn = min(mn, Wk[base + j] | pen_c[j])
    if mn >= _INF_KEY:
        return -1
    for j in range(m):
        if (Wk[base + j] | pen_c[j]) == mn:
            return j
    return -1  # pragma: no cover - unreachable


@njit
def _col_best(Wk, m, j, pen_r):  # pragma: no cover - compiled
    """Free row ``i`` of least ``(W[i, j], i)`` with ``W[i, j] < inf`` (-1: none); as
    :func:`_row_best`."""
    mn = _TAKEN
    for i in range(m):
        mn = min(mn, Wk[i * m + j] | pen_r[i])
    if mn >= _INF_KEY:
        return -1
    for i in range(m):
        if (Wk[i * m + j] | pen_r[i]) == mn:
            return i
    return -1  # pragma: no cover - unreachable


@njit
def _first_best(Wk, m, best_r, best_c):  # pragma: no cover - compiled
    """Every row's and column's least ``(W, index)`` edge below ``inf`` while all are free
    (-1: none), in one pass over the rows: the columns' minima are kept by a branch-free
    update per row (strict ``<``: the lowest row wins a tie), the row's by its minimum key
    and the first column holding it."""
    cmin = np.full(m, _TAKEN, dtype=np.int64)
    best_c[:] = -1
    for i in range(m):
        base = i * m
        mn = _TAKEN
        for j in range(m):
            v = Wk[base + j]
            lt = v < cmin[j]
            cmin[j] = v if lt else cmin[j]
            best_c[j] = i if lt else best_c[j]
            mn = min(mn, v)
        best_r[i] = -1
        if mn < _INF_KEY:
            for j in range(m):
                if Wk[base + j] == mn:
                    best_r[i] = j
                    break
    for j in range(m):
        if cmin[j] >= _INF_KEY:
            best_c[j] = -1


@njit
def _sorted_greedy(W, m, matchS, matchT):  # pragma: no cover - compiled
    """Alg. 2 lines 2-7 on the flat ``(m, m)`` weights ``W``: scan the available edges
    (weight < inf) in ascending order of (weight, row-major index), i.e. the stable sort of
    all ``m²`` edges, and keep each edge whose two ends are still free. Returns the number
    of edges kept. ``W`` is C-contiguous, its weights non-negative (``+0.0`` up to ``+inf``;
    no ``-0.0``), and ``matchS`` / ``matchT`` are all -1 on entry.

    The sort is never materialised. Under a strict total order the greedy matching is the
    one obtained by repeatedly keeping a *locally dominant* edge, one that is the least
    available edge at both of its still free ends, in any order (an edge kept so is kept by
    the scan: every lesser edge at its ends meets an end kept earlier). A dominant edge is
    found by pointer chasing: from a free row take its least free column, from that column
    its least free row, and so on; the key strictly decreases, so the chase ends at a pair
    that point to each other. Each row's and column's least free partner is cached (all of
    them first in one pass, :func:`_first_best`) and rescanned only when that partner is
    taken. Rows left without an available free column stay unmatched (the caller's swaps
    resolve them). The weights are compared by their int64 keys (:data:`_INF_KEY`), so that
    the scans are branch-free minima.
    """
    Wk = W.view(np.int64)
    best_r = np.empty(m, dtype=np.int64)
    best_c = np.empty(m, dtype=np.int64)
    pen_r = np.zeros(m, dtype=np.int64)  # _TAKEN once a row / column is matched
    pen_c = np.zeros(m, dtype=np.int64)
    _first_best(Wk, m, best_r, best_c)
    cnt = 0
    for i0 in range(m):
        while matchS[i0] < 0:
            i = i0
            while True:  # chase to a locally dominant edge
                j = best_r[i]
                if j >= 0 and matchT[j] >= 0:
                    j = _row_best(Wk, m, i, pen_c)
                    best_r[i] = j
                if j < 0:
                    break  # only i0 can get here: a row reached from a column has an edge to it
                i2 = best_c[j]
                if i2 < 0 or matchS[i2] >= 0:
                    i2 = _col_best(Wk, m, j, pen_r)
                    best_c[j] = i2
                if i2 == i:
                    matchS[i] = j
                    matchT[j] = i
                    pen_r[i] = _TAKEN
                    pen_c[j] = _TAKEN
                    cnt += 1
                    break
                i = i2
            if j < 0:
                break
    return cnt


@njit
def _sortgreedy_iteration(xnum, xcat, wcat, lo, hi, bits, post, t, matchS, matchT):  # pragma: no cover - compiled
    """One iteration of SortGreedy (Alg. 2): scan all available edges by ascending weight
    (stable: ties by record position, then post-image position) and keep an edge whose
    ends are both free (:func:`_sorted_greedy`); then resolve the left-over records by
    single swaps with their lexicographic neighbours (pos−1, pos+1, pos−2, ...). Returns 0,
    or -1 on failure."""
    m = xnum.shape[0]
    W = _weights_matrix(xnum, xcat, wcat, lo, hi, bits, post, t).ravel()
    cnt = _sorted_greedy(W, m, matchS, matchT)
    if cnt == m:
        return 0
    free = np.empty(m, dtype=np.int64)
    fpos = np.zeros(m, dtype=np.int64)
    nfree = 0
    for j in range(m):
        if matchT[j] < 0:
            free[nfree] = j
            fpos[j] = nfree
            nfree += 1
    for i in range(m):
        if matchS[i] >= 0:
            continue
        order_y = np.empty(2 * m, dtype=np.int64)
        p = 0
        for dist in range(1, m):
            order_y[p] = i - dist
            order_y[p + 1] = i + dist if i + dist < m else -1
            p += 2
        nf = _swap_in(xnum, xcat, wcat, lo, hi, bits, post, t, i, matchS, matchT, free, fpos, nfree, order_y[:p])
        if nf < 0:
            return -1
        nfree = nf
    return 0


@njit
def _run_block(xnum, xcat, wcat, n_words, k, method, window, pre, post, costs, c1, c2, m1, m2):  # pragma: no cover - compiled
    """All ``k`` iterations of Greedy (``method`` 0) or SortGreedy (1) on one block.

    Fills ``pre``/``post`` (block-local) and ``costs[t]`` (sum of selected weights of
    iteration ``t``). Returns 0, or -(t+1) if iteration ``t`` found no single swap.
    """
    m = xnum.shape[0]
    lo, hi, bits = _init_state(xnum, xcat, n_words)
    for i in range(m):
        pre[i, 0] = i
        post[i, 0] = i
    costs[0] = 0.0
    matchS = np.empty(m, dtype=np.int64)
    matchT = np.empty(m, dtype=np.int64)
    for t in range(1, k):
        matchS[:] = -1
        matchT[:] = -1
        if method == 0:
            st = _greedy_iteration(xnum, xcat, wcat, lo, hi, bits, post, t, window, matchS, matchT, c1, c2, m1, m2)
        else:
            st = _sortgreedy_iteration(xnum, xcat, wcat, lo, hi, bits, post, t, matchS, matchT)
        if st < 0:
            return -(t + 1)
        c = 0.0
        for i in range(m):
            c += _weight(xnum, xcat, wcat, lo, hi, bits, i, matchS[i])
        costs[t] = c
        for j in range(m):
            i = matchT[j]
            _extend(xnum, xcat, lo, hi, bits, i, j)
            pre[j, t] = i
            post[i, t] = j
    return 0


@njit(parallel=True)
def run_blocks(xnum, xcat, wcat, n_words, k, method, window, starts, pre, costs, c1=-1, c2=-1, m1=0, m2=0):  # pragma: no cover - compiled
    """Run :func:`_run_block` on every block ``[starts[b], starts[b+1])`` in parallel.

    ``pre`` (n, k) receives global row indices; ``costs`` (n_blocks, k). ``c1, c2`` (with
    domain sizes ``m1, m2``) are the categorical columns Greedy's exact pruning uses
    (``-1``: none). Returns the per-block status (0 = success).
    """
    nb = len(starts) - 1
    status = np.zeros(nb, dtype=np.int64)
    for b in prange(nb):
        a = starts[b]
        e = starts[b + 1]
        m = e - a
        lpre = np.empty((m, k), dtype=np.int64)
        lpost = np.empty((m, k), dtype=np.int64)
        status[b] = _run_block(xnum[a:e], xcat[a:e], wcat, n_words, k, method, window, lpre, lpost, costs[b], c1, c2, m1, m2)
        for j in range(m):
            for t in range(k):
                pre[a + j, t] = a + lpre[j, t]
    return status


@njit(nogil=True)
def block_weights(xnum, xcat, wcat, n_words, pre, t):  # pragma: no cover - compiled
    """Weights of iteration ``t`` for a block whose first ``t`` iterations are in ``pre``
    (block-local indices): rebuild the boxes and the used edges, then the dense matrix."""
    m = xnum.shape[0]
    lo, hi, bits = _init_state(xnum, xcat, n_words)
    post = np.empty((m, max(t, 1)), dtype=np.int64)
    for s in range(t):
        for j in range(m):
            i = pre[j, s]
            post[i, s] = j
            if s > 0:
                _extend(xnum, xcat, lo, hi, bits, i, j)
    return _weights_matrix(xnum, xcat, wcat, lo, hi, bits, post, t)


@njit
def _chunk_matching(pre, alive, pr, pc, a, e, match):  # pragma: no cover - compiled
    """A maximum matching of the alive edges of the chunk ``[a, e)`` (originals and boxes;
    no edge leaves it), exactly the one Hopcroft–Karp finds on the whole relabelled graph.

    The whole graph has original ``i`` as row ``pr[i]`` and box ``j`` as column ``pc[j]``,
    each row's columns ascending. Here the chunk's rows are numbered by the rank of their
    ``pr`` among the chunk, its columns likewise by ``pc``: the same relative orders, so
    Hopcroft–Karp (greedy start in row order, layered phases, DFS in row order) takes the
    same steps on this component as on the whole graph. Phases whose shortest augmenting
    path is shorter than any in the chunk leave it unchanged, so they can be skipped.
    Writes ``match[i]`` (box of original ``i``), marks its edges dead in ``alive`` and
    returns the number of unmatched rows.
    """
    m = e - a
    k = pre.shape[1]
    rord = np.argsort(pr[a:e])  # local row -> original - a
    cord = np.argsort(pc[a:e])  # local column -> box - a
    rrank = np.empty(m, dtype=np.int64)
    for q in range(m):
        rrank[rord[q]] = q
    indptr = np.zeros(m + 1, dtype=np.int64)
    for j in range(a, e):
        for s in range(k):
            if alive[j, s]:
                indptr[rrank[pre[j, s] - a] + 1] += 1
    for q in range(m):
        indptr[q + 1] += indptr[q]
    fill = indptr[:-1].copy()
    indices = np.empty(indptr[m], dtype=np.int64)
    for q in range(m):  # columns in ascending order, so that each row's columns come out ascending
        j = a + cord[q]
        for s in range(k):
            if alive[j, s]:
                r = rrank[pre[j, s] - a]
                indices[fill[r]] = q
                fill[r] += 1
    mate = _hopcroft_karp(indptr, indices, m, m)[0]
    bad = 0
    for r in range(m):
        if mate[r] < 0:
            bad += 1
        else:
            match[a + rord[r]] = a + cord[mate[r]]
    if bad == 0:
        for j in range(a, e):  # the matching's edges are used up
            for s in range(k):
                if alive[j, s] and match[pre[j, s]] == j:
                    alive[j, s] = False
    return bad


@njit(parallel=True)
def chunk_matchings(pre, alive, pr, pc, starts, match):  # pragma: no cover - compiled
    """:func:`_chunk_matching` on every chunk ``[starts[c], starts[c+1])`` in parallel (the
    chunks share no vertex, so the result does not depend on the scheduling). Returns the
    number of unmatched originals."""
    nc = len(starts) - 1
    bad = np.zeros(nc, dtype=np.int64)
    for c in prange(nc):
        bad[c] = _chunk_matching(pre, alive, pr, pc, starts[c], starts[c + 1], match)
    return bad.sum()


@njit(parallel=True)
def box_ranges(X, idx, cell_lo, cell_hi):  # pragma: no cover - compiled
    """Per box ``j``: ``cell_lo[j, c]`` / ``cell_hi[j, c]`` = min / max of ``X[idx[j, s], c]``."""
    n, r = X.shape
    for j in prange(idx.shape[0]):
        for c in range(r):
            v = X[idx[j, 0], c]
            cell_lo[j, c] = v
            cell_hi[j, c] = v
        for s in range(1, idx.shape[1]):
            i = idx[j, s]
            for c in range(r):
                v = X[i, c]
                if v < cell_lo[j, c]:
                    cell_lo[j, c] = v
                if v > cell_hi[j, c]:
                    cell_hi[j, c] = v


@njit(parallel=True)
def box_members(X, c, idx, member):  # pragma: no cover - compiled
    """Per box ``j``: ``member[j, X[idx[j, s], c]] = True`` for every ``s`` (its value set)."""
    for j in prange(idx.shape[0]):
        for s in range(idx.shape[1]):
            member[j, X[idx[j, s], c]] = True
