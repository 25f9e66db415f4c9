"""k-anonymity by cell suppression: the forest O(k)-approximation of Aggarwal et al.

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
* The k = 2 special case (1.5-approximation by a minimum-weight [1,2]-factor) is not
  implemented.
"""

from __future__ import annotations

import numpy as np

from .._grouping import lexsort_rows
from .._jit import njit
from ..data.dataset import Dataset
from ..models._base import PrivacyModel
from ..models.kanonymity import KAnonymity
from ..release import Release, _sort_codes
from ._registry import register

__all__ = ["cell_suppression", "forest_clusters"]


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
    constraints={},
    description="k-anonymity by cell suppression: Aggarwal et al.'s forest O(k)-approximation (cells -> *).",
    reference="Aggarwal et al., Anonymizing tables, ICDT 2005; survey §5 (_CS model)",
    combinable=False,
)
def cell_suppression(dataset: Dataset, models: tuple[PrivacyModel, ...]) -> Release:
    """Suppress the fewest cells the forest approximation finds (Aggarwal et al., ICDT 2005).

    Every record stays; in each cluster of at least k records, the quasi-identifiers on which
    the records disagree are published as ``*`` (the whole domain), the others unchanged.

    Returns
    -------
    Release
        ``provenance["objective"]`` is the number of suppressed cells (``objective_measure`` =
        ``"suppressed_cells"``); ``provenance["cell_suppression"]`` records the forest weight (a
        lower bound on the optimum), the clusters and the largest one.

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
    n, r = dataset.n, dataset.r
    cols = [dataset.X[:, j] for j in range(r)]
    cols += [np.asarray(dataset.sensitive_codes[c]) for c in dataset.sensitive]
    cols += [_sort_codes(dataset.data[c].to_numpy()) for c in dataset.insensitive]
    order = lexsort_rows(cols)
    lab_sorted, g, weight, limit = forest_clusters(dataset.X[order], k)
    label = np.empty(n, dtype=np.int64)
    label[order] = lab_sorted
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
    sizes = np.bincount(label, minlength=g)
    prov = {
        "objective": sup_cells,
        "objective_measure": "suppressed_cells",
        "cell_suppression": {"clusters": g, "largest_cluster": int(sizes.max()), "size_limit": limit,
                             "forest_weight": weight, "bound": int(sizes.max()) * weight},
    }
    return Release.build(dataset, lo, hi, recoding="local", provenance=prov, classes=label)
