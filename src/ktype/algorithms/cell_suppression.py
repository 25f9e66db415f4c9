"""k-anonymity by cell suppression: the forest O(k)-approximation of Aggarwal et al., its k = 2
special case, and Meyerson & Williams' set-cover approximation (``meyerson_williams``, see its
docstring).

Survey: Ciriani et al., "k-Anonymity" (Springer 2007), §5 ("Algorithms for _CS and CG_
models"), describing Aggarwal, Feder, Kenthapadi, Motwani, Panigrahy, Thomas & Zhu,
"Anonymizing tables", ICDT 2005 (the best known approximation for the _CS model, O(k n²)):

1. the complete graph over the records, an edge weighing the number of quasi-identifiers on
   which its two records differ (Hamming distance);
2. a forest whose trees have at least k vertices: while some tree has fewer than k vertices,
   the lightest edge leaving it is added;
3. trees larger than the limit are decomposed into parts of at least k vertices without adding
   weight (the chapter: "attempts to limit the maximum number of nodes in a tree to be
   3k - 3"; here the limit is ``max(2k - 1, 3k - 5)`` of the original paper);
4. each part is a cluster: every quasi-identifier on which its records disagree is suppressed
   (published as ``*``) in all of them, so the cluster publishes one combination of values.

The cost is the number of suppressed cells (the chapter's sentence that the cost "is the cost
of the biggest partition" is read, as in the source paper, as a quality remark; the
objective is the total). A part costs at most its size times the weight of a tree spanning it,
so the total is at most the largest part's size times the forest's weight, which is at most
the optimum: an O(k)-approximation.

Deviations and choices, recorded:

* Decomposition (step 3): root the tree, take the deepest vertex u whose subtree has at least k
  vertices; cut u from its parent when both sides keep k vertices; otherwise group u's child
  subtrees (each smaller than k, largest first, else smallest first) into a cluster of at least
  k vertices, u staying with the rest (u joins the group's subtrees as a Steiner point, so no
  edge weight is counted twice). A tree where neither is possible keeps its size.
* Ties (equal weights) go to the lowest pair of records in a canonical order by content, so the
  clusters do not depend on the input row order.

The k = 2 special case (``clustering="cycle_cover"``; survey §5, "1.5-approximation for
2-anonymity", from Aggarwal et al.): the chapter clusters the components of a minimum-weight
[1,2]-factor of the graph (a spanning subgraph whose vertices have degree 1 or 2: paths and
cycles). Computing that factor needs a general (non-bipartite) weighted matching. ktype
computes instead a minimum-weight **cycle cover** of the complete directed graph — a
permutation without fixed points, by the assignment problem (``scipy.optimize.
linear_sum_assignment``, O(n³)) — a directed 2-cycle being a pair of records. Its weight W is
also a lower bound on the optimum: an optimal solution can be taken with clusters of 2 or 3
records (splitting a larger cluster never adds suppressed cells), a pair costing 2·d = the
weight of its 2-cycle and a triple disagreeing on D attributes costing 3·D ≥ the weight of its
3-cycle. Each cycle is then cut into clusters of 2 or 3 consecutive records: a 2- or 3-cycle
is one cluster (a 3-cycle disagreeing on D attributes weighs at least 2·D: cost ≤ 1.5 × its
weight); an even cycle is split by the lighter of its two perfect matchings (cost ≤ its
weight); an odd cycle of m ≥ 5 records into one triple and pairs, at the rotation of least
cost (the average over the m rotations is at most (m + 3)/m × its weight). **Deviation,
recorded**: the guarantee is therefore 8/5 (1.6, reached only by 5-cycles), not the chapter's
1.5; ``provenance["cell_suppression"]`` records W and the certified factor ``objective / W``.
The n × n distance matrix limits this method to :data:`CYCLE_COVER_MAX_ROWS` records.
"""

from __future__ import annotations

import numpy as np

