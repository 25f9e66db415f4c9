"""The consistency graph of a release and its *matches* (k-type anonymity).

Tassa, Mazza & Gionis [1]_ §4.2 define the bipartite **consistency graph**
``V_{D,g(D)}``: one node per original record ``R_i`` (a dataset row), one node per released
row ``R̄_j``, and an edge ``(R_i, R̄_j)`` iff ``R̄_j`` is consistent with ``R_i``, i.e.
``lo[j, c] <= X[i, c] <= hi[j, c]`` on every quasi-identifier ``c``. A released row is a
**match** of ``R_i`` (Def. 6) iff the edge lies on some perfect matching of the graph.
(1,k)-, (k,1)-, (k,k)-anonymity read the node degrees, k-concealment the match counts.

Compression (why this scales)
-----------------------------
Records with identical quasi-identifiers are interchangeable, and so are released rows with
identical boxes. The graph is therefore built between **types**: ``A`` distinct original
records with multiplicities ``ma`` and ``B`` distinct boxes with multiplicities ``mb``; the
type edges are listed by compiled scans, pruned by binary search on the most selective
column (freeform value sets: a skip scan over the sorted types, and released rows grouped by
a hash checked row by row). Degrees are sums of multiplicities over type edges.

Perfect matchings of the record graph correspond to integer **feasible flows** ``f`` on
the type edges (transportation polytope: row sums ``ma``, column sums ``mb``): a matching
pairs ``f(a, b)`` records of type ``a`` with rows of type ``b``, and any such flow is
realised by a matching that pairs any chosen record of type ``a`` with any chosen row of
type ``b``. Hence a record edge is a match iff its type edge ``(a, b)`` carries positive
flow in *some* feasible flow. Given one feasible flow ``f``, the other feasible flows
differ from it by circulations of the **residual graph** (arcs ``a -> b`` for every type
edge, ``b -> a`` where ``f(a, b) > 0``), so

    (a, b) is a match  ⇔  f(a, b) > 0  or  a and b lie in the same strongly connected
    component (SCC) of the residual graph.

This is Algorithm 4 / Proposition 10 of [1]_ (§6.2) (an edge is a match iff it lies on a
"bicycle" of the directed graph built from one perfect matching) generalised to
multiplicities: with all multiplicities 1 the residual graph is exactly the graph ``H`` of
Algorithm 4 with each ``u_i`` merged with its partner ``v_i``. The answer does not depend
on the feasible flow chosen (the Dulmage–Mendelsohn decomposition [2]_, [3]_: the set of
edges lying on some maximum matching is a structural invariant of the graph), which is why
a release read back from a published file (``source is None``, row order unknown) gives the
same answer as the in-memory release: there ``f`` is a maximum flow (:mod:`._maxflow`) and a
flow smaller than ``n`` proves that the release is *not* a generalization of the data.
The argument holds for any feasible point of the (transportation) polytope, fractional
ones included: when a *k-factor* flow ``F`` of value ``n·k`` is already known
(:meth:`ConsistencyGraph.k_factor`), ``F / k`` is one (row sums ``ma``, column sums ``mb``),
so its support stands for ``f > 0`` and the matching flow is not solved at all.
When ``release.source`` is known, ``f`` is simply the pair counts ``(type of the source
record, type of the released row)``. Because records of one type are strongly connected
(each reaches the other through their partners), the record-level SCCs of Algorithm 4 are
unions of type SCCs: :func:`match_components` reports them per original record.

Suppressed rows
---------------
The paper has no suppression; its Def. 2 makes the whole domain an allowed generalized
value, and Fig. 3 shows fully generalized ("all ``*``") rows. A :class:`~ktype.Release`
stores a suppressed row exactly so (a whole-domain box), and here it **stays in the graph
as a whole-domain box**: it is consistent with every original record. A release with fewer
rows than the dataset (a published file without its suppressed rows, or a ``source`` that
omits records) is completed with ``n - release.n`` hidden whole-domain rows. This choice is
exact for matches: the perfect matchings of the completed graph are the matchings that
saturate the published rows, times any assignment of the left-over records to the hidden
rows, so *which published rows are matches of whom does not depend on whether suppressed
rows are exported*. Degrees and match counts do count every suppressed row as one candidate
(the adversary cannot rule out that a given person is among the suppressed). Consequence:
a release that is k-anonymous in the "suppressed rows are removed" sense of
:class:`~ktype.models.kanonymity.KAnonymity` is also (k,k)/k-concealed here when it has no
suppressed row or at least ``k`` of them; with ``0 < s < k`` suppressed rows, a suppressed
record not covered by any published box has only ``s`` candidates and fails (correct when
the ``*`` rows are exported with their sensitive values — they form an undersized class —
and conservative otherwise).

References
----------
.. [1] T. Tassa, A. Mazza, A. Gionis. k-Concealment: an alternative model of k-type
   anonymity. Transactions on Data Privacy 5(1), 2012. §4.2 (Def. 4, the consistency graph,
   Def. 6: match, k-concealment), §6.2 (Prop. 10, Algorithm 4).
.. [2] A. L. Dulmage, N. S. Mendelsohn. Coverings of bipartite graphs. Canad. J. Math.
   10:517–534, 1958.
.. [3] L. Lovász, M. D. Plummer. Matching Theory, 1986, §4.3 (allowed edges of a bipartite
   graph; the elementary / DM decomposition).

Length: one object, the consistency graph, with what is derived from it (degrees, the maximum flow
that finds a perfect matching, strongly connected components, matches, the k-factor test) as cached
properties of that object; its compiled kernels are in ``_graph_kernels.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from .._grouping import group_rows, pack_keys, run_starts
from ..exceptions import DataError, InvalidParameterError
from ..release import Release

if TYPE_CHECKING:
    from scipy import sparse

__all__ = [
    "ConsistencyGraph",
    "consistency_graph",
    "consistency_degrees",
    "match_counts",
    "record_matches",
    "match_components",
    "matches_from_adjacency",
    "shared_graph",
]


def _set_words(sets: dict[int, np.ndarray], perm: np.ndarray, n_rows: int, hidden_from: int
                ) -> tuple[np.ndarray, np.ndarray]:
    """Value sets as bit words ``(n_rows, W)``: permuted column ``c`` holds value ``v`` of row
    ``i`` iff bit ``v & 63`` of ``words[i, woff[c] + (v >> 6)]`` is set (``woff[c] == -1``: no
    set column). Rows from ``hidden_from`` on (the hidden whole-domain rows) hold every value."""
    from . import _graph_kernels as _K

    woff = np.full(len(perm), -1, dtype=np.int64)
    width = 0
    for cp, c in enumerate(perm):  # loop over columns
        if int(c) in sets:
            woff[cp] = width
            width += (sets[int(c)].shape[1] + 63) // 64
    words = np.zeros((n_rows, max(width, 1)), dtype=np.uint64)
    for cp, c in enumerate(perm):  # loop over columns
        if woff[cp] >= 0:
            member = np.ascontiguousarray(sets[int(c)], dtype=np.bool_)
            _K.pack_set_words(member, words, woff[cp])
    words[hidden_from:] = np.iinfo(np.uint64).max
    return words, woff


def _group_boxes(lo: np.ndarray, hi: np.ndarray, words: np.ndarray) -> tuple[np.ndarray, int]:
    """Box types of freeform rows: ``(ids, B)``, equal ``(lo, hi, words)`` rows alike.

    Rows are grouped by a 64-bit hash, and every row is then compared with its group's first
    row: equal hashes of unequal rows (never seen) send the grouping to the exact one, a
    lexicographic sort of all the columns (4x slower at 10^6 rows). Types are numbered by their
    ranges; no result depends on that order, only the speed of what reads the types.
    """
    from . import _graph_kernels as _K

    n = len(lo)
    if n == 0:
        return np.zeros(0, dtype=np.int64), 0
    lo = np.ascontiguousarray(lo)
    hi = np.ascontiguousarray(hi)
    h = _K.box_hashes(lo, hi, words)
    order = np.argsort(h, kind="stable")
    starts = run_starts([h], order)
    gid = np.cumsum(starts) - 1
    first = order[np.flatnonzero(starts)]
    ids = np.empty(n, dtype=np.int64)
    ids[order] = gid
    if _K.rows_equal_to(lo, hi, words, first[ids]):
        # number the types by their ranges (lower ends, then upper ends; types with equal
        # ranges in hash order): in hash order alone the scan took 1.4x and the k-factor flow
        # 1.3x as long (neighbouring types' candidates and arcs no longer near each other);
        # sorting by the sets too, as the exact grouping does, cost 0.5 s more and gained nothing
        key = pack_keys([lo[first, c] for c in range(lo.shape[1])] + [hi[first, c] for c in range(hi.shape[1])])
        rank = np.empty(len(first), dtype=np.int64)
        rank[np.lexsort(key[::-1])] = np.arange(len(first), dtype=np.int64)
        return rank[ids], len(first)
    return group_rows(lo, hi, *_halves(words))


def _halves(words: np.ndarray) -> list[np.ndarray]:
    """Bit words as non-negative int64 columns (each word's high and low 32 bits)."""
    return [h for w in words.T for h in ((w >> np.uint64(32)).astype(np.int64), (w & np.uint64(0xFFFFFFFF)).astype(np.int64))]


def _transport_network(src: np.ndarray, dst: np.ndarray, n_src: int, n_dst: int, cap_src: np.ndarray,
                       cap_edge: np.ndarray, cap_dst: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int, int]:
    """A bipartite transport network as :func:`~._maxflow.max_flow` takes it:
    ``(tail, head, cap, n_nodes, s, t)`` with the arcs source ``0`` -> node ``1 + i`` of the
    first side (``cap_src``), then the edges ``src[e] -> dst[e]`` in edge order (``cap_edge``),
    then node ``1 + n_src + j`` of the second side -> sink ``n_src + n_dst + 1``
    (``cap_dst``); arc ``n_src + e`` is edge ``e``. Node numbers are int32 (what OR-Tools
    takes: no copy to convert 10^7 arcs) unless there are 2^31 nodes or more."""
    t = n_src + n_dst + 1
    it = np.int32 if t < 2**31 - 1 else np.int64
    m = len(src)
    tail = np.empty(n_src + m + n_dst, dtype=it)
    head = np.empty(n_src + m + n_dst, dtype=it)
    tail[:n_src] = 0
    np.add(src, 1, out=tail[n_src:n_src + m], casting="unsafe")
    tail[n_src + m:] = np.arange(1 + n_src, t, dtype=it)
    head[:n_src] = np.arange(1, 1 + n_src, dtype=it)
    np.add(dst, 1 + n_src, out=head[n_src:n_src + m], casting="unsafe")
    head[n_src + m:] = t
    cap = np.concatenate([cap_src, cap_edge, cap_dst]).astype(np.int64, copy=False)
    return tail, head, cap, t + 1, 0, t


# ------------------------------------------------------------------------------- the graph
class ConsistencyGraph:
    """Type-compressed consistency graph of a release (see the module docstring).

    Build it with :func:`consistency_graph`. Type-level arrays (``A`` original types,
    ``B`` box types, ``E`` type edges sorted by original type then box type):

    Attributes
    ----------
    n_original, n_released : int
        ``dataset.n`` and ``release.n``.
    n_hidden : int
        Hidden whole-domain rows added when the release has fewer rows than the dataset.
    orig_type : ndarray of int64, shape (n_original,)
        Type of each original record; ``orig_mult`` (A,) its multiplicity.
    box_type : ndarray of int64, shape (n_released,)
        Type of each released row; ``box_mult`` (B,) its multiplicity (hidden rows included).
    hidden_type : int
        Box type of the hidden rows (``-1`` if none).
    edge_orig, edge_box : ndarray of int64, shape (E,)
        The type edges.
    """

    def __init__(self, release: Release) -> None:  # noqa: C901, PLR0912, PLR0915
        from . import _graph_kernels as _K

        ds = release.dataset
        X = np.asarray(ds.X)
        n, r = X.shape
        cell_lo, cell_hi, sets = release.cells()
        lo = np.asarray(cell_lo)
        hi = np.asarray(cell_hi)
        N = int(lo.shape[0])
        if lo.shape[1] != r:
            raise DataError(f"The release has {lo.shape[1]} quasi-identifier columns but the dataset has {r}.")
        if N > n:
            raise DataError(
                f"The release has {N} rows but the dataset only {n}; it cannot be a generalization of it "
                "(every released row must generalize a distinct original record)."
            )
        self.release = release
        self.n_original = n
        self.n_released = N
        self.n_hidden = n - N
        self.r = r
        source = None if release.source is None else np.asarray(release.source, dtype=np.int64)
        if source is not None:
            if source.shape != (N,) or (N and (source.min() < 0 or source.max() >= n)):
                raise DataError(f"release.source must hold {N} row numbers in [0, {n}).")
            if len(np.unique(source)) != N:
                raise DataError("release.source lists an input row twice; each record is released at most once.")
        self._source = source

        # pivot column: the one whose intervals contain the fewest records (best pruning)
        if r:
            scanned = np.empty(r, dtype=np.float64)
            for c in range(r):  # loop over columns
                xs = np.sort(X[:, c])
                scanned[c] = float((np.searchsorted(xs, hi[:, c], "right") - np.searchsorted(xs, lo[:, c], "left")).sum())
            pivot, second = (int(c) for c in np.argsort(scanned, kind="stable")[:2]) if r > 1 else (0, 0)
            perm = np.array([pivot] + ([second] if r > 1 else []) + [c for c in range(r) if c not in (pivot, second)],
                            dtype=np.int64)
        else:
            perm = np.zeros(0, dtype=np.int64)

        # original types (ids sorted by the pivot column first)
        Xp = np.ascontiguousarray(X[:, perm]) if r else np.zeros((n, 1), dtype=np.int32)
        if n:
            orig_type, A = group_rows(Xp)
        else:
            orig_type, A = np.zeros(0, dtype=np.int64), 0
        xa = np.empty((A, Xp.shape[1]), dtype=np.int32)
        xa[orig_type] = Xp
        self.orig_type = orig_type
        self.orig_mult = np.bincount(orig_type, minlength=A).astype(np.int64)

        # box types (+ one representative of the hidden whole-domain rows)
        lop = lo[:, perm] if r else np.zeros((N, 1), dtype=np.int32)
        hip = hi[:, perm] if r else np.zeros((N, 1), dtype=np.int32)
        if self.n_hidden:
            full = (np.asarray(ds.domain_sizes)[perm] - 1).astype(np.int32) if r else np.zeros(1, dtype=np.int32)
            lop = np.vstack([lop, np.zeros((1, lop.shape[1]), dtype=np.int32)])
            hip = np.vstack([hip, full[None, :]])
        words = woff = None
        if sets and r:
            # freeform value sets: box types also differ by set content; the hidden rows
            # (whole domain) hold every value
            words, woff = _set_words(sets, perm, len(lop), N)
            ids, B = _group_boxes(lop, hip, words)
        elif len(lop):
            ids, B = group_rows(lop, hip)
        else:
            ids, B = np.zeros(0, dtype=np.int64), 0
        self.box_type = ids[:N]
        self.hidden_type = int(ids[N]) if self.n_hidden else -1
        mult = np.bincount(self.box_type, minlength=B).astype(np.int64)
        if self.n_hidden:
            mult[self.hidden_type] += self.n_hidden
        self.box_mult = mult
        blo = np.empty((B, lop.shape[1]), dtype=np.int32)
        bhi = np.empty((B, lop.shape[1]), dtype=np.int32)
        blo[ids] = lop
        bhi[ids] = hip
        self.n_orig_types = A
        self.n_box_types = B

        # type edges: listed per scan row, then sorted by (original type, box type)
        key0 = np.ascontiguousarray(xa[:, 0])
        start = np.searchsorted(key0, blo[:, 0], "left").astype(np.int64)
        stop = np.searchsorted(key0, bhi[:, 0], "right").astype(np.int64)
        stop = np.maximum(stop, start)
        # scan rows: one per box type, or, where boxes span few pivot values, one per (box type,
        # pivot value) on the sorted (pivot, second column) key: a box then scans only the
        # records inside both its ranges (types are sorted by all columns, so that key is sorted)
        scan_box = np.arange(B, dtype=np.int64)
        if r >= 2 and B and A:
            nv = (bhi[:, 0].astype(np.int64) - blo[:, 0] + 1)
            P = int(nv.sum())
            if P <= 2 * B:
                M = int(np.asarray(ds.domain_sizes)[perm[1]])
                key01 = xa[:, 0].astype(np.int64) * M + xa[:, 1]
                scan_box = np.repeat(scan_box, nv)
                v = blo[scan_box, 0].astype(np.int64) + (np.arange(P, dtype=np.int64) - np.repeat(np.cumsum(nv) - nv, nv))
                start = np.searchsorted(key01, v * M + blo[scan_box, 1], "left").astype(np.int64)
                stop = np.maximum(np.searchsorted(key01, v * M + bhi[scan_box, 1], "right").astype(np.int64), start)
        if words is not None:
            # every column (the pivot included) is re-tested: sets are not intervals
            rep = np.empty(B, dtype=np.int64)
            rep[ids] = np.arange(len(ids), dtype=np.int64)  # a row of each box type
            split = len(scan_box) != B
            sblo, sbhi = (blo[scan_box], bhi[scan_box]) if split else (blo, bhi)
            cnt, out = _K.type_edges_sets(xa, sblo, sbhi, words[rep[scan_box]], woff, start, stop)
        elif r <= 1:
            cnt = stop - start
        else:
            scan_box, orders, oid, start, stop = _narrowest_scans(xa, blo, bhi, scan_box, start, stop)
            sblo, sbhi = np.ascontiguousarray(blo[scan_box]), np.ascontiguousarray(bhi[scan_box])
            cnt, out = _K.type_edges(xa, orders, oid, sblo, sbhi, start, stop)
        if words is None and r <= 1:
            # single column: the edges are the whole searchsorted ranges
            ptr = np.zeros(len(cnt) + 1, dtype=np.int64)
            np.cumsum(cnt, out=ptr[1:])
            out = np.arange(int(ptr[-1]), dtype=np.int64) - np.repeat(ptr[:-1], cnt) + np.repeat(start, cnt)
        self.edge_orig, self.edge_box = _K._sort_type_edges(out, np.repeat(scan_box, cnt), A, B)
        self._edge_key = self.edge_orig * max(B, 1) + self.edge_box
        #: k -> k_factor(k), and the support of a k-factor flow once one is found
        self._k_factors: dict[int, tuple[bool, np.ndarray]] = {}
        self._factor_support: np.ndarray | None = None

    # --------------------------------------------------------------------- degrees
    @property
    def n_edges(self) -> int:
        """Number of type edges."""
        return int(len(self.edge_orig))

    @cached_property
    def type_degrees(self) -> tuple[np.ndarray, np.ndarray]:
        """Degrees ``(per original type, per box type)`` in the record graph."""
        da = np.bincount(self.edge_orig, weights=self.box_mult[self.edge_box], minlength=self.n_orig_types)
        db = np.bincount(self.edge_box, weights=self.orig_mult[self.edge_orig], minlength=self.n_box_types)
        return np.rint(da).astype(np.int64), np.rint(db).astype(np.int64)

    def degrees(self) -> tuple[np.ndarray, np.ndarray]:
        """Record-level degrees ``(deg_original (n_original,), deg_released (n_released,))``."""
        da, db = self.type_degrees
        return da[self.orig_type], db[self.box_type]

    # --------------------------------------------------------------------- flow and matches
    @cached_property
    def flow(self) -> np.ndarray:
        """A feasible flow on the type edges (int64, shape (E,)): one perfect matching.

        From ``release.source`` when known, else a maximum flow. Raises
        :class:`~ktype.exceptions.DataError` when the release is not a generalization.
        """
        A, B, E = self.n_orig_types, self.n_box_types, self.n_edges
        n = self.n_original
        if self._source is not None:
            src = self._source
            a = self.orig_type[src]
            b = self.box_type
            if self.n_hidden:
                left = np.ones(n, dtype=bool)
                left[src] = False
                a = np.concatenate([a, self.orig_type[left]])
                b = np.concatenate([b, np.full(self.n_hidden, self.hidden_type, dtype=np.int64)])
            key = a * max(B, 1) + b
            pos = np.searchsorted(self._edge_key, key)
            pos_c = np.minimum(pos, max(E - 1, 0))
            found = (pos < E) & (self._edge_key[pos_c] == key) if E else np.zeros(len(key), dtype=bool)
            if not found.all():
                j = int(np.flatnonzero(~found)[0])
                raise DataError(self._not_generalizing_message(j))
            return np.bincount(pos, minlength=E).astype(np.int64)
        # unknown row order: maximum flow source -> original types -> box types -> sink
        from ._maxflow import check_flow, max_flow

        net = self._type_network(self.orig_mult, np.minimum(self.orig_mult[self.edge_orig], self.box_mult[self.edge_box]),
                                 self.box_mult)
        value, f = max_flow(*net)
        if value < n:
            raise DataError(
                f"The release is not a generalization of the dataset: at most {value} of its "
                f"{n} records can be paired with distinct released rows consistent with them (the consistency "
                "graph has no perfect matching). Check that the release was built from this dataset."
            )
        check_flow(*net[:3], f, *net[3:], value)
        return f[A:A + E]

    def _not_generalizing_message(self, j: int) -> str:
        if j >= self.n_released:  # pragma: no cover - hidden rows cover everything
            return "The release is not a generalization of the dataset."
        assert self._source is not None
        i = int(self._source[j])
        X = self.release.dataset.X
        lo, hi = self.release.lo[j], self.release.hi[j]
        bad = np.flatnonzero((X[i] < lo) | (X[i] > hi))
        col = self.release.dataset.quasi_identifiers[int(bad[0])] if len(bad) else "?"
        c = int(bad[0]) if len(bad) else 0
        return (
            f"The release is not a generalization of the dataset: released row {j} does not cover its "
            f"source record {i} (column {col!r}: leaf rank {int(X[i, c])} outside [{int(lo[c])}, {int(hi[c])}])."
        )

    @cached_property
    def support(self) -> np.ndarray:
        """Boolean per type edge: positive in one feasible perfect (possibly fractional) flow.

        ``flow > 0``, unless the flow was not needed yet and a k-factor flow of this graph is
        known: then its support (module docstring: ``F / k`` is a feasible point). The matches
        derived from it do not depend on which feasible point is used.
        """
        if self._source is None and "flow" not in self.__dict__ and self._factor_support is not None:
            return self._factor_support
        return self.flow > 0

    @cached_property
    def scc(self) -> tuple[int, np.ndarray]:
        """SCCs of the residual graph on ``A + B`` nodes (original types first)."""
        from scipy import sparse
        from scipy.sparse.csgraph import connected_components

        A, B = self.n_orig_types, self.n_box_types
        pos = self.support
        rows = np.concatenate([self.edge_orig, A + self.edge_box[pos]])
        cols = np.concatenate([A + self.edge_box, self.edge_orig[pos]])
        G = sparse.csr_array((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(A + B, A + B))
        nc, lab = connected_components(G, directed=True, connection="strong")
        return int(nc), lab.astype(np.int64)

    @cached_property
    def is_match(self) -> np.ndarray:
        """Boolean per type edge: lies on some perfect matching."""
        _, lab = self.scc
        return self.support | (lab[self.edge_orig] == lab[self.n_orig_types + self.edge_box])

    def match_counts(self) -> np.ndarray:
        """Number of matches of each original record (hidden rows included)."""
        m = self.is_match
        ca = np.bincount(self.edge_orig[m], weights=self.box_mult[self.edge_box[m]], minlength=self.n_orig_types)
        return np.rint(ca).astype(np.int64)[self.orig_type]

    def released_match_counts(self) -> np.ndarray:
        """Number of original records each released row is a match of (the concealment
        version of (k,1), remark after Def. 6 in §4.2)."""
        m = self.is_match
        cb = np.bincount(self.edge_box[m], weights=self.orig_mult[self.edge_orig[m]], minlength=self.n_box_types)
        return np.rint(cb).astype(np.int64)[self.box_type]

    def k_factor(self, k: int) -> tuple[bool, np.ndarray]:
        """Does the record graph contain a k-regular spanning subgraph (a *k-factor*)?

        A k-regular generalization graph E ⊆ consistency graph (Doka et al., ASIA CCS 2015,
        §2.2, Theorem 2.3; Wong et al., SIGMOD 2010) is what makes every candidate of a record
        equiprobable; a release whose consistency graph has no k-factor cannot have been built
        from one, whatever its match counts (Doka et al. Lemma 2.2 gives only the converse).

        Decided by one maximum flow (:mod:`._maxflow`) on the type graph: source → original type
        ``a`` with capacity ``k·ma``, ``a`` → box type ``b`` with capacity
        ``min(ma·mb, k·ma, k·mb)`` for every type edge, ``b`` → sink with capacity ``k·mb``. At
        record level (capacity ``k`` per record and per row, 1 per edge) a flow of value
        ``n·k`` is exactly a k-factor (integral flows). Compression loses nothing: given a
        type-level flow ``f``, split ``f(a, b)`` as evenly as possible over the records of
        ``a`` (the remainders of the blocks ``b`` dealt cyclically, so each record gets ``k``
        in total) and likewise over the rows of ``b``; near-uniform row and column sums with
        total ``f(a, b) <= ma·mb`` always admit a 0/1 ``ma × mb`` block (Gale–Ryser), so the
        flow lifts to a k-factor. ``f(a, b) <= min(k·ma, k·mb)`` holds in any flow, so that
        cap is free and keeps capacities within ``n·k``.

        Returns
        -------
        (exists, short) : (bool, ndarray of bool, shape (n_original,))
            ``exists`` iff a k-factor exists; ``short`` marks the original records whose type
            the maximum flow found could not give ``k`` edges (all False when it exists).

        The answer is kept per ``k``; a k-factor flow found also serves as the feasible flow of
        the matches (:attr:`support`), so a checker that asks for both solves one flow.
        """
        if k not in self._k_factors:
            self._k_factors[k] = self._solve_k_factor(k)
        exists, short = self._k_factors[k]
        return exists, short.copy()

    def _solve_k_factor(self, k: int) -> tuple[bool, np.ndarray]:
        from . import _graph_kernels as _K
        from ._maxflow import backend, check_flow, check_transport_flow, max_flow

        A, E = self.n_orig_types, self.n_edges
        n = self.n_original
        if n == 0:
            return True, np.zeros(0, dtype=bool)
        if n * k >= 2**31:
            raise InvalidParameterError(f"The k-factor flow needs n·k < 2^31 (n = {n:,}, k = {k}).")
        ma, mb = self.orig_mult, self.box_mult
        ea, eb = self.edge_orig, self.edge_box
        cap_a, cap_b = k * ma, k * mb
        cap_e = _K.k_factor_capacities(ea, eb, ma, mb, k)  # min(ma·mb, k·ma, k·mb) per edge, in one pass
        fe = self._forced_then_max_flow(cap_a, cap_e, cap_b)
        if fe is not None:
            check_transport_flow(ea, eb, cap_a, cap_e, cap_b, fe)  # a full flow is believed only once checked
        else:  # the whole network's maximum flow decides
            net = self._type_network(cap_a, cap_e, cap_b)
            value, f = max_flow(*net)
            if value != n * k:
                if backend() != "scipy":  # the records left short depend on the flow: reported from scipy's, on any install
                    value, f = max_flow(*net, solver="scipy")
                return False, (f[:A] < cap_a)[self.orig_type]
            check_flow(*net[:3], f, *net[3:], value)
            fe = f[A:A + E]
        if k >= 1 and self._factor_support is None:
            self._factor_support = fe > 0
        return True, np.zeros(n, dtype=bool)

    def _forced_then_max_flow(self, cap_a: np.ndarray, cap_e: np.ndarray, cap_b: np.ndarray) -> np.ndarray | None:
        """The edge flows of a full flow of the k-factor network (supplies ``cap_a`` of the
        original types, edge capacities ``cap_e``, demands ``cap_b`` of the box types), found by
        fixing the flow on the edges every full flow fills
        (:func:`~._graph_kernels.forced_flow`) and one maximum flow of what is left; None when
        that does not give one (then the whole network's maximum flow decides).

        On a freeform release of 10⁶ rows the forced edges are 3.6M of 12.6M and meet 44 % of
        the flow, and the maximum flow runs on 9.0M edges instead. The flow returned is checked
        by the caller, as any solver's is.
        """
        from ._graph_kernels import forced_flow
        from ._maxflow import max_flow

        A, B = self.n_orig_types, self.n_box_types
        if int(cap_a.sum()) != int(cap_b.sum()):  # a full flow would not meet every demand
            return None
        fe, act, c, la, lb, ok = forced_flow(self.edge_orig, self.edge_box, cap_e, cap_a, cap_b)
        if not ok or int(la.sum()) != int(lb.sum()):
            return None
        left = np.flatnonzero(act)
        if len(left):
            ua, ub = np.flatnonzero(la > 0), np.flatnonzero(lb > 0)
            ra = np.full(A, -1, dtype=np.int64)
            ra[ua] = np.arange(len(ua))
            rb = np.full(B, -1, dtype=np.int64)
            rb[ub] = np.arange(len(ub))
            left_a, left_b = ra[self.edge_orig[left]], rb[self.edge_box[left]]
            if (left_a < 0).any() or (left_b < 0).any():  # pragma: no cover
                return None  # an edge left to a node with nothing left: not what forced_flow returns
            # posed from the box types' side (source -> box type -> original type -> sink):
            # OR-Tools solves this orientation 8-12 % faster here; the edge flows are the same
            value, sub = max_flow(*_transport_network(left_b, left_a, len(ub), len(ua), lb[ub], c[left], la[ua]))
            if value != int(la.sum()):
                return None
            fe[left] += sub[len(ub):len(ub) + len(left)]
        elif la.any():
            return None
        return fe

    def _type_network(self, cap_orig: np.ndarray, cap_edge: np.ndarray,
                      cap_box: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int, int]:
        """The flow network of the type graph as :func:`~._maxflow.max_flow` takes it:
        ``(tail, head, cap, n_nodes, s, t)`` with the arcs source ``0`` -> original type
        ``1 + a`` (``cap_orig``), then the type edges in edge order (``cap_edge``), then box type
        ``1 + A + b`` -> sink ``A + B + 1`` (``cap_box``); arc ``A + e`` is type edge ``e``."""
        return _transport_network(self.edge_orig, self.edge_box, self.n_orig_types, self.n_box_types,
                                  cap_orig, cap_edge, cap_box)

    def _indicator_orig(self) -> sparse.csr_matrix:
        from scipy import sparse

        n = self.n_original
        return sparse.csr_matrix((np.ones(n, dtype=np.int8), (np.arange(n), self.orig_type)), shape=(n, self.n_orig_types))

    def _indicator_box(self) -> sparse.csr_matrix:
        from scipy import sparse

        N = self.n_released
        return sparse.csr_matrix((np.ones(N, dtype=np.int8), (self.box_type, np.arange(N))), shape=(self.n_box_types, N))

    def expand(self, values: np.ndarray, mask: np.ndarray | None = None, dtype=np.int8) -> sparse.csr_matrix:
        """Record-level ``(n_original, n_released)`` matrix from per-type-edge values."""
        from scipy import sparse

        if mask is None:
            mask = np.ones(self.n_edges, dtype=bool)
        T = sparse.csr_matrix(
            (np.asarray(values, dtype=dtype)[mask], (self.edge_orig[mask], self.edge_box[mask])),
            shape=(self.n_orig_types, self.n_box_types),
        )
        out = (self._indicator_orig().astype(dtype) @ T @ self._indicator_box().astype(dtype)).tocsr()
        out.sort_indices()
        return out

    def record_matches(self) -> sparse.csr_matrix:
        """Sparse ``(n_original, n_released)`` int8 matrix, 1 where row j is a match of record i."""
        return self.expand(np.ones(self.n_edges, dtype=np.int8), self.is_match)

    def record_adjacency(self) -> sparse.csr_matrix:
        """Sparse ``(n_original, n_released)`` int8 consistency matrix (all edges)."""
        return self.expand(np.ones(self.n_edges, dtype=np.int8))

    def components(self) -> tuple[np.ndarray, np.ndarray]:
        """Record-level match components: label per original record and sizes.

        Labels are numbered by their first original record; a component's size is its
        number of original records (= its number of released rows, hidden ones included).
        """
        _, lab = self.scc
        per = lab[: self.n_orig_types][self.orig_type]
        if not len(per):
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        uniq, first, inv = np.unique(per, return_index=True, return_inverse=True)
        rank = np.empty(len(uniq), dtype=np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(len(uniq))
        labels = rank[inv]
        return labels, np.bincount(labels).astype(np.int64)


# ------------------------------------------------------------------------------- public API
#: the graph lent by :func:`shared_graph` in this context, with its release (checked by identity)
_LENT: ContextVar[tuple[Release, ConsistencyGraph] | None] = ContextVar("ktype_lent_graph", default=None)


def _narrowest_scans(
    xa: np.ndarray, blo: np.ndarray, bhi: np.ndarray, scan_box: np.ndarray, start: np.ndarray, stop: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per box type, the cheapest way to list its candidate original types.

    ``xa`` holds the original types sorted by all columns; ``scan_box, start, stop`` are
    scan rows on that order (one per box, or one per (box, pivot value)). Each box keeps
    them unless one column's sorted order holds fewer types inside the box's range on that
    column; then it scans that range instead. Returns ``(scan_box, orders, oid, start,
    stop)``: scan row s reads ``orders[oid[s], start[s]:stop[s]]`` (``orders[r]`` is the
    types' own order).
    """
    A, r = xa.shape
    B = len(blo)
    orders = np.empty((r + 1, A), dtype=np.int64)
    orders[r] = np.arange(A)
    width = np.empty((r, B), dtype=np.int64)
    first = np.empty((r, B), dtype=np.int64)
    for c in range(r):  # loop over columns
        o = np.argsort(xa[:, c], kind="stable")
        orders[c] = o
        vs = xa[o, c]
        first[c] = np.searchsorted(vs, blo[:, c], "left")
        width[c] = np.maximum(np.searchsorted(vs, bhi[:, c], "right") - first[c], 0)
    col = np.argmin(width, axis=0)  # ties: the first column
    best = width[col, np.arange(B)]
    own = np.bincount(scan_box, weights=stop - start, minlength=B)
    by_col = best < own
    keep = ~by_col[scan_box]
    boxes = np.flatnonzero(by_col)
    scan_box = np.concatenate([scan_box[keep], boxes])
    oid = np.concatenate([np.full(int(keep.sum()), r, dtype=np.int64), col[boxes].astype(np.int64)])
    s0 = first[col[boxes], boxes]
    start = np.concatenate([start[keep], s0]).astype(np.int64)
    stop = np.concatenate([stop[keep], s0 + best[boxes]]).astype(np.int64)
    return scan_box, orders, oid, start, stop


def consistency_graph(release: Release) -> ConsistencyGraph:
    """Build the type-compressed consistency graph of ``release`` (reuse it across queries).

    Inside :func:`shared_graph` for this very release object, the graph lent there is
    returned instead of a new one.
    """
    hit = _LENT.get()
    if hit is not None and hit[0] is release:
        return hit[1]
    return ConsistencyGraph(release)


@contextmanager
def shared_graph(release: Release, graph: ConsistencyGraph) -> Iterator[ConsistencyGraph]:
    """Within the block, every :func:`consistency_graph` of ``release`` (the model checkers')
    returns ``graph``, built once with its matching (the audit's maximum flow).

    ``graph`` must be ``ConsistencyGraph(release)``; the release must not change inside the
    block. The loan ends with the block, so a later change to the release gets a new graph.
    """
    if graph.release is not release:
        raise InvalidParameterError("shared_graph: the graph was built from another release")
    token = _LENT.set((release, graph))
    try:
        yield graph
    finally:
        _LENT.reset(token)


def consistency_degrees(release: Release) -> tuple[np.ndarray, np.ndarray]:
    """Degrees in the consistency graph ``V_{D,g(D)}`` (Tassa et al. §4.2, Def. 4).

    Returns
    -------
    deg_original : ndarray of int64, shape (dataset.n,)
        Number of released rows consistent with each original record (dataset row order;
        its own row and every suppressed / hidden row included).
    deg_released : ndarray of int64, shape (release.n,)
        Number of original records consistent with each released row (release row order).
    """
    return consistency_graph(release).degrees()


def match_counts(release: Release) -> np.ndarray:
    """Number of matches (Def. 6) of each original record, in dataset row order.

    Raises :class:`~ktype.exceptions.DataError` if the release is not a generalization of
    its dataset (no perfect matching).
    """
    return consistency_graph(release).match_counts()


def record_matches(release: Release) -> sparse.csr_matrix:
    """Sparse ``(dataset.n, release.n)`` matrix with 1 where released row ``j`` is a match of
    original record ``i`` (lies on some perfect matching of the consistency graph).

    Suppressed released rows are whole-domain boxes and appear as matches like any other row
    (callers that only want published rows drop their columns); hidden rows of a release
    shorter than the dataset have no column.
    """
    return consistency_graph(release).record_matches()


def match_components(release: Release) -> tuple[np.ndarray, np.ndarray]:
    """Strongly connected components of Algorithm 4 at record level.

    Returns ``(labels, sizes)``: the component of each original record (dataset row order,
    numbered by first record) and the number of records per component. Every match of a
    record lies in its component, so the posterior of §5.2 depends on that component only.
    """
    return consistency_graph(release).components()


def matches_from_adjacency(adj: np.ndarray) -> np.ndarray:
    """All matches of an explicit square bipartite graph (record-level Algorithm 4).

    Parameters
    ----------
    adj : array-like of bool, shape (n, n)
        ``adj[i, j]`` is True iff released row ``j`` is consistent with original ``i``. The
        generalized values may be arbitrary sets (non-laminar, not intervals) — only the
        graph matters. The rows need not be aligned (no identity matching is assumed).

    Returns
    -------
    ndarray of bool, shape (n, n)
        ``True`` where the edge lies on some perfect matching.

    Raises
    ------
    DataError
        If the graph is not square or has no perfect matching.
    """
    from scipy import sparse
    from scipy.sparse.csgraph import connected_components

    from .._matching import maximum_bipartite_matching

    a = np.asarray(adj, dtype=bool)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise DataError(f"matches_from_adjacency needs a square matrix; got shape {a.shape}.")
    n = a.shape[0]
    if n == 0:
        return np.zeros((0, 0), dtype=bool)
    G = sparse.csr_array(a.astype(np.int8))
    mate = maximum_bipartite_matching(G)  # column matched to each row
    if (mate < 0).any():
        raise DataError("The consistency graph has no perfect matching: this is not a generalization.")
    ii, jj = np.nonzero(a)
    rows = np.concatenate([ii, n + mate])
    cols = np.concatenate([n + jj, np.arange(n)])
    H = sparse.csr_array((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(2 * n, 2 * n))
    _, lab = connected_components(H, directed=True, connection="strong")
    out = np.zeros_like(a)
    out[ii, jj] = lab[ii] == lab[n + jj]
    return out
