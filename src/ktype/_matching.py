"""Maximum bipartite matching (Hopcroft & Karp 1973) in O(E·√V), compiled.

ktype needs perfect matchings in two places: the random decomposition of a freeform
generalization graph into k disjoint perfect matchings (Doka et al., ASIA CCS 2015, §2.2;
``ktype.algorithms.freeform._prep.random_decomposition``)
and the record-level consistency graph of the checkers (Algorithm 4 of Tassa et al.).
Both used ``scipy.sparse.csgraph.maximum_bipartite_matching``. Its depth-first phase never
marks a vertex whose subtree failed to reach a free column (scipy issue #26147, open as of
scipy 1.17), so its time is exponential in the depth of layered structures, and the graphs
that freeform generalization builds on few attributes are such structures: on 10,000 CENSUS
rows, d = 4, k = 30, one call did not return within 40 CPU minutes. This implementation keeps
a per-row edge pointer for the whole phase (each edge is tried at most once per phase, a
failed row is removed from the layering), which is what bounds a phase by O(E).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from ._jit import njit

__all__ = ["maximum_bipartite_matching"]


@njit
def _hopcroft_karp(indptr, indices, nr, nc):  # pragma: no cover - compiled
    """Column matched to each row (-1: unmatched) of a maximum matching of the CSR graph,
    the number of phases, and the work done (edges examined, BFS and DFS) for the tests."""
    big = np.iinfo(np.int64).max
    match_r = np.full(nr, -1, dtype=np.int64)
    match_c = np.full(nc, -1, dtype=np.int64)
    for u in range(nr):  # greedy start
        for p in range(indptr[u], indptr[u + 1]):
            v = indices[p]
            if match_c[v] < 0:
                match_r[u] = v
                match_c[v] = u
                break
    dist = np.empty(nr, dtype=np.int64)
    queue = np.empty(nr, dtype=np.int64)
    ptr = np.empty(nr, dtype=np.int64)
    rows = np.empty(nr + 1, dtype=np.int64)  # DFS stack: rows ...
    cols = np.empty(nr + 1, dtype=np.int64)  # ... and the column each took to the next row
    phases = 0
    work = 0
    while True:
        phases += 1
        # BFS: layers of rows from the free rows along alternating paths
        qt = 0
        for u in range(nr):
            if match_r[u] < 0:
                dist[u] = 0
                queue[qt] = u
                qt += 1
            else:
                dist[u] = big
        found = big  # length (in rows) of the shortest augmenting paths
        qh = 0
        while qh < qt:
            u = queue[qh]
            qh += 1
            if dist[u] + 1 >= found:
                continue
            for p in range(indptr[u], indptr[u + 1]):
                work += 1
                w = match_c[indices[p]]
                if w < 0:
                    found = dist[u] + 1
                elif dist[w] == big:
                    dist[w] = dist[u] + 1
                    queue[qt] = w
                    qt += 1
        if found == big:
            break
        # DFS: vertex-disjoint shortest augmenting paths; each edge tried at most once per phase
        for u in range(nr):
            ptr[u] = indptr[u]
        for s in range(nr):
            if match_r[s] >= 0 or dist[s] != 0:
                continue
            top = 0
            rows[0] = s
            while top >= 0:
                u = rows[top]
                pushed = False
                while ptr[u] < indptr[u + 1]:
                    v = indices[ptr[u]]
                    ptr[u] += 1
                    work += 1
                    w = match_c[v]
                    if w < 0:
                        if dist[u] + 1 == found:  # augment along the stack
                            cols[top] = v
                            for q in range(top, -1, -1):
                                x = rows[q]
                                match_r[x] = cols[q]
                                match_c[cols[q]] = x
                                dist[x] = big  # used in this phase
                            top = -1
                            pushed = True
                            break
                    elif dist[w] == dist[u] + 1:
                        cols[top] = v
                        top += 1
                        rows[top] = w
                        pushed = True
                        break
                if not pushed:  # dead end: never enter u again in this phase
                    dist[u] = big
                    top -= 1
    return match_r, phases, work


def maximum_bipartite_matching(graph: sparse.sparray | sparse.spmatrix) -> np.ndarray:
    """A maximum matching of the bipartite graph with biadjacency matrix ``graph``.

    Parameters
    ----------
    graph : sparse array, shape (rows, columns)
        Nonzero ``graph[i, j]`` = an edge between row ``i`` and column ``j`` (explicit zeros
        count as edges, as in scipy).

    Returns
    -------
    ndarray of int64, shape (rows,)
        The column matched to each row, ``-1`` where the row is unmatched (scipy's
        ``perm_type="column"`` convention).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> maximum_bipartite_matching(sparse.csr_array(np.array([[1, 1], [1, 0]]))).tolist()
    [1, 0]
    """
    g = sparse.csr_array(graph)
    nr, nc = g.shape
    return _hopcroft_karp(g.indptr.astype(np.int64), g.indices.astype(np.int64), nr, nc)[0]
