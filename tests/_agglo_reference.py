"""A frozen copy of the agglomerative clustering kernel of ktype before #13 item 6 (parallel
O(n) distance passes, linear scan for the closest pair), kept as the reference the faster
kernel in ``ktype.algorithms.local.clustering`` must reproduce label for label
(``test_local_agglo.py``). Not registered; do not change its behaviour. The closure and cost
primitives (``_close``, ``_fcost``, ``plus_table``) are imported: the rewrite left them
unchanged; the clustering itself is copied.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ktype._jit import njit
from ktype.algorithms.local._core import _close, _fcost
from ktype.algorithms.local._kernels import plus_table

__all__ = ["reference_agglo"]


@njit
def _union_cost(alo, ahi, blo, bhi, anc, nlo, nhi, tree, m, measure, pn, ps):
    r = alo.shape[0]
    s = 0.0
    for a in range(r):
        l2, h2 = _close(a, min(alo[a], blo[a]), max(ahi[a], bhi[a]), anc, nlo, nhi, tree)
        s += _fcost(a, l2, h2, m, measure, pn, ps)
    return s / r


@njit
def _pair_union_cost(ctab, alo, ahi, blo, bhi, anc, nlo, nhi, tree, m, measure, pn, ps):
    """Cost of the closure of the union of two boxes (table lookups when ``ctab`` is built)."""
    if ctab.shape[1] == 0:
        return _union_cost(alo, ahi, blo, bhi, anc, nlo, nhi, tree, m, measure, pn, ps)
    r = alo.shape[0]
    s = 0.0
    for a in range(r):
        s += ctab[a, min(alo[a], blo[a]), max(ahi[a], bhi[a])]
    return s / r


@njit(parallel=True)
def _merge_dists(a, alist, na, clo, chi, size, dc, active, ctab, anc, nlo, nhi, tree, m, measure, pn, ps, out):
    """``out[t] = dist(C_a, C_e)`` for ``e = alist[t]``, ``t < na``, when e is active and
    e != a (+inf otherwise), in parallel."""
    for t in prange(na):
        e = alist[t]
        if e == a or not active[e]:
            out[t] = np.inf
            continue
        u = _pair_union_cost(ctab, clo[a], chi[a], clo[e], chi[e], anc, nlo, nhi, tree, m, measure, pn, ps)
        out[t] = (size[a] + size[e]) * u - size[a] * dc[a] - size[e] * dc[e]


@njit
def _nearest(tmp, alist, na):
    """(cluster, distance) of the smallest ``tmp[:na]`` (first position on ties), or (-1, inf)."""
    if na == 0:
        return -1, np.inf
    p = np.argmin(tmp[:na])
    if tmp[p] == np.inf:
        return -1, np.inf
    return alist[p], tmp[p]


@njit(parallel=True)
def _initial_nn(X, anc, nlo, nhi, tree, m, measure, pn, ps, nn, nnd):
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
def reference_agglo(X, k, anc, nlo, nhi, tree, m, measure, pn, ps, ctab):
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
    tmp = np.empty(n)
    alist = np.arange(n)  # ascending ids of the clusters that may be active (compacted lazily)
    na = n
    n_active = n
    ver = np.zeros(n, dtype=np.int64)  # bumped when a cluster changes
    nnver = np.zeros(n, dtype=np.int64)  # version of nn[c] when nnd[c] was computed
    parent = np.arange(n)
    while n_active >= 2:
        # lazy refresh: a stale entry (its neighbour merged since) is a lower bound of the
        # true nearest distance (every cluster created later was compared at creation), so
        # refreshing the minimum until it is fresh yields the exact closest pair.
        a = -1
        while True:
            a = -1
            bd = np.inf
            for t in range(na):
                c = alist[t]
                if active[c] and (nnd[c] < bd or (nnd[c] == bd and a < 0)):
                    bd = nnd[c]
                    a = c
            if a < 0:
                break
            e0 = nn[a]
            if e0 >= 0 and active[e0] and nnver[a] == ver[e0]:
                break
            _merge_dists(a, alist, na, clo, chi, size, dc, active, ctab, anc, nlo, nhi, tree, m, measure, pn, ps, tmp)
            bj, best = _nearest(tmp, alist, na)
            nn[a] = bj
            nnd[a] = best
            nnver[a] = ver[bj] if bj >= 0 else 0
        if a < 0:
            break
        b = nn[a]
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
        ver[a] += 1
        ver[b] += 1
        parent[b] = a
        n_active -= 1
        if size[a] >= k:
            active[a] = False
            n_active -= 1
        if 2 * n_active < na:
            c = 0
            for t in range(na):
                if active[alist[t]]:
                    alist[c] = alist[t]
                    c += 1
            na = c
        if not active[a]:
            continue
        _merge_dists(a, alist, na, clo, chi, size, dc, active, ctab, anc, nlo, nhi, tree, m, measure, pn, ps, tmp)
        bj, best = _nearest(tmp, alist, na)
        for t in range(na):
            e = alist[t]
            if e == a or not active[e]:
                continue
            dd = tmp[t]
            if dd < nnd[e] or (dd == nnd[e] and a < nn[e]):
                nnd[e] = dd
                nn[e] = a
                nnver[e] = ver[a]
        nn[a] = bj
        nnd[a] = best
        nnver[a] = ver[bj] if bj >= 0 else 0
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