from .._jit import njit
from .._validation import Options
from ..data.dataset import Dataset
from ..exceptions import InvalidParameterError
from ..models._base import PrivacyModel
from ..models.kanonymity import KAnonymity
from ..release import Release
from ._order import content_order
from ._registry import register

__all__ = ["cell_suppression", "meyerson_williams", "forest_clusters", "cycle_cover_clusters", "CYCLE_COVER_MAX_ROWS"]

#: the k = 2 method holds an n × n distance matrix (and scipy's float copy of it)
CYCLE_COVER_MAX_ROWS = 4000


@njit
def _forest(X, k):
    """Step 2: edges (u, v, w) of a forest whose trees have at least k vertices (rows of X in
    canonical order); the lightest edge leaving the first too-small tree, ties by (u, v)."""
    n, r = X.shape
    comp = np.arange(n)
    size = np.ones(n, dtype=np.int64)
    nxt = np.full(n, -1, dtype=np.int64)  # members of a component: a linked list from its label
    tail = np.arange(n)
    eu = np.empty(max(n - 1, 1), dtype=np.int64)
    ev = np.empty(max(n - 1, 1), dtype=np.int64)
    ew = np.empty(max(n - 1, 1), dtype=np.int64)
    m = 0
    for i in range(n):
        while size[comp[i]] < k:
            c = comp[i]
            bw = r + 1
            bu = -1
            bv = -1
            u = c
            while u >= 0:
                for v in range(n):
                    if comp[v] == c:
                        continue
                    w = 0
                    for j in range(r):
                        if X[u, j] != X[v, j]:
                            w += 1
                    if w < bw or (w == bw and (u < bu or (u == bu and v < bv))):
                        bw = w
                        bu = u
                        bv = v
                u = nxt[u]
            eu[m] = bu
            ev[m] = bv
            ew[m] = bw
            m += 1
            a, b = comp[bu], comp[bv]
            if size[a] < size[b]:  # relabel the smaller component
                a, b = b, a
            t = b
            while t >= 0:
                comp[t] = a
                t = nxt[t]
            nxt[tail[a]] = b
            tail[a] = tail[b]
            size[a] += size[b]
    return eu[:m], ev[:m], ew[:m], comp


