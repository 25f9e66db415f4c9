"""Algorithm 4 of Tassa, Mazza & Gionis (all matches via strongly connected components),
algorithm side, with the dynamic update Algorithm 5 needs.

The independent checker of k-concealment lives in ``ktype.models`` and is deliberately
not imported here (DESIGN.md: a checker must be able to catch an algorithm's mistake).

Graph representation
--------------------
Algorithm 4 builds ``H = (U, F)`` with an arc ``u_i -> u_j`` iff ``R̄_j`` is consistent
with ``R_i`` (i != j); an edge ``(R_i, R̄_j)`` is a match iff ``u_i`` and ``u_j`` are in the
same strongly connected component (Prop. 10). Storing H explicitly costs Σ_i deg(i) arcs,
which can approach n². We store instead an equivalent *grouped* digraph: one node per
distinct generalized record ``g`` with arcs ``u_y -> g`` (``R_y ∈ g``) and ``g -> u_j``
(``R̄_j = g``). Paths ``u_y -> g -> u_j`` are exactly the arcs of H plus self-loops
``u_j -> g(j) -> u_j`` (``R_j ∈ R̄_j``), which create no cycle between distinct records, so
the SCCs restricted to U are those of H. Groups whose last member left stay as sinks.

Dynamic update (spec §5.4, the erratum the implementation must handle)
---------------------------------------------------------------------
When Algorithm 5 generalizes ``R̄_i`` further, *every* record newly consistent with the
enlarged ``R̄_i`` adds an arc into ``u_i`` -- not only ``u_{j*}`` as the paper says. All new
arcs end at ``u_i``, hence ``Fwd_new(i) = Fwd_old(i)`` and the only component that changes
is that of ``i``: ``SCC_new(i) = Fwd_old(i) ∩ (Bwd_old(i) ∪ ⋃_{x new} Bwd_old(x))``. If every
new source already lies in ``SCC(i)`` nothing changes (the common case, O(|new|)); otherwise
``SCC_new(i)`` is found with one forward and one backward search in the updated graph and
only its members are relabelled. ``mode="full"`` recomputes all SCCs after every upgrade
(for testing equality).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from ._core import unique_boxes
from ._kernels import box_edges, box_members

__all__ = ["MatchGraph", "all_matches"]


class MatchGraph:
    """The grouped consistency digraph of (D, g(D)) with dynamic row upgrades.

    Storage (all append-only or linked lists, so an upgrade never rebuilds the graph):
    ``gin`` -- per group, the records inside its box (static: a group is a fixed box);
    ``out`` -- per record, a linked list of the groups containing it; ``mem`` -- per group, a
    doubly linked list of the rows currently generalized to it (``gid``).
    """

    def __init__(self, X: np.ndarray, LO: np.ndarray, HI: np.ndarray) -> None:
        self.X = X
        self.n, self.r = X.shape
        n = self.n
        glo, ghi, gid, _ = unique_boxes(LO, HI)
        ys, gs = box_edges(X, glo, ghi)  # sorted by y, then g
        self.G = len(glo)
        self._index = {self._key(glo[g], ghi[g]): g for g in range(self.G)}  # loop over distinct boxes
        # gin: records inside each group's box (CSR by group, append-only)
        order = np.argsort(gs, kind="stable")
        self.gin_idx = _grow(ys[order], 2 * len(ys) + 16)
        cnt = np.bincount(gs, minlength=self.G)
        self.gin_ptr = _grow(np.concatenate([[0], np.cumsum(cnt)]).astype(np.int64), 2 * self.G + 16)
        self.n_gin = len(ys)
        # out arcs: linked lists per record
        self.arc_u = _grow(ys.astype(np.int64), 2 * len(ys) + 16)
        self.arc_g = _grow(gs.astype(np.int64), 2 * len(ys) + 16)
        self.arc_next = np.full(len(self.arc_u), -1, dtype=np.int64)
        self.out_head = np.full(n, -1, dtype=np.int64)
        self.n_arcs = len(ys)
        _link_arcs(self.arc_u, self.arc_next, self.out_head, self.n_arcs)
        # members: doubly linked lists per group
        self.gid = gid.copy()
        self.mem_head = np.full(len(self.gin_ptr), -1, dtype=np.int64)
        self.mem_next = np.full(n, -1, dtype=np.int64)
        self.mem_prev = np.full(n, -1, dtype=np.int64)
        _link_members(self.gid, self.mem_head, self.mem_next, self.mem_prev)
        self.ustamp = np.zeros(n, dtype=np.int64)
        self.bstamp = np.zeros(n, dtype=np.int64)
        self.gstamp = np.zeros(len(self.gin_ptr), dtype=np.int64)
        self.stamp = 0
        self.queue = np.empty(n, dtype=np.int64)

    @staticmethod
    def _key(lo: np.ndarray, hi: np.ndarray) -> bytes:
        return np.ascontiguousarray(lo, dtype=np.int32).tobytes() + np.ascontiguousarray(hi, dtype=np.int32).tobytes()

    def set_row(self, i: int, lo: np.ndarray, hi: np.ndarray) -> None:
        """Record that ``R̄_i`` is now the box (lo, hi)."""
        key = self._key(lo, hi)
        g = self._index.get(key)
        if g is None:
            g = self._new_group(key, np.asarray(lo, dtype=np.int32), np.asarray(hi, dtype=np.int32))
        _move_member(i, g, self.gid, self.mem_head, self.mem_next, self.mem_prev)

    def _new_group(self, key: bytes, lo: np.ndarray, hi: np.ndarray) -> int:
        g = self.G
        mem = box_members(self.X, lo, hi)
        s = len(mem)
        if g + 2 > len(self.gin_ptr):
            self.gin_ptr = _grow(self.gin_ptr, 2 * len(self.gin_ptr))
            self.mem_head = _grow(self.mem_head, len(self.gin_ptr), fill=-1)
            self.gstamp = _grow(self.gstamp, len(self.gin_ptr))
        if self.n_gin + s > len(self.gin_idx):
            self.gin_idx = _grow(self.gin_idx, 2 * (self.n_gin + s))
        if self.n_arcs + s > len(self.arc_u):
            cap = 2 * (self.n_arcs + s)
            self.arc_u = _grow(self.arc_u, cap)
            self.arc_g = _grow(self.arc_g, cap)
            self.arc_next = _grow(self.arc_next, cap, fill=-1)
        self.gin_idx[self.n_gin : self.n_gin + s] = mem
        self.gin_ptr[g + 1] = self.gin_ptr[g] + s
        self.n_gin += s
        _add_arcs(mem, g, self.arc_u, self.arc_g, self.arc_next, self.out_head, self.n_arcs)
        self.n_arcs += s
        self.G += 1
        self._index[key] = g
        return g

    def csr(self) -> csr_matrix:
        """Adjacency of the grouped digraph (nodes: records 0..n-1, then groups)."""
        n = self.n
        ys = self.arc_u[: self.n_arcs]
        gs = self.arc_g[: self.n_arcs] + n
        rows = np.concatenate([ys, self.gid + n])
        cols = np.concatenate([gs, np.arange(n, dtype=np.int64)])
        N = n + self.G
        return csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(N, N))

    def components(self) -> np.ndarray:
        """SCC label of each record (full recomputation, Algorithm 4 step 2)."""
        _, lab = connected_components(self.csr(), directed=True, connection="strong")
        return _relabel(lab[: self.n].astype(np.int64))

    def neighbours(self, i: int) -> np.ndarray:
        """Rows j whose generalized record is consistent with record i (sorted; includes i)."""
        return _graph_neighbours(i, self.out_head, self.arc_next, self.arc_g, self.mem_head, self.mem_next, self.queue)

    def component_of(self, i: int) -> np.ndarray:
        """Records in the SCC of record i: the forward-reachable set, then the records of
        it that reach i (a backward search restricted to the forward set: every node on a
        path from the SCC back to i is itself in the SCC)."""
        self.stamp += 1
        return _scc_of(
            i,
            self.stamp,
            self.out_head,
            self.arc_next,
            self.arc_g,
            self.mem_head,
            self.mem_next,
            self.gid,
            self.gin_ptr,
            self.gin_idx,
            self.ustamp,
            self.bstamp,
            self.gstamp,
            self.queue,
        )


def _grow(a: np.ndarray, cap: int, fill: int = 0) -> np.ndarray:
    if len(a) >= cap:
        return a
    out = np.full(cap, fill, dtype=a.dtype)
    out[: len(a)] = a
    return out


@njit(cache=True)
def _link_arcs(arc_u, arc_next, out_head, n_arcs):
    for e in range(n_arcs - 1, -1, -1):
        u = arc_u[e]
        arc_next[e] = out_head[u]
        out_head[u] = e


@njit(cache=True)
def _add_arcs(mem, g, arc_u, arc_g, arc_next, out_head, n_arcs):
    e = n_arcs
    for t in range(mem.shape[0]):
        u = mem[t]
        arc_u[e] = u
        arc_g[e] = g
        arc_next[e] = out_head[u]
        out_head[u] = e
        e += 1


@njit(cache=True)
def _link_members(gid, mem_head, mem_next, mem_prev):
    for j in range(gid.shape[0] - 1, -1, -1):
        g = gid[j]
        h = mem_head[g]
        mem_next[j] = h
        mem_prev[j] = -1
        if h >= 0:
            mem_prev[h] = j
        mem_head[g] = j


@njit(cache=True)
def _move_member(j, g, gid, mem_head, mem_next, mem_prev):
    old = gid[j]
    if old == g:
        return
    p, q = mem_prev[j], mem_next[j]
    if p >= 0:
        mem_next[p] = q
    else:
        mem_head[old] = q
    if q >= 0:
        mem_prev[q] = p
    h = mem_head[g]
    mem_next[j] = h
    mem_prev[j] = -1
    if h >= 0:
        mem_prev[h] = j
    mem_head[g] = j
    gid[j] = g


@njit(cache=True)
def _scc_of(i, s, out_head, arc_next, arc_g, mem_head, mem_next, gid, gin_ptr, gin_idx, ustamp, bstamp, gstamp, queue):
    """SCC of record i = Fwd(i) ∩ Bwd(i).

    The forward search (u -> groups containing X_u -> their current members) and the
    backward search (u <- its group <- records inside that box) advance in alternation;
    when one of them completes, the other continues restricted to the completed set (a
    path between two members of the SCC never leaves the SCC), which keeps the work
    proportional to the smaller of the two reachable sets.
    """
    n = ustamp.shape[0]
    fq = queue
    bq = np.empty(n, dtype=np.int64)
    fh = 0
    ft = 1
    bh = 0
    bt = 1
    fq[0] = i
    bq[0] = i
    ustamp[i] = s
    bstamp[i] = s
    fdone = False
    bdone = False
    while not (fdone and bdone):
        # one forward expansion
        if not fdone:
            if fh < ft:
                u = fq[fh]
                fh += 1
                e = out_head[u]
                while e >= 0:
                    g = arc_g[e]
                    if gstamp[g] != s:
                        gstamp[g] = s
                        j = mem_head[g]
                        while j >= 0:
                            if ustamp[j] != s and (not bdone or bstamp[j] == s):
                                ustamp[j] = s
                                fq[ft] = j
                                ft += 1
                            j = mem_next[j]
                    e = arc_next[e]
            else:
                fdone = True
        # one backward expansion
        if not bdone:
            if bh < bt:
                u = bq[bh]
                bh += 1
                g = gid[u]
                for t in range(gin_ptr[g], gin_ptr[g + 1]):
                    y = gin_idx[t]
                    if bstamp[y] != s and (not fdone or ustamp[y] == s):
                        bstamp[y] = s
                        bq[bt] = y
                        bt += 1
            else:
                bdone = True
    # members of both sets
    c = 0
    src = fq if ft <= bt else bq
    m = ft if ft <= bt else bt
    out = np.empty(m, dtype=np.int64)
    for t in range(m):
        y = src[t]
        if ustamp[y] == s and bstamp[y] == s:
            out[c] = y
            c += 1
    out = out[:c]
    out.sort()
    return out


@njit(cache=True)
def _relabel(lab):
    """Relabel components by first occurrence (labels then do not depend on scipy's order)."""
    n = lab.shape[0]
    mp = np.full(lab.max() + 1 if n else 1, -1, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    c = 0
    for i in range(n):
        if mp[lab[i]] < 0:
            mp[lab[i]] = c
            c += 1
        out[i] = mp[lab[i]]
    return out


def all_matches(X: np.ndarray, LO: np.ndarray, HI: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 4: ``(comp, match_count)`` -- the SCC label of every record and the number
    of matches of each original record (``|{j : cons(i, j), comp[i] == comp[j]}|``).

    Runs in O(n·G·r) for the consistency tests (G = number of distinct generalized
    records, numba) plus O(|arcs|) for the SCCs (scipy, iterative Tarjan-style).
    """
    g = MatchGraph(X, LO, HI)
    comp = g.components()
    return comp, match_counts(X, LO, HI, comp)


@njit(cache=True)
def match_counts(X, LO, HI, comp):
    """Number of matches of each record given SCC labels."""
    n, r = X.shape
    out = np.zeros(n, dtype=np.int64)
    for i in range(n):
        c = 0
        for j in range(n):
            if comp[j] != comp[i]:
                continue
            ok = True
            for a in range(r):
                v = X[i, a]
                if v < LO[j, a] or v > HI[j, a]:
                    ok = False
                    break
            if ok:
                c += 1
        out[i] = c
    return out


@njit(cache=True)
def _graph_neighbours(i, out_head, arc_next, arc_g, mem_head, mem_next, buf):
    """Rows j with X_i inside R̄_j: members of every group containing X_i (sorted)."""
    c = 0
    e = out_head[i]
    while e >= 0:
        j = mem_head[arc_g[e]]
        while j >= 0:
            buf[c] = j
            c += 1
            j = mem_next[j]
        e = arc_next[e]
    out = buf[:c].copy()
    out.sort()
    return out
