"""Algorithm 4 of Tassa, Mazza & Gionis (all matches via strongly connected components),
algorithm side, with the dynamic update Algorithm 5 needs.

The independent checker of k-concealment lives in ``ktype.models`` and is deliberately
not imported here: a checker must be able to catch an algorithm's mistake
(docs/design/layers.md).

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

Dynamic update (where the paper's §6.2.2 is wrong: Step 8 of Algorithm 5 adds many arcs)
-----------------------------------------------------------------------------------------
When Algorithm 5 generalizes ``R̄_i`` further, *every* record newly consistent with the
enlarged ``R̄_i`` adds an arc into ``u_i`` -- not only ``u_{j*}`` as the paper says. All new
arcs end at ``u_i``, hence ``Fwd_new(i) = Fwd_old(i)`` and the only component that changes
is that of ``i``: ``SCC_new(i) = Fwd_old(i) ∩ (Bwd_old(i) ∪ ⋃_{x new} Bwd_old(x))``. If every
new source already lies in ``SCC(i)`` nothing changes (the common case, O(|new|)); otherwise
``SCC_new(i)`` is found with one forward and one backward search in the updated graph and
only its members are relabelled. ``scc_update="full"`` recomputes all SCCs after every upgrade
(for testing equality).

Length: the dynamic SCC maintenance of Algorithm 5 exists twice on purpose (incremental and full
recomputation, which the tests compare release for release), beside the static Algorithm 4 they both
start from.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from ..._jit import njit
from ._core import consistent_pair, unique_boxes
from ._kernels import SCAN_BLOCK, box_members_csr, box_members_indexed, scan_index

__all__ = ["MatchGraph", "all_matches", "initial_order", "ordered_merge"]


class MatchGraph:
    """The grouped consistency digraph of (D, g(D)) with dynamic row upgrades.

    Storage (all append-only or linked lists, so an upgrade never rebuilds the graph):
    ``gin`` -- per group, the records inside its box (static: a group is a fixed box);
    ``out`` -- per record, a linked list of the groups containing it, whose arc e is the gin
    entry e (record ``gin_idx[e]``, group ``arc_g[e]``); ``mem`` -- per group, a doubly
    linked list of the rows currently generalized to it (``gid``).
    """

    def __init__(self, X: np.ndarray, LO: np.ndarray, HI: np.ndarray) -> None:
        self.X = X
        self.n, self.r = X.shape
        n = self.n
        glo, ghi, gid, _ = unique_boxes(LO, HI)
        self.index = scan_index(X)
        # gin: records inside each group's box (CSR by group, a set per group, append-only), with
        # room to grow; entry e is also the arc (gin_idx[e] -> group arc_g[e])
        ptr, self.gin_idx, self.arc_g = box_members_csr(*self.index, glo, ghi, 2, SCAN_BLOCK)
        self.G = len(glo)
        self._index = {self._key(glo[g], ghi[g]): g for g in range(self.G)}  # loop over distinct boxes
        self.gin_ptr = _grow(ptr, 2 * self.G + 16)
        self.n_gin = int(ptr[-1])
        # out arcs: linked lists per record, in ascending group order (_link_arcs links the
        # group-major arcs from the last)
        self.arc_next = np.empty(len(self.gin_idx), dtype=np.int64)  # _link_arcs / _add_arcs write before reading
        self.out_head = np.full(n, -1, dtype=np.int64)
        _link_arcs(self.gin_idx, self.arc_next, self.out_head, self.n_gin)
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

    def set_row(self, i: int, lo: np.ndarray, hi: np.ndarray, members: np.ndarray | None = None) -> None:
        """Record that ``R̄_i`` is now the box (lo, hi). ``members`` (the records inside the
        box, ascending) may be passed when the caller already has them."""
        key = self._key(lo, hi)
        g = self._index.get(key)
        if g is None:
            lo = np.asarray(lo, dtype=np.int32)
            hi = np.asarray(hi, dtype=np.int32)
            g = self._new_group(key, self.members(lo, hi) if members is None else members)
        _move_member(i, g, self.gid, self.mem_head, self.mem_next, self.mem_prev)

    def _new_group(self, key: bytes, mem: np.ndarray) -> int:
        """A new group of key ``key`` (its box's bytes) whose box holds the records ``mem``."""
        g = self.G
        s = len(mem)
        if g + 2 > len(self.gin_ptr):
            self.gin_ptr = _grow(self.gin_ptr, 2 * len(self.gin_ptr))
            self.mem_head = _grow(self.mem_head, len(self.gin_ptr), fill=-1)
            self.gstamp = _grow(self.gstamp, len(self.gin_ptr))
        if self.n_gin + s > len(self.gin_idx):
            cap = 2 * (self.n_gin + s)
            self.gin_idx = _grow(self.gin_idx, cap, fill=None)
            self.arc_g = _grow(self.arc_g, cap, fill=None)
            self.arc_next = _grow(self.arc_next, cap, fill=None)
        self.gin_ptr[g + 1] = self.gin_ptr[g] + s
        _add_arcs(mem, g, self.gin_idx, self.arc_g, self.arc_next, self.out_head, self.n_gin)
        self.n_gin += s
        self.G += 1
        self._index[key] = g
        return g

    def members(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Records inside the box (lo, hi), ascending (scan along the sorted attribute)."""
        return box_members_indexed(*self.index, lo, hi)

    def csr(self) -> csr_matrix:
        """Adjacency of the grouped digraph (nodes: records 0..n-1, then groups), each row's
        columns ascending: a record's arcs were added in ascending group order, a group's
        members are listed by row number."""
        N = self.n + self.G
        indptr, indices = _grouped_csr(self.gin_idx, self.arc_g, self.n_gin, self.gid, self.n, self.G)
        A = csr_matrix((np.ones(len(indices), dtype=np.int8), indices, indptr), shape=(N, N))
        A.has_sorted_indices = True
        return A

    def components(self) -> np.ndarray:
        """SCC label of each record (full recomputation, Algorithm 4 step 2)."""
        _, lab = connected_components(self.csr(), directed=True, connection="strong")
        return _relabel(lab[: self.n].astype(np.int64))

    def match_counts(self, comp: np.ndarray) -> np.ndarray:
        """Matches of every record given the SCC labels ``comp`` (:func:`graph_match_counts`)."""
        return graph_match_counts(comp, self.gin_ptr, self.gin_idx, self.G, self.mem_head, self.mem_next)

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


def _grow(a: np.ndarray, cap: int, fill: int | None = 0, dtype: type | None = None) -> np.ndarray:
    """``a`` in an array of capacity ``cap``; the tail is ``fill``, or left unwritten with
    ``fill=None`` (append-only storage whose slots are written before they are read: its
    untouched pages then cost nothing)."""
    dt = a.dtype if dtype is None else np.dtype(dtype)
    if len(a) >= cap and dt == a.dtype:
        return a
    cap = max(cap, len(a))
    out = np.empty(cap, dtype=dt) if fill is None else np.full(cap, fill, dtype=dt)
    out[: len(a)] = a
    return out


@njit
def _grouped_csr(arc_u, arc_g, n_arcs, gid, n, G):
    """CSR of the grouped digraph: arcs ``arc_u[e] -> n + arc_g[e]`` in arc order, then
    ``n + gid[j] -> j`` in row order (a counting sort by source)."""
    indptr = np.zeros(n + G + 1, dtype=np.int64)
    for e in range(n_arcs):
        indptr[arc_u[e] + 1] += 1
    for j in range(n):
        indptr[n + gid[j] + 1] += 1
    for u in range(n + G):
        indptr[u + 1] += indptr[u]
    indices = np.empty(n_arcs + n, dtype=np.int64)
    fill = indptr[:-1].copy()
    for e in range(n_arcs):
        u = arc_u[e]
        indices[fill[u]] = n + arc_g[e]
        fill[u] += 1
    for j in range(n):
        u = n + gid[j]
        indices[fill[u]] = j
        fill[u] += 1
    return indptr, indices


@njit
def _link_arcs(arc_u, arc_next, out_head, n_arcs):
    for e in range(n_arcs - 1, -1, -1):
        u = arc_u[e]
        arc_next[e] = out_head[u]
        out_head[u] = e


@njit
def _add_arcs(mem, g, arc_u, arc_g, arc_next, out_head, n_arcs):
    e = n_arcs
    for t in range(mem.shape[0]):
        u = mem[t]
        arc_u[e] = u
        arc_g[e] = g
        arc_next[e] = out_head[u]
        out_head[u] = e
        e += 1


@njit
def _link_members(gid, mem_head, mem_next, mem_prev):
    for j in range(gid.shape[0] - 1, -1, -1):
        g = gid[j]
        h = mem_head[g]
        mem_next[j] = h
        mem_prev[j] = -1
        if h >= 0:
            mem_prev[h] = j
        mem_head[g] = j


@njit
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


@njit
def _scc_of(i, s, out_head, arc_next, arc_g, mem_head, mem_next, gid, gin_ptr, gin_idx, ustamp, bstamp, gstamp, queue):  # noqa: PLR0913
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


@njit
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


@njit
def match_counts(X, LO, HI, comp):
    """Number of matches of each record given SCC labels."""
    n = X.shape[0]
    out = np.zeros(n, dtype=np.int64)
    for i in range(n):
        c = 0
        for j in range(n):
            if comp[j] == comp[i] and consistent_pair(X, i, LO, HI, j):
                c += 1
        out[i] = c
    return out


@njit
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


@njit
def graph_match_counts(comp, gin_ptr, gin_idx, G, mem_head, mem_next):
    """For every record y, how many rows j are a match of it: ``R̄_j`` is consistent with
    ``R_y`` (j is a member of a group whose box contains X_y; each row is a member of one
    group) and j is in y's SCC. The count of :meth:`MatchGraph.neighbours` filtered by
    ``comp``, for all records in one pass over the groups' record lists (read in storage
    order: walking each record's arcs instead jumps across the whole arc array);
    :func:`match_counts` tests every pair."""
    out = np.zeros(comp.shape[0], dtype=np.int64)
    for g in range(G):
        h = mem_head[g]
        if h < 0:
            continue
        for t in range(gin_ptr[g], gin_ptr[g + 1]):
            y = gin_idx[t]
            cy = comp[y]
            c = 0
            j = h
            while j >= 0:
                if comp[j] == cy:
                    c += 1
                j = mem_next[j]
            out[y] += c
    return out


# ---------------------------------------------------------------------------- dynamic SCCs
#: gap between consecutive topological positions after (re)numbering
POS_SPACING = 1 << 32


def initial_order(graph: MatchGraph) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """SCC labels of the records with a topological order of the condensation.

    Returns ``(comp, pos, size)``: ``comp[y]`` the SCC label of record y (first-occurrence
    labels, as :meth:`MatchGraph.components`), ``pos[c]`` a position of label c such that
    every arc between different SCCs goes from a smaller to a larger position, and
    ``size[c]`` the number of records labelled c. The order comes from the SCCs of the
    grouped digraph (scipy) and Kahn's algorithm on its condensation (numba).
    """
    A = graph.csr()
    ncomp, lab = connected_components(A, directed=True, connection="strong")
    lab = lab.astype(np.int64)
    rank = _condensation_rank(A.indptr.astype(np.int64), A.indices.astype(np.int64), lab, int(ncomp))
    comp = _relabel(lab[: graph.n])
    nlab = int(comp.max()) + 1 if graph.n else 0
    pos = np.zeros(nlab, dtype=np.int64)
    pos[comp] = (rank[lab[: graph.n]] + 1) * POS_SPACING
    size = np.bincount(comp, minlength=nlab).astype(np.int64)
    return comp, pos, size


@njit
def _condensation_rank(indptr, indices, lab, ncomp):
    """Topological rank of each SCC label of a digraph (Kahn's algorithm, ties by label)."""
    N = lab.shape[0]
    indeg = np.zeros(ncomp, dtype=np.int64)
    cnt = np.zeros(ncomp + 1, dtype=np.int64)
    for u in range(N):
        for t in range(indptr[u], indptr[u + 1]):
            if lab[u] != lab[indices[t]]:
                cnt[lab[u] + 1] += 1
    for c in range(ncomp):
        cnt[c + 1] += cnt[c]
    dst = np.empty(cnt[ncomp], dtype=np.int64)
    fill = cnt[:-1].copy()
    for u in range(N):
        for t in range(indptr[u], indptr[u + 1]):
            v = indices[t]
            if lab[u] != lab[v]:
                dst[fill[lab[u]]] = lab[v]
                fill[lab[u]] += 1
                indeg[lab[v]] += 1
    queue = np.empty(ncomp, dtype=np.int64)
    h = 0
    tl = 0
    for c in range(ncomp):
        if indeg[c] == 0:
            queue[tl] = c
            tl += 1
    rank = np.empty(ncomp, dtype=np.int64)
    while h < tl:
        c = queue[h]
        rank[c] = h
        h += 1
        for t in range(cnt[c], cnt[c + 1]):
            d = dst[t]
            indeg[d] -= 1
            if indeg[d] == 0:
                queue[tl] = d
                tl += 1
    return rank


@njit
def _push(buf, c, v):
    """Append v at index c of a growable int64 buffer; returns the (maybe new) buffer."""
    if c >= buf.shape[0]:
        nb = np.empty(2 * buf.shape[0] + 16, dtype=np.int64)
        nb[: buf.shape[0]] = buf
        buf = nb
    buf[c] = v
    return buf


@njit
def ordered_merge(i, new_src, comp, pos, size, out_head, arc_next, arc_g, mem_head, mem_next, rstamp, gstamp, lstamp, s):  # noqa: C901, PLR0912, PLR0913, PLR0915
    """Update SCC labels and the topological order after arcs ``x -> u_i`` (x in ``new_src``).

    Every new arc ends at ``u_i`` (see "Dynamic update" above). Let ``L = pos(SCC(i))`` and ``T`` the SCCs of
    the new sources with a larger position (arcs from smaller positions respect the order
    and change nothing); ``U = max pos(T)``. Every node on a new cycle lies on a path from
    i to a source of T, so it has a position in ``[L, U]``: a forward search from i expands
    only SCCs with position ``< U`` (the SCC at ``U`` has no successor inside the window and
    is never expanded, which keeps the search away from a giant component sitting at the end
    of the window). The search records the arcs it scans; a backward pass over them finds
    the visited records that reach a record of T. Those, SCC(i) and the T components hit
    merge into one component (labelled as the one at ``U`` if it was hit, else as the
    largest part, so only visited records are relabelled). Visited components that did not
    merge are successors of it: they move, in their old relative order, into the gap right
    after ``U`` (after the merged component, which takes ``U`` or the first slot of the
    gap). This is the Pearce–Kelly reordering with the backward set left in place.

    ``rstamp`` (records), ``gstamp`` (groups) and ``lstamp`` (labels) are scratch stamp
    arrays; ``s`` must be a fresh stamp value (three consecutive values are used).
    Returns -1 if nothing changed, else the label of SCC(i) after the update.
    """
    ci = comp[i]
    L = pos[ci]
    U = L
    cU = -1
    for t in range(new_src.shape[0]):
        c = comp[new_src[t]]
        if c != ci and pos[c] > L:
            lstamp[c] = s  # a T label
            if pos[c] > U:
                U = pos[c]
                cU = c
    if cU < 0:
        return -1
    # ---- forward search from i inside the window, recording scanned arcs
    vis = np.empty(64, dtype=np.int64)  # visited records (local id = index)
    nv = 0
    ug_u = np.empty(64, dtype=np.int64)
    ug_g = np.empty(64, dtype=np.int64)
    nug = 0
    gj_g = np.empty(64, dtype=np.int64)
    gj_j = np.empty(64, dtype=np.int64)
    ngj = 0
    vis = _push(vis, nv, i)
    nv += 1
    rstamp[i] = s
    head = 0
    while head < nv:
        u = vis[head]
        head += 1
        if pos[comp[u]] >= U:
            continue  # the SCC at U is not expanded
        e = out_head[u]
        while e >= 0:
            g = arc_g[e]
            ug_u = _push(ug_u, nug, u)
            ug_g = _push(ug_g, nug, g)
            nug += 1
            if gstamp[g] != s:
                gstamp[g] = s
                j = mem_head[g]
                while j >= 0:
                    if pos[comp[j]] <= U:
                        gj_g = _push(gj_g, ngj, g)
                        gj_j = _push(gj_j, ngj, j)
                        ngj += 1
                        if rstamp[j] != s:
                            rstamp[j] = s
                            vis = _push(vis, nv, j)
                            nv += 1
                    j = mem_next[j]
            e = arc_next[e]
    # ---- backward pass over the scanned arcs from the visited records of T
    # local ids: records by position in vis (rstamp[j] == s), groups by first occurrence
    n = comp.shape[0]
    rloc = np.full(n, -1, dtype=np.int64)
    for t in range(nv):
        rloc[vis[t]] = t
    gl = np.full(gstamp.shape[0], -1, dtype=np.int64)
    ng = 0
    for t in range(ngj):
        g = gj_g[t]
        if gl[g] < 0:
            gl[g] = ng
            ng += 1
    # reverse CSR: record j -> groups g (from gj); group g -> records u (from ug)
    rp = np.zeros(nv + 1, dtype=np.int64)
    for t in range(ngj):
        rp[rloc[gj_j[t]] + 1] += 1
    for t in range(nv):
        rp[t + 1] += rp[t]
    rg = np.empty(ngj, dtype=np.int64)
    f = rp[:-1].copy()
    for t in range(ngj):
        a = rloc[gj_j[t]]
        rg[f[a]] = gl[gj_g[t]]
        f[a] += 1
    gp = np.zeros(ng + 1, dtype=np.int64)
    for t in range(nug):
        if gl[ug_g[t]] >= 0:
            gp[gl[ug_g[t]] + 1] += 1
    for t in range(ng):
        gp[t + 1] += gp[t]
    gu = np.empty(gp[ng], dtype=np.int64)
    f = gp[:-1].copy()
    for t in range(nug):
        b = gl[ug_g[t]]
        if b >= 0:
            gu[f[b]] = rloc[ug_u[t]]
            f[b] += 1
    good = np.zeros(nv, dtype=np.bool_)
    ggood = np.zeros(ng, dtype=np.bool_)
    stack = np.empty(nv, dtype=np.int64)
    sp = 0
    for t in range(nv):
        if lstamp[comp[vis[t]]] == s:
            good[t] = True
            stack[sp] = t
            sp += 1
    while sp > 0:
        sp -= 1
        a = stack[sp]
        for q in range(rp[a], rp[a + 1]):
            b = rg[q]
            if ggood[b]:
                continue
            ggood[b] = True
            for w in range(gp[b], gp[b + 1]):
                u = gu[w]
                if not good[u]:
                    good[u] = True
                    stack[sp] = u
                    sp += 1
    # ---- distinct labels of the visited records, and which of them merge
    labs = np.empty(nv, dtype=np.int64)
    nl = 0
    s2 = s + 1  # label seen
    s3 = s + 2  # label merges
    for t in range(nv):
        c = comp[vis[t]]
        if lstamp[c] != s2 and lstamp[c] != s3:
            labs[nl] = c
            nl += 1
        if good[t]:
            lstamp[c] = s3
        elif lstamp[c] != s3:
            lstamp[c] = s2
    merged_any = good[0]  # i reaches a record of T iff some T record was visited
    hitU = merged_any and lstamp[cU] == s3
    newlab = ci
    if merged_any:
        newlab = cU
        if not hitU:
            best = -1
            for t in range(nl):
                c = labs[t]
                if lstamp[c] == s3 and size[c] > best:
                    best = size[c]
                    newlab = c
        total = 0
        for t in range(nl):
            c = labs[t]
            if lstamp[c] == s3:
                total += size[c]
                if c != newlab:
                    size[c] = 0
                    pos[c] = -1
        size[newlab] = total
        for t in range(nv):
            if good[t]:
                comp[vis[t]] = newlab
    # ---- move the visited components that did not merge (and the merged one unless it
    # sits at U) into the gap after U, keeping their old relative order
    items = np.empty(nl + 1, dtype=np.int64)
    cnt = 0
    if not hitU:
        items[0] = newlab
        cnt = 1
    rest = np.empty(nl, dtype=np.int64)
    nr = 0
    for t in range(nl):
        c = labs[t]
        if lstamp[c] == s2 and c != newlab:
            rest[nr] = c
            nr += 1
    rest = rest[:nr]
    order = np.argsort(pos[rest])
    for t in range(nr):
        items[cnt] = rest[order[t]]
        cnt += 1
    if cnt == 0:
        return newlab
    for _attempt in range(2):
        nxt = -1
        for c in range(pos.shape[0]):
            if size[c] > 0 and pos[c] > U and (nxt < 0 or pos[c] < nxt):
                nxt = pos[c]
        if nxt < 0:
            nxt = U + (cnt + 1) * POS_SPACING
        step = (nxt - U) // (cnt + 1)
        if step >= 1:
            for t in range(cnt):
                pos[items[t]] = U + step * (t + 1)
            return newlab
        _renumber(pos, size)
        U = pos[cU]
    raise RuntimeError("ordered_merge: no room after renumbering")  # pragma: no cover


@njit
def _renumber(pos, size):
    """Spread the positions of the live labels evenly again (order unchanged)."""
    live = np.flatnonzero(size > 0)
    order = np.argsort(pos[live])
    for t in range(live.shape[0]):
        pos[live[order[t]]] = (t + 1) * POS_SPACING