@njit
def _decompose(n, eu, ev, k, limit):  # noqa: C901, PLR0912, PLR0915
    """Step 3: a cluster label per vertex; parts of at least k vertices, at most ``limit`` where
    the tree allows it."""
    m = len(eu)
    deg = np.zeros(n + 1, dtype=np.int64)
    for e in range(m):
        deg[eu[e] + 1] += 1
        deg[ev[e] + 1] += 1
    ptr = np.cumsum(deg)
    adj = np.empty(2 * m, dtype=np.int64)
    aid = np.empty(2 * m, dtype=np.int64)
    fill = ptr[:-1].copy()
    for e in range(m):
        adj[fill[eu[e]]] = ev[e]
        aid[fill[eu[e]]] = e
        fill[eu[e]] += 1
        adj[fill[ev[e]]] = eu[e]
        aid[fill[ev[e]]] = e
        fill[ev[e]] += 1
    cut = np.zeros(max(m, 1), dtype=np.bool_)
    active = np.ones(n, dtype=np.bool_)
    label = np.full(n, -1, dtype=np.int64)
    g = 0
    seeds = np.empty(n + 2 * m + 2, dtype=np.int64)
    top = 0
    for i in range(n - 1, -1, -1):
        seeds[top] = i
        top += 1
    order = np.empty(n, dtype=np.int64)
    parent = np.full(n, -1, dtype=np.int64)
    pedge = np.full(n, -1, dtype=np.int64)
    sub = np.zeros(n, dtype=np.int64)
    while top > 0:
        top -= 1
        s = seeds[top]
        if not active[s] or label[s] >= 0:
            continue
        # the component of s (BFS over active vertices and uncut edges)
        order[0] = s
        parent[s] = -1
        pedge[s] = -1
        cnt = 1
        h = 0
        while h < cnt:
            x = order[h]
            h += 1
            for t in range(ptr[x], ptr[x + 1]):
                y = adj[t]
                if cut[aid[t]] or not active[y] or y == parent[x]:
                    continue
                parent[y] = x
                pedge[y] = aid[t]
                order[cnt] = y
                cnt += 1
        if cnt <= limit:
            for t in range(cnt):
                label[order[t]] = g
            g += 1
            continue
        for t in range(cnt):
            sub[order[t]] = 1
        for t in range(cnt - 1, 0, -1):
            sub[parent[order[t]]] += sub[order[t]]
        u = s
        for t in range(cnt - 1, -1, -1):  # the deepest vertex whose subtree holds k vertices
            if sub[order[t]] >= k:
                u = order[t]
                break
        if u != s and cnt - sub[u] >= k:  # case A: cut u from its parent
            cut[pedge[u]] = True
            seeds[top] = s
            seeds[top + 1] = u
            top += 2
            continue
        # case B: group child subtrees of u (each < k) into a cluster of >= k vertices
        nch = 0
        for t in range(ptr[u], ptr[u + 1]):
            y = adj[t]
            if not cut[aid[t]] and active[y] and parent[y] == u:
                nch += 1
        kids = np.empty(nch, dtype=np.int64)
        ksz = np.empty(nch, dtype=np.int64)
        c = 0
        for t in range(ptr[u], ptr[u + 1]):
            y = adj[t]
            if not cut[aid[t]] and active[y] and parent[y] == u:
                kids[c] = y
                ksz[c] = sub[y]
                c += 1
        done = False
        for direction in range(2):  # largest subtrees first, then smallest first
            o = np.argsort(-ksz if direction == 0 else ksz, kind="mergesort")
            acc = 0
            take = 0
            while take < nch and acc < k:
                acc += ksz[o[take]]
                take += 1
            if acc >= k and cnt - acc >= k:
                for q in range(take):
                    y = kids[o[q]]
                    cut[pedge[y]] = True
                    # label y's subtree (its BFS descendants) as one cluster
                    stack_n = 1
                    seeds_local = np.empty(sub[y], dtype=np.int64)
                    seeds_local[0] = y
                    while stack_n > 0:
                        stack_n -= 1
                        x = seeds_local[stack_n]
                        label[x] = g
                        active[x] = False
                        for t in range(ptr[x], ptr[x + 1]):
                            z = adj[t]
                            if not cut[aid[t]] and active[z] and parent[z] == x:
                                seeds_local[stack_n] = z
                                stack_n += 1
                g += 1
                seeds[top] = s
                top += 1
                done = True
                break
        if not done:  # cannot be split: one cluster
            for t in range(cnt):
                label[order[t]] = g
            g += 1
    return label, g


@njit
def _split_cycles(X, perm, D):  # noqa: C901, PLR0912
    """Cut every cycle of ``perm`` into clusters of 2 or 3 consecutive records (see the module
    docstring): a label per record and the number of clusters. D: Hamming distances."""
    n, r = X.shape
    label = np.full(n, -1, dtype=np.int64)
    g = 0
    cyc = np.empty(n, dtype=np.int64)
    for s0 in range(n):
        if label[s0] >= 0:
            continue
        m = 0
        v = s0
        while True:
            cyc[m] = v
            m += 1
            label[v] = -2
            v = perm[v]
            if v == s0:
                break
        if m <= 3:
            for t in range(m):
                label[cyc[t]] = g
            g += 1
            continue
        if m % 2 == 0:  # the lighter of the two perfect matchings of the cycle
            w0 = 0
            w1 = 0
            for t in range(0, m, 2):
                w0 += D[cyc[t], cyc[t + 1]]
                w1 += D[cyc[t + 1], cyc[(t + 2) % m]]
            start = 0 if w0 <= w1 else 1
            for t in range(0, m, 2):
                label[cyc[(start + t) % m]] = g
                label[cyc[(start + t + 1) % m]] = g
                g += 1
            continue
        best = -1
        best_cost = 0
        for s in range(m):  # odd: a triple at s, pairs after it; the rotation of least cost
            a, b, c = cyc[s], cyc[(s + 1) % m], cyc[(s + 2) % m]
            dis = 0
            for j in range(r):
                if X[a, j] != X[b, j] or X[a, j] != X[c, j]:
                    dis += 1
            cost = 3 * dis
            for t in range(3, m, 2):
                cost += 2 * D[cyc[(s + t) % m], cyc[(s + t + 1) % m]]
            if best < 0 or cost < best_cost:
                best = s
                best_cost = cost
        for t in range(3):
            label[cyc[(best + t) % m]] = g
        g += 1
        for t in range(3, m, 2):
            label[cyc[(best + t) % m]] = g
            label[cyc[(best + t + 1) % m]] = g
            g += 1
    return label, g


