"""Clustering baselines for k-anonymity by local recoding, and ℓ-diverse merging.

* :func:`agglomerative_clusters` -- the agglomerative algorithm of Gionis, Mazza & Tassa
  (ICDE 2008), the k-anonymity baseline of the k-concealment paper (§9). Distance used
  here: the increase of the total information loss caused by merging,
  ``dist(A, B) = |A∪B|·d(A∪B) - |A|·d(A) - |B|·d(B)`` with ``d(S) = c(closure(S))``
  (ktype's choice: the k-concealment paper, §9, uses this baseline, its reference [19],
  without restating its distance). Clusters reaching size k leave the active
  pool; the < k leftover records join the output cluster whose loss grows least.
* :func:`forest_clusters` -- the forest algorithm of Aggarwal et al. (ICDT 2005) as
  adapted by Gionis & Tassa (§6.4, "Algorithm B"): FOREST over the (k-1)-nearest-neighbour
  lists (weights ``w(i,j) = d({R_i, R_j})``, ties by index), then decomposition of trees
  larger than ``L = max(2k-1, 3k-3)`` into trees of size in [k, L] with Steiner copies
  (ktype's own single post-order pass: the paper, §6.4.2, delegates DECOMPOSE-COMPONENT to
  Aggarwal et al. §4.2 with ``L = max(2k-1, 3k-5)``; see :func:`decompose_forest`).
  ``Π <= L·OPT`` for monotone sub-additive
  measures on proper hierarchies (LM; EM only when entropy-monotone).
* :func:`l_diverse_merge` -- Algorithm 8 (Appendix C): merge the least diverse cluster
  with the cluster minimizing ``w·cost_I + (1-w)·cost_D`` until every cluster has
  ``div >= ℓ``. ``cost_I`` is the increase of the average loss (with the 1/n of Eq. 2).

A clustering is returned as labels ``0..c-1``; :func:`cluster_boxes` turns it into the
closure of each cluster (every record gets its cluster's closure).

Length: the clustering pipelines (agglomerative, forest and their ℓ-diverse variants) share one cost
model and one merge procedure; splitting them would separate each pipeline from the steps it is made
of.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..._jit import njit
from ...exceptions import InfeasibleError, InvalidParameterError
from ._core import Problem, _close, _fcost
from ._kernels import pair_knn, plus_table

__all__ = ["agglomerative_clusters", "forest_clusters", "l_diverse_merge", "cluster_boxes", "decompose_forest"]


@njit
def _union_cost(alo, ahi, blo, bhi, anc, nlo, nhi, tree, m, measure, pn, ps):  # noqa: PLR0913
    r = alo.shape[0]
    s = 0.0
    for a in range(r):
        l2, h2 = _close(a, min(alo[a], blo[a]), max(ahi[a], bhi[a]), anc, nlo, nhi, tree)
        s += _fcost(a, l2, h2, m, measure, pn, ps)
    return s / r


@njit
def _walk_dist(a, e, clo, chi, size, dc, anc, nlo, nhi, tree, m, measure, pn, ps):  # noqa: PLR0913
    """``dist(C_a, C_e)`` by ancestor walks (no closure-cost table: huge domains)."""
    r = clo.shape[1]
    s = 0.0
    for t in range(r):
        l2, h2 = _close(t, min(clo[a, t], clo[e, t]), max(chi[a, t], chi[e, t]), anc, nlo, nhi, tree)
        s += _fcost(t, l2, h2, m, measure, pn, ps)
    return (size[a] + size[e]) * (s / r) - size[a] * dc[a] - size[e] * dc[e]


@njit(inline="always")
def _merge_dist(a, e, clo, chi, size, dc, ctab, anc, nlo, nhi, tree, m, measure, pn, ps, lim, lim_strict):  # noqa: PLR0913
    """``(exact, dist(C_a, C_e))``, or ``(False, lb)`` as soon as a bound ``lb <= dist`` proves
    ``dist >= lim`` and ``dist > lim_strict`` (the caller then ignores e).

    The union cost is summed over attributes in their natural order, exactly as the exact
    distance is, and every term is >= 0 (LM, and EM clamped at 0), so each prefix sum is <= the
    full sum in floating point too (rounding is monotone): the bound from a prefix never
    exceeds the distance it stands for, bit for bit. This keeps every comparison -- ties
    included -- identical to evaluating every distance in full. Without the closure-cost
    table (huge domains) the distance is computed in full by ancestor walks.
    """
    if ctab.shape[1] == 0:
        return True, _walk_dist(a, e, clo, chi, size, dc, anc, nlo, nhi, tree, m, measure, pn, ps)
    return _table_dist(a, e, clo, chi, size, dc, ctab, lim, lim_strict)


@njit(inline="always")
def _table_dist(a, e, clo, chi, size, dc, ctab, lim, lim_strict):
    """:func:`_merge_dist` with the closure-cost table."""
    r = clo.shape[1]
    w = size[a] + size[e]
    pa = size[a] * dc[a]
    pe = size[e] * dc[e]
    # cheap trigger: test the exact bound only once the prefix is (nearly) large enough
    sthr = (max(lim, lim_strict) + pa + pe) * r / w
    sthr = sthr - 1e-9 * (abs(sthr) + 1.0)
    s = 0.0
    for t in range(r):
        s += ctab[t, min(clo[a, t], clo[e, t]), max(chi[a, t], chi[e, t])]
        if s >= sthr:
            lb = w * (s / r) - pa - pe
            if lb >= lim and lb > lim_strict:
                return False, lb
    return True, w * (s / r) - pa - pe


@njit
def _hless(x, y, key):
    """Heap order: smaller key first, then the smaller cluster id (the old scan's tie rule)."""
    return key[x] < key[y] or (key[x] == key[y] and x < y)


@njit
def _hup(h, pos, key, i):
    x = h[i]
    while i > 0:
        p = (i - 1) >> 1
        y = h[p]
        if not _hless(x, y, key):
            break
        h[i] = y
        pos[y] = i
        i = p
    h[i] = x
    pos[x] = i
    return i


@njit
def _hdown(h, pos, key, i, hn):
    x = h[i]
    while True:
        c = 2 * i + 1
        if c >= hn:
            break
        if c + 1 < hn and _hless(h[c + 1], h[c], key):
            c += 1
        y = h[c]
        if not _hless(y, x, key):
            break
        h[i] = y
        pos[y] = i
        i = c
    h[i] = x
    pos[x] = i


@njit
def _hfix(h, pos, key, c, hn):
    """Cluster c's key changed: move it to its place."""
    _hdown(h, pos, key, _hup(h, pos, key, pos[c]), hn)


@njit
def _hremove(h, pos, key, c, hn):
    """Remove cluster c; returns the new heap size."""
    i = pos[c]
    hn -= 1
    pos[c] = -1
    if i < hn:
        h[i] = h[hn]
        pos[h[i]] = i
        _hdown(h, pos, key, _hup(h, pos, key, i), hn)
    return hn


@njit(parallel=True)
def _initial_nn(X, anc, nlo, nhi, tree, m, measure, pn, ps, nn, nnd):  # noqa: PLR0913
    n, r = X.shape
    for i in prange(n):
        tab = plus_table(X[i], X[i], anc, nlo, nhi, tree, m, measure, pn, ps)
        best = np.inf
        bj = -1
        for j in range(n):
            if j == i:
                continue
            s = 0.0
            ok = True
            for a in range(r):
                s += tab[a, X[j, a]]
                if 2.0 * s / r >= best:
                    ok = False
                    break
            if ok:
                best = 2.0 * s / r
                bj = j
        nn[i] = bj
        nnd[i] = best


@njit
def _agglo(X, k, anc, nlo, nhi, tree, m, measure, pn, ps, ctab):  # noqa: C901, PLR0912, PLR0913, PLR0915
    n, r = X.shape
    clo = X.copy()
    chi = X.copy()
    size = np.ones(n, dtype=np.int64)
    dc = np.zeros(n)  # d(C) per record
    active = np.ones(n, dtype=np.bool_)
    label = np.full(n, -1, dtype=np.int64)  # cluster representative of each record
    for i in range(n):
        label[i] = i
    nn = np.full(n, -1, dtype=np.int64)
    nnd = np.full(n, np.inf)
    if k <= 1:
        return label
    # initial nearest neighbours of singletons: dist = 2 d({i, j}) (tables + branch and bound)
    _initial_nn(X, anc, nlo, nhi, tree, m, measure, pn, ps, nn, nnd)
    alist = np.arange(n)  # ascending ids of the clusters that may be active (compacted lazily)
    na = n
    n_active = n
    ver = np.zeros(n, dtype=np.int64)  # bumped when a cluster changes
    nnver = np.zeros(n, dtype=np.int64)  # version of nn[c] when nnd[c] was computed
    parent = np.arange(n)
    # min-heap of the active clusters by (nnd, id): its top is what a scan for the smallest
    # nnd, lowest id first, would pick
    h = np.arange(n)
    pos = np.arange(n)
    hn = n
    for i in range(n // 2 - 1, -1, -1):
        _hdown(h, pos, nnd, i, hn)
    while n_active >= 2:
        # lazy refresh: a stale entry (its neighbour merged since) is a lower bound of the
        # true nearest distance (every cluster created later was compared at creation), so
        # refreshing the minimum until it is fresh yields the exact closest pair.
        a = -1
        while hn > 0:
            a = h[0]
            e0 = nn[a]
            if e0 >= 0 and active[e0] and nnver[a] == ver[e0]:
                break
            best = np.inf
            bj = -1
            for t in range(na):  # first e (ascending id) at the smallest distance
                e = alist[t]
                if e == a or not active[e]:
                    continue
                ok, dd = _merge_dist(a, e, clo, chi, size, dc, ctab, anc, nlo, nhi, tree, m, measure, pn, ps, best, -np.inf)
                if ok and dd < best:
                    best = dd
                    bj = e
            nn[a] = bj
            nnd[a] = best
            nnver[a] = ver[bj] if bj >= 0 else 0
            _hfix(h, pos, nnd, a, hn)
        if hn == 0:
            break
        b = nn[a]
        if b < 0:
            break
        # merge b into a
        for t in range(r):
            l2, h2 = _close(t, min(clo[a, t], clo[b, t]), max(chi[a, t], chi[b, t]), anc, nlo, nhi, tree)
            clo[a, t] = l2
            chi[a, t] = h2
        size[a] += size[b]
        dc[a] = 0.0
        for t in range(r):
            dc[a] += _fcost(t, clo[a, t], chi[a, t], m, measure, pn, ps)
        dc[a] /= r
        active[b] = False
        hn = _hremove(h, pos, nnd, b, hn)
        ver[a] += 1
        ver[b] += 1
        parent[b] = a
        n_active -= 1
        if size[a] >= k:
            active[a] = False
            hn = _hremove(h, pos, nnd, a, hn)
            n_active -= 1
        if 4 * n_active < 3 * na:
            c = 0
            for t in range(na):
                if active[alist[t]]:
                    alist[c] = alist[t]
                    c += 1
            na = c
        if not active[a]:
            continue
        # distances from the new cluster: its own nearest, and every e it is now nearest to
        best = np.inf
        bj = -1
        for t in range(na):
            e = alist[t]
            if e == a or not active[e]:
                continue
            ok, dd = _merge_dist(a, e, clo, chi, size, dc, ctab, anc, nlo, nhi, tree, m, measure, pn, ps, best, nnd[e])
            if not ok:
                continue
            if dd < best:
                best = dd
                bj = e
            if dd < nnd[e] or (dd == nnd[e] and a < nn[e]):
                nnd[e] = dd
                nn[e] = a
                nnver[e] = ver[a]
                _hfix(h, pos, nnd, e, hn)
        nn[a] = bj
        nnd[a] = best
        nnver[a] = ver[bj] if bj >= 0 else 0
        _hfix(h, pos, nnd, a, hn)
    for i in range(n):
        x = i
        while parent[x] != x:
            x = parent[x]
        label[i] = x
    # leftover records (in the last active cluster, size < k) join their closest output cluster
    for c in range(n):
        if active[c] and size[c] < k:
            for y in range(n):
                if label[y] != c:
                    continue
                best = np.inf
                be = -1
                for e in range(n):
                    if e == c or active[e] or size[e] < k or label[e] != e:
                        continue
                    u = _union_cost(clo[e], chi[e], X[y], X[y], anc, nlo, nhi, tree, m, measure, pn, ps)
                    dd = (size[e] + 1) * u - size[e] * dc[e]
                    if dd < best:
                        best = dd
                        be = e
                label[y] = be
                for t in range(r):
                    l2, h2 = _close(t, min(clo[be, t], X[y, t]), max(chi[be, t], X[y, t]), anc, nlo, nhi, tree)
                    clo[be, t] = l2
                    chi[be, t] = h2
                size[be] += 1
                dc[be] = 0.0
                for t in range(r):
                    dc[be] += _fcost(t, clo[be, t], chi[be, t], m, measure, pn, ps)
                dc[be] /= r
    return label


def _compact(label: np.ndarray) -> np.ndarray:
    _, inv = np.unique(label, return_inverse=True)
    return inv.ravel().astype(np.int64)


def agglomerative_clusters(problem: Problem, k: int) -> np.ndarray:
    """Cluster labels of the agglomerative algorithm (every cluster has >= k records).

    O(n^2 r) for the initial nearest neighbours (branch-and-bound, parallel over records)
    plus one O(n) pass per merge and per nearest-neighbour refresh (numba, sequential). In a
    pass, each distance is summed attribute by attribute from :meth:`Problem.closure_cost_table`
    and abandoned as soon as the partial sum proves it cannot matter (not below the pass's
    best so far, nor below the other cluster's current nearest distance); the closest pair
    is the top of a heap keyed by (nearest distance, cluster id). Both are exact in floating
    point, so the clustering is the one of evaluating every distance in full (the kernel
    before #13 item 6, frozen in ``tests/_agglo_reference.py``). Ties: the lowest
    cluster index.
    """
    if k > problem.n:
        raise InvalidParameterError(f"k={k} exceeds the number of rows ({problem.n}) in the table.")
    return _compact(_agglo(problem.X, int(k), *problem.args, problem.closure_cost_table()))


# ---------------------------------------------------------------------------- forest
@njit
def _find(par, x):
    while par[x] != x:
        par[x] = par[par[x]]
        x = par[x]
    return x


@njit
def _forest(idx, k):
    """FOREST (Gionis & Tassa §6.4): out-edge of each sink of a small component to its
    nearest neighbour outside the component. Returns ``out`` (-1 = none)."""
    n = idx.shape[0]
    par = np.arange(n)
    size = np.ones(n, dtype=np.int64)
    sink = np.arange(n)
    out = np.full(n, -1, dtype=np.int64)
    for i in range(n):
        while True:
            T = _find(par, i)
            if size[T] >= k:
                break
            R = sink[T]
            target = -1
            for t in range(idx.shape[1]):
                j = idx[R, t]
                if _find(par, j) != T:
                    target = j
                    break
            out[R] = target
            U = _find(par, target)
            # merge T into U; the sink of the union is U's sink
            par[T] = U
            size[U] += size[T]
    return out


def decompose_forest(out: np.ndarray, k: int) -> np.ndarray:
    """Split every tree of the forest with more than ``L = max(2k-1, 3k-3)`` records into
    trees with sizes in ``[k, L]``. Gionis & Tassa (§6.4.2) delegate this step to Aggarwal et
    al.'s DECOMPOSE-COMPONENT (their §4.2, ``L = max(2k-1, 3k-5)``), which the paper does not
    spell out; this single post-order pass with Steiner copies is ktype's own and bounds
    the sizes by ``3k-3`` instead.

    At each node x (post-order) the pending parts of its children (each < k) are batched
    in order; every batch reaching k records becomes a cluster hung on a Steiner copy of
    x (size <= 2k-2). The rest plus x itself is passed up (<= k; exactly k is emitted as a
    cluster). At the root the remainder (< k) joins a cluster adjacent to it (<= 3k-3).
    Every forest edge ends in exactly one final tree, so ``Σ w(T_C) = w(F)``.
    Returns cluster labels.
    """
    n = len(out)
    L = max(2 * k - 1, 3 * k - 3)
    has = out >= 0
    # components of the forest (undirected)
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    rows = np.flatnonzero(has)
    A = csr_matrix((np.ones(len(rows)), (rows, out[rows])), shape=(n, n))
    nc, comp = connected_components(A, directed=False)
    label = comp.astype(np.int64).copy()
    sizes = np.bincount(comp, minlength=nc)
    big = np.flatnonzero(sizes > L)
    if len(big) == 0:
        return label
    next_label = nc
    # children lists from the directed forest (the root of each tree is its sink)
    order = np.argsort(out, kind="stable")
    so = out[order]
    starts = np.searchsorted(so, np.arange(n))
    ends = np.searchsorted(so, np.arange(n), side="right")
    for c in big:  # loop over oversized trees (graph algorithm over tree nodes)
        members = np.flatnonzero(comp == c)
        root = int(members[~has[members]][0])
        # iterative post-order
        post: list[int] = []
        stack = [root]
        while stack:
            x = stack.pop()
            post.append(x)
            stack.extend(order[starts[x] : ends[x]].tolist())
        post.reverse()
        pend: dict[int, list[int]] = {}
        adj: dict[int, int] = {}  # a cluster adjacent to the pending part of x, or -1
        for x in post:
            batch: list[int] = []
            rest: list[int] = []
            adj_x = -1
            for ch in order[starts[x] : ends[x]].tolist():
                part = pend.pop(ch)
                a_ch = adj.pop(ch)
                if not part:
                    adj_x = a_ch if a_ch >= 0 else adj_x
                    continue
                batch.extend(part)
                if a_ch >= 0:
                    adj_x = a_ch
                if len(batch) >= k:
                    label[batch] = next_label
                    adj_x = next_label
                    next_label += 1
                    batch = []
            rest = batch + [x]
            if len(rest) >= k:
                label[rest] = next_label
                adj_x = next_label
                next_label += 1
                rest = []
            pend[x] = rest
            adj[x] = adj_x
        left = pend.pop(root)
        a_root = adj.pop(root)
        if left:
            label[left] = a_root
    return _compact(label)


def forest_clusters(problem: Problem, k: int) -> np.ndarray:
    """Cluster labels of FOREST + decomposition (Aggarwal et al.; Gionis & Tassa Alg. B).

    O(n^2 r) for the (k-1)-nearest-neighbour lists (numba, O(n k) memory), O(n α(n)) for
    FOREST (union-find) and O(n) for the decomposition.
    """
    n = problem.n
    if k > n:
        raise InvalidParameterError(f"k={k} exceeds the number of rows ({n}) in the table.")
    if k == 1:
        return np.arange(n, dtype=np.int64)
    idx, _ = pair_knn(problem.X, k - 1, *problem.args)
    out = _forest(idx, int(k))
    return decompose_forest(out, k)


# ---------------------------------------------------------------------------- boxes
@njit
def _cluster_boxes(X, lab, nc, anc, nlo, nhi, tree):
    n, r = X.shape
    lo = np.full((nc, r), 1 << 30, dtype=np.int32)
    hi = np.full((nc, r), -1, dtype=np.int32)
    for i in range(n):
        c = lab[i]
        for a in range(r):
            if X[i, a] < lo[c, a]:
                lo[c, a] = X[i, a]
            if X[i, a] > hi[c, a]:
                hi[c, a] = X[i, a]
    for c in range(nc):
        for a in range(r):
            l2, h2 = _close(a, lo[c, a], hi[c, a], anc, nlo, nhi, tree)
            lo[c, a] = l2
            hi[c, a] = h2
    return lo, hi


def cluster_boxes(problem: Problem, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per record, the closure of its cluster: ``(LO, HI)`` of shape (n, r).

    ``labels`` holds one non-negative integer cluster id per record; ids need not be
    contiguous (gaps are compacted first: an id with no record has no box). Anything else
    raises :class:`~ktype.exceptions.InvalidParameterError` (the compiled kernel indexes by
    label and must never see one out of range).
    """
    labels = np.asarray(labels)
    if labels.shape != (problem.n,):
        raise InvalidParameterError(f"cluster_boxes needs one cluster label per record, shape ({problem.n},); "
                                    f"got shape {labels.shape}.")
    if len(labels) and not np.issubdtype(labels.dtype, np.integer):
        raise InvalidParameterError(f"Cluster labels must be integers; got dtype {labels.dtype}.")
    labels = labels.astype(np.int64)
    if len(labels) and labels.min() < 0:
        raise InvalidParameterError(f"Cluster labels must be non-negative; got {int(labels.min())}.")
    nc = int(labels.max()) + 1 if len(labels) else 0
    if nc > len(labels) or (nc and not np.bincount(labels, minlength=nc).all()):
        labels = _compact(labels)  # gaps: empty clusters would have no box
        nc = int(labels.max()) + 1
    lo, hi = _cluster_boxes(problem.X, labels, nc, problem.anc, problem.nlo, problem.nhi, problem.tree)
    return lo[labels], hi[labels]


# ---------------------------------------------------------------------------- Algorithm 8
def l_diverse_merge(problem: Problem, labels: np.ndarray, s: np.ndarray, l: float, *, w: float = 0.15) -> np.ndarray:  # noqa: E741
    """Algorithm 8 (Appendix C): coarsen a clustering until every cluster is ℓ-diverse.

    ``div(C) = |C| / f_max(C)`` (Def. 14; exact rational test with ``l`` read as a
    fraction). Repeatedly the least diverse cluster ``C_m`` is merged with the cluster
    minimizing ``w·cost_I + (1-w)·cost_D`` where ``cost_I`` is the increase of the average
    loss ``(|C∪C_m| d(C∪C_m) - |C| d(C) - |C_m| d(C_m)) / n`` and
    ``cost_D = max(ℓ - div(C ∪ C_m), 0)`` (Eq. 9). Clusters only grow, so k-anonymity is
    kept. The union's diversity is at least the mediant of the two,
    ``(|A|+|B|) / (f_A+f_B) >= min(div A, div B)`` (Appendix C calls it a convex combination).

    Raises
    ------
    InfeasibleError
        If the whole table's diversity ``n / f_max`` is below ``l``.
    """
    from .._rules import all_ok, frequency_rule, pack, verdicts

    s = np.asarray(s, dtype=np.int64)
    labels = _compact(np.asarray(labels, dtype=np.int64))
    n = problem.n
    rules = pack([frequency_rule(l)])
    nv = int(s.max()) + 1
    tot = np.bincount(s, minlength=nv).astype(np.int64)
    if not all_ok(rules, tot, n):
        raise InfeasibleError(
            f"l={l} exceeds the diversity of the whole table (n / f_max = {n}/{tot.max()} = {n / tot.max():.4g}); "
            "no clustering can be l-diverse."
        )
    nc = int(labels.max()) + 1
    hist = np.zeros((nc, nv), dtype=np.int64)
    np.add.at(hist, (labels, s), 1)
    size = hist.sum(axis=1)
    lo, hi = _cluster_boxes(problem.X, labels, nc, problem.anc, problem.nlo, problem.nhi, problem.tree)
    dcost = problem.record_costs(lo, hi)
    alive = np.ones(nc, dtype=bool)
    parent = np.arange(nc)
    while True:
        f = hist.max(axis=1)
        bad = alive & ~verdicts(rules, hist, size)
        if not bad.any():
            break
        div = np.where(alive, size / np.maximum(f, 1), np.inf)
        cm = int(np.argmin(div))
        others = np.flatnonzero(alive & (np.arange(nc) != cm))
        ulo = np.minimum(lo[others], lo[cm])
        uhi = np.maximum(hi[others], hi[cm])
        clo, chi = _close_rows(problem, ulo, uhi)
        ucost = problem.record_costs(clo, chi)
        usize = size[others] + size[cm]
        cost_i = (usize * ucost - size[others] * dcost[others] - size[cm] * dcost[cm]) / n
        uh = hist[others] + hist[cm]
        cost_d = np.maximum(l - usize / uh.max(axis=1), 0.0)
        tot_cost = w * cost_i + (1 - w) * cost_d
        b = int(np.argmin(tot_cost))
        ci = int(others[b])
        hist[ci] += hist[cm]
        size[ci] += size[cm]
        lo[ci], hi[ci] = clo[b], chi[b]
        dcost[ci] = ucost[b]
        alive[cm] = False
        size[cm] = 0
        hist[cm] = 0
        parent[cm] = ci
    # resolve merged labels
    root = parent.copy()
    for _ in range(nc):  # pointer jumping, at most log steps in practice
        nxt = root[root]
        if (nxt == root).all():
            break
        root = nxt
    return _compact(root[labels])


def _close_rows(problem: Problem, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    lo = np.ascontiguousarray(lo, dtype=np.int32).copy()
    hi = np.ascontiguousarray(hi, dtype=np.int32).copy()
    _close_many(lo, hi, problem.anc, problem.nlo, problem.nhi, problem.tree)
    return lo, hi


@njit
def _close_many(lo, hi, anc, nlo, nhi, tree):
    for i in range(lo.shape[0]):
        for a in range(lo.shape[1]):
            l2, h2 = _close(a, lo[i, a], hi[i, a], anc, nlo, nhi, tree)
            lo[i, a] = l2
            hi[i, a] = h2