def cycle_cover_clusters(X: np.ndarray) -> tuple[np.ndarray, int, int]:
    """Clusters of 2 or 3 rows of ``X`` (integer codes, canonical order, at least 2 rows) from
    a minimum-weight cycle cover: labels, number of clusters and the cover's weight W (a lower
    bound on the fewest suppressed cells of any 2-anonymous suppression)."""
    from scipy.optimize import linear_sum_assignment

    X = np.ascontiguousarray(X, dtype=np.int64)
    n, r = X.shape
    D = np.zeros((n, n), dtype=np.int64)
    for j in range(r):  # columns, not rows
        D += X[:, j][:, None] != X[None, :, j]
    C = D.copy()
    C[np.diag_indices(n)] = (r + 1) * n + 1  # no fixed points
    rows, perm = linear_sum_assignment(C)
    weight = int(D[rows, perm].sum())
    label, g = _split_cycles(X, perm.astype(np.int64), D)
    return label, int(g), weight


def forest_clusters(X: np.ndarray, k: int) -> tuple[np.ndarray, int, int, int]:
    """Clusters of the rows of ``X`` (integer codes, canonical order): labels, number of
    clusters, forest weight and the size limit used."""
    X = np.ascontiguousarray(X, dtype=np.int64)
    n = len(X)
    eu, ev, ew, _ = _forest(X, int(k))
    limit = max(2 * k - 1, 3 * k - 5, 1)
    label, g = _decompose(n, eu, ev, int(k), int(limit))
    return label, int(g), int(ew.sum()), limit


@register(
    "cell_suppression",
    models=(KAnonymity,),
    recoding="local",
    optimal=False,
    randomized=False,
    order_invariant=True,
    constraints={"clustering": [Options(("forest", "cycle_cover"))]},
    description="k-anonymity by cell suppression: Aggarwal et al.'s forest O(k)-approximation (cells -> *).",
    reference="Aggarwal et al., Anonymizing tables, ICDT 2005; survey §5 (_CS model)",
    combinable=False,
)
def cell_suppression(dataset: Dataset, models: tuple[PrivacyModel, ...], *, clustering: str = "forest") -> Release:
    """Suppress the fewest cells the forest approximation finds (Aggarwal et al., ICDT 2005).

    Every record stays; in each cluster of at least k records, the quasi-identifiers on which
    the records disagree are published as ``*`` (the whole domain), the others unchanged.

    Parameters
    ----------
    clustering : {"forest", "cycle_cover"}
        ``"forest"``: the O(k)-approximation, any k. ``"cycle_cover"``: the k = 2 special case,
        clusters of 2 or 3 records from a minimum-weight cycle cover, within 8/5 of the optimum
        (k = 1 publishes the table unchanged; at most :data:`CYCLE_COVER_MAX_ROWS` rows).

    Returns
    -------
    Release
        ``provenance["objective"]`` is the number of suppressed cells (``objective_measure`` =
        ``"suppressed_cells"``); ``provenance["cell_suppression"]`` records the forest weight (a
        lower bound on the optimum), the clusters and the largest one; with
        ``clustering="cycle_cover"``, the cover's weight ``lower_bound`` and ``certified_factor``
        (objective / lower bound, at most 1.6).

    Examples
    --------
    >>> import ktype
    >>> from ktype.models.kanonymity import KAnonymity
    >>> ds = ktype.load_adult(n=200, quasi_identifiers=["sex", "race", "education"])
    >>> rel = ktype.algorithms.run("cell_suppression", ds, KAnonymity(3))
    >>> rel.provenance["objective"] <= rel.provenance["cell_suppression"]["bound"]
    True
    """
    k = int(models[0].k)  # type: ignore[attr-defined]
    order = content_order(dataset)
    if clustering == "cycle_cover":
        return _cycle_cover_release(dataset, k, order)
    lab_sorted, g, weight, limit = forest_clusters(dataset.X[order], k)
    return _clustered_release(dataset, _unsorted(lab_sorted, order), g, lambda sup_cells, largest: {
        "clusters": g, "largest_cluster": largest, "size_limit": limit, "forest_weight": weight,
        "bound": largest * weight})


def _cycle_cover_release(dataset: Dataset, k: int, order: np.ndarray) -> Release:
    n = dataset.n
    if k > 2:
        raise InvalidParameterError(f"cell_suppression: clustering='cycle_cover' is Aggarwal et al.'s algorithm for k = 2; "
                                    f"got k={k}. Use clustering='forest' for k >= 3.")
    if k > 1 and n > CYCLE_COVER_MAX_ROWS:
        raise InvalidParameterError(f"cell_suppression: clustering='cycle_cover' holds an n x n distance matrix and accepts "
                                    f"at most {CYCLE_COVER_MAX_ROWS} rows; the table has {n}. Use clustering='forest' or "
                                    f"a sample.")
    if k == 1:
        label, g, weight = np.arange(n, dtype=np.int64), n, 0
    else:
        lab_sorted, g, weight = cycle_cover_clusters(dataset.X[order])
        label = _unsorted(lab_sorted, order)
    return _clustered_release(dataset, label, g, lambda sup_cells, largest: {
        "method": "cycle_cover", "clusters": g, "largest_cluster": largest, "lower_bound": weight,
        "certified_factor": sup_cells / weight if weight else 1.0})


def _unsorted(lab_sorted: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Cluster labels of the records in input positions, from labels in ``order``."""
    label = np.empty(len(order), dtype=np.int64)
    label[order] = lab_sorted
    return label


def _clustered_release(dataset: Dataset, label: np.ndarray, g: int, info) -> Release:
    """The release of clusters ``label`` (``g`` of them): every QI on which a cluster's records
    disagree suppressed; ``info(suppressed_cells, largest_cluster)`` gives the method's
    provenance entry."""
    lo, hi, sup_cells = _suppress(dataset, label, g)
    largest = int(np.bincount(label, minlength=g).max())
    prov = {"objective": sup_cells, "objective_measure": "suppressed_cells",
            "cell_suppression": info(sup_cells, largest)}
    return Release.build(dataset, lo, hi, recoding="local", provenance=prov, classes=label)


def _suppress(dataset: Dataset, label: np.ndarray, g: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Per cluster, every QI on which its records disagree becomes ``*``: (lo, hi, cells)."""
    r = dataset.r
    lo = dataset.X.astype(np.int32).copy()
    hi = lo.copy()
    sup_cells = 0
    for j in range(r):  # columns, not rows
        x = dataset.X[:, j].astype(np.int64)
        cmin = np.full(g, np.iinfo(np.int64).max)
        cmax = np.full(g, -1)
        np.minimum.at(cmin, label, x)
        np.maximum.at(cmax, label, x)
        differ = (cmin != cmax)[label]
        lo[differ, j] = 0
        hi[differ, j] = dataset.domain_sizes[j] - 1
        sup_cells += int(differ.sum())
    return lo, hi, sup_cells


@register(
    "meyerson_williams",
    models=(KAnonymity,),
    recoding="local",
    optimal=False,
    randomized=False,
    order_invariant=True,
    constraints={"method": [Options(("auto", "subsets", "boxes"))]},
    description="k-anonymity by cell suppression: Meyerson & Williams' set-cover approximation (cells -> *).",
    reference="Meyerson & Williams, On the complexity of optimal k-anonymity, PODS 2004; Gionis & Tassa, TKDE 2009, "
              "§6.2-6.3; survey §5 (_CS model)",
    combinable=False,
)
def meyerson_williams(dataset: Dataset, models: tuple[PrivacyModel, ...], *, method: str = "auto") -> Release:
    """Fewest suppressed cells by Meyerson & Williams' set-cover approach (PODS 2004).

    Every set of k..2k-1 records is a candidate cluster; a greedy weighted set cover chooses
    clusters, and the cover is turned into a partition whose clusters suppress every QI they
    disagree on. The survey states Meyerson & Williams' O(k log k) factor in O(n^{2k}) time but
    not the cover-to-partition step; ktype runs Gionis & Tassa's version of the same approach
    (TKDE 2009, Algorithm A: cover weights d(S), their Phase 2 partition), on the table's
    suppression-only view (each QI: its value or ``*``), where d(S) is the number of QIs S
    disagrees on and the suppressed cells are at most ``2(1 + ln 2k)`` times the optimum
    (their Theorems 6.5-6.6; the suppression measure is monotone on the two-level hierarchy).

    Parameters
    ----------
    method : {"auto", "subsets", "boxes"}
        ``"subsets"``: the greedy over every set of k..2k-1 records (at most
        ``ktype.algorithms.local.gionis_tassa.MAX_SUBSETS`` of them); ``"boxes"``: the same
        greedy over the suppression patterns (value or ``*`` per QI) holding k records, at most
        ``MAX_BOXES`` patterns (Π (distinct values + 1)); ``"auto"``: subsets when they fit.

    Returns
    -------
    Release
        ``provenance["objective"]`` is the number of suppressed cells;
        ``provenance["cell_suppression"]`` the clusters, the largest and the factor.

    Examples
    --------
    >>> import ktype
    >>> from ktype.models.kanonymity import KAnonymity
    >>> ds = ktype.load_adult(n=300, quasi_identifiers=["sex", "race", "education"])
    >>> rel = ktype.algorithms.run("meyerson_williams", ds, KAnonymity(3))
    >>> rel.provenance["cell_suppression"]["largest_cluster"] <= 5
    True
    """
    import pandas as pd

    from ..data.hierarchy import Hierarchy
    from .local._core import Problem
    from .local.gionis_tassa import setcover_clusters

    k = int(models[0].k)  # type: ignore[attr-defined]
    n, r = dataset.n, dataset.r
    order = content_order(dataset)  # the clusters do not depend on the input order
    names = [f"q{j}" for j in range(r)]
    codes = pd.DataFrame({q: dataset.X[order, j].astype(str) for j, q in enumerate(names)})
    flat = Dataset(codes, quasi_identifiers=names,
                   hierarchies={q: Hierarchy.flat(sorted(set(codes[q])), name=q) for q in names})
    try:
        lab_sorted = setcover_clusters(Problem.from_dataset(flat, "loss_metric"), k, method=method)
    except InvalidParameterError as e:
        raise InvalidParameterError(str(e).replace("gt_setcover", "meyerson_williams").replace(
            "gt_forest", "cell_suppression")) from None
    label = np.empty(n, dtype=np.int64)
    label[order] = lab_sorted
    g = int(label.max()) + 1
    lo, hi, sup_cells = _suppress(dataset, label, g)
    sizes = np.bincount(label, minlength=g)
    prov = {
        "objective": sup_cells,
        "objective_measure": "suppressed_cells",
        "cell_suppression": {"method": "meyerson_williams", "clusters": g, "largest_cluster": int(sizes.max()),
                             "factor": 2 * (1 + float(np.log(2 * k)))},
    }
    return Release.build(dataset, lo, hi, recoding="local", provenance=prov, classes=label)
