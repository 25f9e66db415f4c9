"""The generalization lattice, the optimal search (``flash``) and the exhaustive oracle.

Survey (Ciriani et al.) §2.1–2.2: nodes are distance vectors of the product of the QIs'
level chains; ``height(L) = Σ L_j``; the direct generalizations of ``L`` raise one
coordinate by one; a *strategy* is a maximal chain bottom → top; a node is a solution when
its required suppression is within ``MaxSup``; the k-minimal generalizations (Def. 5) are
the minimal solutions under the coordinate-wise order.

Length: the search strategies over one lattice state (Flash classification, the bounded search, the
by-value visit, the exact optimum for non-monotone measures, the exhaustive oracle) read and tag the
same arrays; splitting them would spread that state's invariants over several modules.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property
from math import factorial, prod
from typing import Any

import numpy as np

from ... import _progress
from ...exceptions import InfeasibleError, InvalidParameterError, LatticeTooLargeError
from ...release import Release
from ._engine import Encoded, FrequencyCache, FrequencySet, NodeEval
from ._kernels import (
    _box_max_kernel,
    _floor_tag_kernel,
    _lattice_kernel,
    _next_open,
    _path_bounded_kernel,
    _path_kernel,
    _spread_max_kernel,
    _tag_kernel,
)

__all__ = [
    "MAX_LATTICE_BYTES",
    "Lattice",
    "LatticeResult",
    "LatticeSearch",
    "build_release",
    "check_dense",
    "dense_search_bytes",
    "lattice_size",
    "preference",
    "run_search",
]

_TOL = 1e-9
_PRUNED = 2  # state of a node a bound excluded from the optimum (reported as 0: not classified)
_CACHE_BUDGET = 256 * 2**20  # bytes of cached frequency sets
_HUB_MIN_ROWS = 2000
#: an exact lattice search refuses to start when its per-node arrays would exceed this many bytes
MAX_LATTICE_BYTES = 2 * 2**30
#: bytes per node of a dense search: level vectors (int64, int8 twice), state, flags, values,
#: suppression, classes, bounds, orderings, and the temporaries of building the level vectors
_BYTES_PER_NODE_QI = 26
_BYTES_PER_NODE = 96


def lattice_size(heights: Any) -> int:
    """Number of lattice nodes ``Π (h_j + 1)`` as an exact Python int (no int64 overflow)."""
    return prod(int(h) + 1 for h in heights)


def dense_search_bytes(heights: Any) -> int:
    """Memory an exact (dense) lattice search needs for its per-node arrays, in bytes."""
    return lattice_size(heights) * (_BYTES_PER_NODE_QI * len(heights) + _BYTES_PER_NODE)


def _fmt_bytes(b: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if b < 1024 or unit == "PiB":
            return f"{b:.3g} {unit}"
        b /= 1024
    return f"{b:.3g} PiB"  # pragma: no cover


def too_large(algorithm: str, heights: Any, what: str, need: int, limit: int) -> LatticeTooLargeError:
    """The error of a lattice algorithm refusing a lattice too large for it (numbers and the way out)."""
    size = lattice_size(heights)
    hs = [int(h) for h in heights]
    shown = str(hs) if len(hs) <= 24 else f"{min(hs)}..{max(hs)}, total {sum(hs)}"
    return LatticeTooLargeError(
        f"{algorithm}: the full-domain lattice of {len(heights)} quasi-identifiers (hierarchy heights "
        f"{shown}) has {size:,} nodes ({float(size):.3g}); {what} needs about "
        f"{_fmt_bytes(need)}, above the limit of {_fmt_bytes(limit)}. Use a best-effort search ('lightning' with "
        "a time or node budget, e.g. run('lightning', ..., time_limit=10), or 'datafly'), hierarchies with fewer "
        "levels, or fewer quasi-identifiers (each one multiplies the lattice by its height + 1)."
    )


def check_dense(algorithm: str, heights: Any) -> None:
    """Refuse an exact search whose per-node arrays would exceed :data:`MAX_LATTICE_BYTES`."""
    need = dense_search_bytes(heights)
    if need > MAX_LATTICE_BYTES:
        raise too_large(algorithm, heights, "an exact search over every node", need, MAX_LATTICE_BYTES)


class Lattice:
    """The full-domain generalization lattice over level chains of heights ``heights``.

    Node ids are mixed-radix numbers of the level vectors (first QI most significant), so
    sorting ids sorts level vectors lexicographically.
    """

    def __init__(self, heights: np.ndarray) -> None:
        check_dense("lattice", heights)
        self.heights = np.asarray(heights, dtype=np.int64)
        self.r = len(self.heights)
        radix = self.heights + 1
        self.strides = np.ones(self.r, dtype=np.int64)
        for j in range(self.r - 2, -1, -1):
            self.strides[j] = self.strides[j + 1] * radix[j + 1]
        self.size = int(np.prod(radix))
        self.levels, self.levels8, self.height = _lattice_kernel(self.heights, self.size)
        self.top = int(self.size - 1)

    @cached_property
    def _cols(self) -> list[np.ndarray]:
        """Each column's levels (int8, contiguous) for :meth:`above` / :meth:`below`."""
        return [np.ascontiguousarray(self.levels8[:, j]) for j in range(self.r)]

    def node_id(self, levels: Any) -> int:
        return int(np.dot(np.asarray(levels, dtype=np.int64), self.strides))

    def successors(self, node: int) -> list[int]:
        """Direct generalizations (survey §2.1): one attribute raised by one level."""
        lv = self.levels[node]
        return [node + int(self.strides[j]) for j in range(self.r) if lv[j] < self.heights[j]]

    def predecessors(self, node: int) -> list[int]:
        """Direct specializations: one attribute lowered by one level."""
        lv = self.levels[node]
        return [node - int(self.strides[j]) for j in range(self.r) if lv[j] > 0]

    def above(self, levels: np.ndarray, among: np.ndarray | None = None) -> np.ndarray:
        """Nodes that generalize ``levels`` (itself included): a mask, or ids within ``among``."""
        return self._cmp(levels, among, np.greater_equal)

    def below(self, levels: np.ndarray, among: np.ndarray | None = None) -> np.ndarray:
        """Nodes that ``levels`` generalizes (itself included): a mask, or ids within ``among``."""
        return self._cmp(levels, among, np.less_equal)

    def _cmp(self, levels, among, op):
        if among is None:
            m = op(self._cols[0], levels[0])
            for j in range(1, self.r):
                m &= op(self._cols[j], levels[j])
            return m
        ids = among
        for j in range(self.r):
            ids = ids[op(self._cols[j][ids], levels[j])]
        return ids

    def n_strategies(self) -> int:
        """Number of generalization strategies (maximal chains): ``(Σh)! / Π h_j!`` (survey §2.1)."""
        tot = factorial(int(self.heights.sum()))
        for h in self.heights:
            tot //= factorial(int(h))
        return tot

    def minimal(self, mask: np.ndarray) -> np.ndarray:
        """Ids of the minimal elements of the node set ``mask`` (closed upward or not)."""
        ids = np.flatnonzero(mask)
        keep = np.ones(len(ids), dtype=bool)
        for j in range(self.r):
            has = self.levels[ids, j] > 0
            pred = ids[has] - self.strides[j]
            keep[np.flatnonzero(has)[mask[pred]]] = False
        if not self._upward_closed(mask):
            # a non-monotone feasible set: minimal = no feasible node strictly below at all
            out = []
            for i in ids[keep]:
                if (self.below(self.levels[i]) & mask).sum() == 1:
                    out.append(i)
            return np.array(out, dtype=np.int64)
        return ids[keep]

    def _upward_closed(self, mask: np.ndarray) -> bool:
        ids = np.flatnonzero(mask)
        for j in range(self.r):
            has = self.levels[ids, j] < self.heights[j]
            if not mask[ids[has] + self.strides[j]].all():
                return False
        return True


def preference(levels: np.ndarray, heights: np.ndarray, criterion: str = "absolute") -> np.ndarray:
    """Preference criteria among k-minimal generalizations (survey §2.2) for distance vectors.

    ``"absolute"``: ``Σ d_j`` (height); ``"relative"``: ``Σ d_j / h_j``. Both lower is better.
    (The *distribution* and *suppression* criteria need the data: they are the
    ``average_class_size`` measure and the suppressed count of a node.)
    """
    levels = np.atleast_2d(levels)
    if criterion == "absolute":
        return levels.sum(axis=1).astype(float)
    if criterion == "relative":
        h = np.where(heights > 0, heights, 1)
        return (levels / h).sum(axis=1)
    raise InvalidParameterError(f"Unknown preference criterion {criterion!r}; use 'absolute' or 'relative'.")


@dataclass
class LatticeResult:
    """Outcome of a lattice search: the optimum, the k-minimal nodes and the classified lattice.

    Attributes
    ----------
    levels : ndarray (N, r)
        Every node's level vector, by node id (lexicographic order).
    state : ndarray of int8 (N,)
        ``1`` feasible, ``-1`` infeasible, ``0`` not classified (only when the search could
        stop early, e.g. Samarati).
    evaluated : ndarray of bool (N,)
        Nodes whose frequency set was actually computed (the rest were tagged by prediction).
    values, suppressed : ndarray (N,)
        Measure value and required suppression of evaluated nodes (NaN / -1 elsewhere).
    optimum : ndarray (r,)
        Level vector of the best feasible node (ties: lowest height, then lexicographic).
    minimal : ndarray (m, r)
        The k-minimal nodes (minimal feasible nodes, survey Def. 5), lexicographic.
    lattice_size : int or None
        Set for a *sparse* result (searches that never build the lattice: ``datafly``,
        ``samarati``, ``lightning``): the number of lattice nodes, while ``levels`` and the
        per-node arrays hold only the visited nodes (lexicographic order). ``minimal``
        then holds the minimal feasible nodes the search found.
    """

    algorithm: str
    measure: str
    max_suppression: float
    limit: int
    quasi_identifiers: list[str]
    heights: np.ndarray
    levels: np.ndarray
    state: np.ndarray
    evaluated: np.ndarray
    values: np.ndarray
    suppressed: np.ndarray
    optimum: np.ndarray
    value: float
    optimum_suppressed: int
    minimal: np.ndarray
    time_s: float
    monotone_feasibility: bool
    monotone_measure: bool
    extra: dict[str, Any] = field(default_factory=dict)
    classes: np.ndarray | None = None
    lattice_size: int | None = None

    def prefer(self, criterion: str = "absolute") -> np.ndarray:
        """The k-minimal node preferred by a criterion of the survey's §2.2.

        ``"absolute"`` (least height ``Σ d_j``), ``"relative"`` (least ``Σ d_j/h_j``),
        ``"distribution"`` (most released classes, i.e. distinct tuples) or
        ``"suppression"`` (fewest suppressed records). Ties: lowest height, then the
        lexicographically smallest level vector.
        """
        if not self.extra.get("k_minimal_complete", True):
            raise InvalidParameterError(
                "this search looked for the optimum only and did not find every k-minimal node; "
                "run lattice_search(..., k_minimal=True) to choose among them."
            )
        ids = self._rows(self.minimal)
        if criterion in ("absolute", "relative"):
            key = preference(self.minimal, self.heights, criterion)
        elif criterion == "distribution":
            if self.classes is None or (self.classes[ids] < 0).any():
                raise InvalidParameterError("class counts of the k-minimal nodes are not available for this result.")
            key = -self.classes[ids].astype(float)
        elif criterion == "suppression":
            key = self.suppressed[ids].astype(float)
        else:
            raise InvalidParameterError(
                f"Unknown preference criterion {criterion!r}; use 'absolute', 'relative', 'distribution' or 'suppression'."
            )
        order = np.lexsort((ids, self.minimal.sum(axis=1), key))
        return self.minimal[order[0]].copy()

    def _rows(self, levels: np.ndarray) -> np.ndarray:
        """Rows of ``self.levels`` holding the level vectors ``levels`` (node ids when dense)."""
        if self.lattice_size is None:
            strides = np.ones(len(self.heights), dtype=np.int64)
            for j in range(len(self.heights) - 2, -1, -1):
                strides[j] = strides[j + 1] * (self.heights[j + 1] + 1)
            return levels @ strides
        index = {row.tobytes(): i for i, row in enumerate(np.ascontiguousarray(self.levels, dtype=np.int64))}
        return np.array([index[row.tobytes()] for row in np.ascontiguousarray(levels, dtype=np.int64)], dtype=np.int64)

    @property
    def n_nodes(self) -> int:
        """Number of lattice nodes (all of them, also for a sparse result)."""
        return int(len(self.levels)) if self.lattice_size is None else int(self.lattice_size)

    @property
    def n_evaluated(self) -> int:
        return int(self.evaluated.sum())

    def summary(self) -> dict[str, Any]:
        """JSON-able summary (stored in ``release.provenance["lattice"]``)."""
        out = {
            "algorithm": self.algorithm,
            "measure": self.measure,
            "max_suppression": self.max_suppression,
            "suppression_limit": self.limit,
            "quasi_identifiers": list(self.quasi_identifiers),
            "heights": [int(h) for h in self.heights],
            "nodes": self.n_nodes if self.n_nodes < 2**53 else str(self.n_nodes),
            "nodes_evaluated": self.n_evaluated,
            "nodes_feasible": int((self.state == 1).sum()),
            "nodes_infeasible": int((self.state == -1).sum()),
            "nodes_unclassified": int((self.state == 0).sum()) + (self.n_nodes - len(self.levels)),
            "optimum": [int(x) for x in self.optimum],
            "value": float(self.value),
            "suppressed": int(self.optimum_suppressed),
            "k_minimal": [[int(x) for x in row] for row in self.minimal[:1000]],
            "n_k_minimal": int(len(self.minimal)),
            "monotone_feasibility": self.monotone_feasibility,
            "monotone_measure": self.monotone_measure,
            "time_s": round(self.time_s, 6),
        }
        out.update(self.extra)
        return out


def encoding_fields(enc: Encoded) -> dict[str, Any]:
    """The :class:`LatticeResult` fields that every search copies from its encoding."""
    return {
        "measure": enc.measure,
        "max_suppression": enc.max_suppression,
        "limit": enc.limit,
        "quasi_identifiers": list(enc.dataset.quasi_identifiers),
        "heights": enc.heights.copy(),
    }


def value_order(value: np.ndarray, height: np.ndarray) -> np.ndarray:
    """Node ids by increasing ``(value, height, id)`` (``np.lexsort((ids, height, value))``):
    a quicksort by value; where values tie exactly, a second quicksort of the unique integer key
    ``(rank of the value, height, id)`` (two unstable sorts are cheaper than a stable one)."""
    order = np.argsort(value)
    vs = value[order]
    same = vs[1:] == vs[:-1]
    if not same.any():
        return order
    n = len(value)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.concatenate(([0], np.cumsum(~same)))
    key = (rank * (int(height.max()) + 1) + height) * n + np.arange(n)
    return np.argsort(key)


def height_order(priority: np.ndarray, height: np.ndarray) -> np.ndarray:
    """Node ids by increasing ``(height, priority, id)``: ``np.lexsort((priority, height))`` as
    two stable sorts (by priority, then by height as int16, a radix sort), 1.6x faster."""
    o = np.argsort(priority, kind="stable")
    h = height.astype(np.int16) if int(height.max(initial=0)) < 2**15 else height
    return o[np.argsort(h[o], kind="stable")]


class LatticeSearch:
    """Search state over one lattice: node evaluation with roll-up caching and tagging."""

    def __init__(self, enc: Encoded) -> None:
        self.enc = enc
        self.lat = Lattice(enc.heights)
        N = self.lat.size
        self.state = np.zeros(N, dtype=np.int8)
        self.evaluated = np.zeros(N, dtype=bool)
        self.values = np.full(N, np.nan)
        self.sup = np.full(N, -1, dtype=np.int64)
        self.classes = np.full(N, -1, dtype=np.int64)
        self.dm_bound = np.zeros(N)
        self._tagging = False  # predictive tagging allowed (monotone classification running)
        self._bounded = False  # bounds and the best value are maintained (classify_bounded)
        self._relaxed = False  # state holds the relaxation's feasibility (non-monotone models)
        self._cache = FrequencyCache(enc, _CACHE_BUDGET)  # roll-up sources by node id
        #: roll-up hubs one level below the node (see _source) without suppression, else at level <= 1
        self._hub_below = enc.limit == 0

    def result(
        self,
        algorithm: str,
        best: int,
        minimal: np.ndarray,
        t0: float,
        *,
        monotone_feasibility: bool,
        monotone_measure: bool,
        extra: dict,
        evaluated: np.ndarray | None = None,
    ) -> LatticeResult:
        """The :class:`LatticeResult` of a finished search: optimum ``best``, the k-minimal
        node ids ``minimal``, started at ``t0`` (``time.perf_counter``)."""
        enc, lat = self.enc, self.lat
        return LatticeResult(
            algorithm=algorithm,
            **encoding_fields(enc),
            levels=lat.levels,
            state=self.state,
            evaluated=self.evaluated if evaluated is None else evaluated,
            values=self.values,
            suppressed=self.sup,
            optimum=lat.levels[best].copy(),
            value=float(self.values[best]),
            optimum_suppressed=int(self.sup[best]),
            minimal=lat.levels[np.sort(np.asarray(minimal, dtype=np.int64))],
            time_s=time.perf_counter() - t0,
            monotone_feasibility=monotone_feasibility,
            monotone_measure=monotone_measure,
            classes=self.classes,
            extra=extra,
        )

    # ------------------------------------------------------------------ evaluation
    def _source(self, node: int) -> tuple[int, FrequencySet]:
        lv = self.lat.levels[node]
        cid, _, fs = self._cache.source(lv)
        if cid == 0 and node != 0 and self.enc.bottom.n_rows > _HUB_MIN_ROWS:
            # hub: the node itself with every raised column at level 1 (at most 2^r hubs);
            # far smaller than the bottom, and a valid source for every node above it. Without
            # suppression the node one level lower in every raised column is used instead:
            # 21% fewer source rows in the search by value (Adult/FARS, k = 5, 100, entropy and
            # loss), 15% fewer for discernibility; with suppression it costs 14% more
            hid = self.lat.node_id(np.maximum(lv - 1, 0) if self._hub_below else np.minimum(lv, 1))
            if hid != node and hid != 0:
                if hid not in self._cache:
                    ev = self.evaluate(hid, (0, self.enc.bottom))
                    if self.state[hid] == 0:
                        f = self._tag_feasible(ev)
                        self.state[hid] = 1 if f else -1
                        if self._tagging:
                            _tag_kernel(self.lat.heights, self.lat.strides, self.state, self.lat.levels[hid], f, self.state[hid])
                    self._remember(hid, ev.fs)  # type: ignore[arg-type]
                if hid in self._cache:
                    return hid, self._cache.get(hid)
        return cid, fs

    def _remember(self, node: int, fs: FrequencySet) -> None:
        """Cache a frequency set as a roll-up source (see :class:`FrequencyCache`)."""
        self._cache.put(node, self.lat.levels[node], fs)

    def evaluate(self, node: int, src: tuple[int, FrequencySet] | None = None) -> NodeEval:
        """Evaluate ``node`` (roll-up from the smallest cached finer frequency set)."""
        sid, sfs = src if src is not None else self._source(node)
        ev = self.enc.evaluate(sfs, self.lat.levels[sid], self.lat.levels[node])
        self.evaluated[node] = True
        self.values[node] = ev.value
        self.sup[node] = ev.suppressed
        self.classes[node] = ev.n_classes
        self.dm_bound[node] = ev.dm_bound
        if self._bounded:
            self._bound_update(node, ev)
        return ev

    def check(self, node: int, tag: bool) -> bool:
        """Evaluate ``node``, classify it, and (``tag``) tag by monotonicity of feasibility."""
        ev = self.evaluate(node)
        self._remember(node, ev.fs)  # type: ignore[arg-type]
        lv = self.lat.levels[node]
        f = self._tag_feasible(ev)
        self.state[node] = 1 if f else -1
        if tag:
            _tag_kernel(self.lat.heights, self.lat.strides, self.state, lv, f, 1 if f else -1)
        return f

    def _tag_feasible(self, ev: NodeEval) -> bool:
        """The feasibility ``state`` records and tags: the node's own, or in a relaxed search
        (:meth:`classify_bounded` with non-monotone models) that of the monotone relaxation."""
        if self._relaxed:
            return ev.relaxed_sup <= self.enc.limit
        return ev.feasible

    def tag_floors(self) -> int:
        """Classify infeasible, without evaluating them, the nodes below a column's floor or a
        pair of columns' stair (:meth:`Encoded.column_floor`, :meth:`Encoded.pair_stairs`:
        groups too small to pass hold more records than may be suppressed). Returns how many
        nodes lie below them; 0 (nothing tagged) when the top itself fails the test (it is then
        evaluated, and the search reports the suppression it needs).

        Every node left is above the *floor node* (each column at its floor). When that node
        has few classes for certain (the product of its columns' group counts is at most a
        quarter of the bottom's rows) it is evaluated first: the pair tables are counted from
        it, and it is a roll-up source for every other node."""
        enc, lat = self.enc, self.lat
        if enc.relax_k <= 1:
            return 0
        floor = enc.column_floor()
        if floor is None:
            return 0
        src = None
        # the floor node is classified like any node: by the models' feasibility when it is
        # monotone, by the relaxation's in a relaxed bounded search (after _init_bounds)
        if floor.any() and (enc.monotone_feasibility or self._relaxed):
            cells = prod(enc.ngroups[j][int(floor[j])] for j in range(enc.r))
            if cells * 4 <= enc.bottom.n_rows:
                fid = lat.node_id(floor)
                if self.state[fid] == 0:
                    self.check(fid, tag=True)
                if fid in self._cache:
                    src = self._cache.get(fid)
        st = enc.pair_stairs(floor, src)
        if st is None:
            pa = pb = np.zeros(0, dtype=np.int64)
            stairs = np.zeros((0, 1), dtype=np.int64)
        else:
            pa, pb, stairs = st
        return int(_floor_tag_kernel(lat.levels8, lat.heights, lat.strides, self.state, floor, pa, pb, stairs))

    # ------------------------------------------------------------------ classification
    def classify_flash(self, priority: np.ndarray, climb: np.ndarray | None = None) -> None:
        """Classify every node as feasible / infeasible (feasibility must be monotone).

        FLASH-style (Kohlmayer et al. 2012, as in ARX): walk the lattice by height (ties:
        lowest ``priority``); from each unclassified node build a path upward through
        unclassified direct generalizations (the one with the lowest ``climb`` first; default
        ``priority``) and binary-search the path for its lowest feasible node. Every
        evaluation tags all generalizations of a feasible node feasible and all
        specializations of an infeasible node infeasible (predictive tagging), so each node
        is evaluated at most once and most are never evaluated.
        """
        lat = self.lat
        order = height_order(priority, lat.height)
        climb = np.ascontiguousarray(priority if climb is None else climb, dtype=np.float64)
        state = self.state
        self._tagging = True
        pos = 0
        while True:
            pos = int(_next_open(order, state, pos, True))  # next unclassified start
            if pos == len(order):
                break
            _progress.update("lattice search", pos, len(order), "lattice nodes")
            path = _path_kernel(lat.levels8, lat.heights, lat.strides, state, climb, int(order[pos]))
            pos += 1
            self._search_path(path)
        self._tagging = False

    def _search_path(self, path: np.ndarray) -> None:
        """Binary-search an upward path for its lowest feasible node, evaluating (and tagging)
        the unclassified nodes it probes (Flash)."""
        state = self.state
        lo, hi = 0, len(path) - 1
        while lo <= hi:
            mid = (lo + hi) // 2
            node = int(path[mid])
            if state[node] == 0:
                self.check(node, tag=True)
            if state[node] == 1:
                hi = mid - 1
            else:
                lo = mid + 1

    def classify_all(self) -> None:
        """Evaluate every node, bottom-up by height, each rolled up from a direct specialization."""
        lat = self.lat
        prev: dict[int, FrequencySet] = {0: self.enc.bottom}
        top = int(lat.height.max())
        for h in range(top + 1):
            _progress.update("lattice search", h, top + 1, "lattice levels")
            cur: dict[int, FrequencySet] = {}
            for node in np.flatnonzero(lat.height == h):
                node = int(node)
                if node == 0:
                    src = (0, self.enc.bottom)
                else:
                    preds = [p for p in lat.predecessors(node) if p in prev]
                    p = min(preds, key=lambda q: prev[q].n_rows)
                    src = (p, prev[p])
                ev = self.evaluate(node, src)
                self.state[node] = 1 if ev.feasible else -1
                cur[node] = ev.fs  # type: ignore[assignment]
            prev = cur

    # ------------------------------------------------------------------ bounded search
    def bounds_available(self) -> bool:
        """Whether the measure has the sound lower bounds :meth:`classify_bounded` needs."""
        return self.enc.additive or self.enc.measure == "discernibility"

    def _init_bounds(self) -> None:
        """Lower bounds of every node's value: ``mono + sharp`` (see :meth:`classify_bounded`)."""
        enc, lat = self.enc, self.lat
        self._dm = enc.measure == "discernibility"
        if self._dm:
            # Σ_E |E|·max(|E|, k) of the bottom node: every node's classes are unions of its classes
            cnt = enc.bottom.cnt.astype(float)
            self.mono = np.full(lat.size, float((cnt * np.maximum(cnt, enc.k)).sum()))
        else:
            self.mono = np.ascontiguousarray(enc.gen_cost(lat.levels), dtype=np.float64)
        self.sharp = np.zeros(lat.size)
        # records suppressed at a coarser node are suppressed at every finer node when every
        # model is monotone with suppression; for discernibility the surplus n - k needs
        # k-anonymity alone (a class failing ℓ-diversity may be large)
        self._sharpen = enc.limit > 0 and ((enc.kanon_only and self._dm) or (enc._surcharged and not self._dm))
        self._relaxed = enc.relaxed
        self.true_state = np.zeros(lat.size, dtype=np.int8) if self._relaxed else None
        self.best = np.inf
        self._bounded = True

    def _threshold(self) -> float:
        """Nodes whose lower bound exceeds this cannot be (or tie with) the optimum."""
        b = self.best
        return b + _TOL * max(1.0, abs(b)) if np.isfinite(b) else np.inf

    def bound(self, node: int) -> float:
        """Current lower bound of ``node``'s value (valid if ``node`` is feasible)."""
        return float(self.mono[node] + self.sharp[node])

    def _bound_update(self, node: int, ev: NodeEval) -> None:
        """After evaluating ``node``: the best value, and the bounds it implies for others."""
        lv = self.lat.levels[node]
        if self._dm:  # Bayardo–Agrawal: holds for every generalization
            _box_max_kernel(self.lat.heights, self.lat.strides, self.mono, lv, True, float(ev.dm_bound))
        if self._relaxed:
            self.true_state[node] = 1 if ev.feasible else -1
            if self._sharpen and ev.relaxed_sup:
                # records failing the relaxation here fail it, hence the models, at every
                # specialization, and pay there at least their surcharge here
                add = float(self.enc._scale(ev.relaxed_extra))
                _box_max_kernel(self.lat.heights, self.lat.strides, self.sharp, lv, False, add)
        if not ev.feasible:
            return
        if ev.value < self.best:
            self.best = float(ev.value)
        if self._sharpen and ev.suppressed and not self._relaxed:
            # every record suppressed here is suppressed at each specialization, where it pays
            # at least as much: (n - k) more for discernibility, for the additive measures at
            # least its surcharge here (its groups there are finer, so cheaper; the root is not)
            add = float(self.enc.n - self.enc.k) * ev.suppressed if self._dm else float(ev.value) - float(self.mono[node])
            _box_max_kernel(self.lat.heights, self.lat.strides, self.sharp, lv, False, add)

    def _prune(self, node: int, thr: float) -> None:
        if self.mono[node] > thr:  # monotone part: every generalization is out too
            _tag_kernel(self.lat.heights, self.lat.strides, self.state, self.lat.levels[node], True, _PRUNED)
        self.state[node] = _PRUNED

    def _check_or_prune(self, node: int) -> None:
        thr = self._threshold()
        if self.mono[node] + self.sharp[node] > thr:
            self._prune(node, thr)
        else:
            self.check(node, tag=True)

    def classify_bounded(self, priority: np.ndarray, climb: np.ndarray) -> None:
        """Flash classification restricted to the nodes that can still be optimal.

        Like :meth:`classify_flash`, but every node carries a lower bound of its value
        ``mono + sharp``, and a node whose bound exceeds the best value found so far (plus
        the tie tolerance) is *pruned*: never evaluated nor classified, and not climbed
        through. ``mono`` does not decrease under generalization, so when it alone exceeds
        the best value every generalization is pruned with the node.

        * ``mono``: for the cell-additive measures the value without suppression
          ``Σ_j colcost_j(L_j)`` (static; a suppressed cell costs the root, the largest cost of
          its column); for discernibility the largest Bayardo–Agrawal bound
          ``Σ_E |E|·max(|E|, k)`` of an evaluated specialization (classes only merge upward).
        * ``sharp`` (k-anonymity alone, with suppression): the largest over evaluated feasible
          generalizations ``G ≥ L`` of what ``G``'s suppressed records cost beyond ``mono``:
          each record suppressed at ``G`` is suppressed at ``L`` (its class at ``L`` is a
          subset of its class at ``G``) and there pays, per cell, the root's cost minus its
          group's cost at ``L`` — at least as much as at ``G``, since the group at ``L`` is
          finer and the per-record group cost grows with the level; for discernibility it
          pays ``n`` where ``mono`` charged at most ``k``.

        Each path is checked at its top first (an infeasible top settles the whole path),
        then binary-searched as in Flash. The optimum is exact: it is feasible and its bound
        never exceeds its value, so it is never pruned, nor is any node that ties with it.
        """
        lat = self.lat
        order = height_order(priority, lat.height)
        climb = np.ascontiguousarray(climb, dtype=np.float64)
        state = self.state
        self._tagging = True
        pos = 0
        while True:
            pos = int(_next_open(order, state, pos, True))  # next unclassified, unpruned start
            if pos == len(order):
                break
            _progress.update("lattice search", pos, len(order), "lattice nodes")
            start = int(order[pos])
            pos += 1
            thr = self._threshold()
            if self.mono[start] + self.sharp[start] > thr:
                self._prune(start, thr)
                continue
            path = _path_bounded_kernel(lat.levels8, lat.heights, lat.strides, state, climb, start, self.mono, self.sharp, thr, _PRUNED)
            hi = len(path) - 1
            top = int(path[hi])
            if state[top] == 0:
                self._check_or_prune(top)
            if state[top] == -1:
                continue  # the whole path is infeasible (tagged)
            lo = 0
            while lo <= hi:
                mid = (lo + hi) // 2
                node = int(path[mid])
                if state[node] == 0:
                    self._check_or_prune(node)
                if state[node] == -1:
                    lo = mid + 1
                else:
                    hi = mid - 1
        self._tagging = False

    def optimum_bounded(self, monotone_measure: bool) -> int:
        """After :meth:`classify_bounded`: evaluate the feasible nodes whose bound does not
        exceed the best value (by increasing bound), the best of them is the optimum.

        With a monotone measure only nodes without a feasible direct specialization are
        candidates (the specialization is at least as good and lower, so wins ties).
        """
        lat = self.lat
        state = self.state
        cand = np.flatnonzero((state == 1) & ~self.evaluated)
        if monotone_measure and len(cand):
            keep = np.ones(len(cand), dtype=bool)
            for j in range(lat.r):
                has = lat.levels[cand, j] > 0
                keep[has] &= state[cand[has] - lat.strides[j]] != 1
            cand = cand[keep]
        b = self.mono[cand] + self.sharp[cand]
        for node in cand[np.argsort(b, kind="stable")]:
            if self.mono[node] + self.sharp[node] > self._threshold():
                continue
            self.value_of(int(node))
        if self._relaxed:
            # the nodes' own feasibility where evaluated; the relaxation's infeasible nodes
            # are infeasible; the rest is unknown
            self.state[:] = np.where(self.evaluated, self.true_state, np.where(state == -1, -1, 0))
        feas = np.flatnonzero(self.state == 1)
        feas = feas[self.evaluated[feas]]
        return self.pick(feas) if len(feas) else -1

    def proven_minimal(self) -> np.ndarray:
        """Feasible nodes whose direct specializations are all classified infeasible: the
        k-minimal nodes a partial (bounded) classification proves."""
        lat = self.lat
        ids = np.flatnonzero(self.state == 1)
        if self.enc.monotone_feasibility:
            below_ok = self.state == -1  # a direct specialization infeasible: all below it are
        else:  # every node below the specialization must be known infeasible
            open_ = self._propagate((self.state != -1).astype(float))
            below_ok = open_ == 0
        keep = np.ones(len(ids), dtype=bool)
        for j in range(lat.r):
            has = lat.levels[ids, j] > 0
            keep[has] &= below_ok[ids[has] - lat.strides[j]]
        return ids[keep]

    # ------------------------------------------------------------------ optimum
    def value_of(self, node: int) -> float:
        if not self.evaluated[node]:
            ev = self.evaluate(node)
            self._remember(node, ev.fs)  # type: ignore[arg-type]
        return float(self.values[node])

    def _propagate(self, bound: np.ndarray, upward: bool = True) -> np.ndarray:
        """Max of each node's bound and its specializations' bounds (``upward``), or its
        generalizations' bounds (``upward=False``); in place, returned."""
        lat = self.lat
        return _spread_max_kernel(lat.levels8, lat.heights, lat.strides, bound, upward)

    def pick(self, ids: np.ndarray) -> int:
        """Best of evaluated ``ids``: lowest value (within a relative 1e-9), then height, then lexicographic."""
        ids = np.asarray(ids, dtype=np.int64)
        vals = self.values[ids]
        best = np.nanmin(vals)
        cand = ids[vals <= best + _TOL * max(1.0, abs(best))]
        o = np.lexsort((cand, self.lat.height[cand]))
        return int(cand[o[0]])

    def optimum_monotone(self, mins: np.ndarray | None = None) -> int:
        """Monotone measure and feasibility: the optimum is a k-minimal node (``mins``: the
        k-minimal node ids, when already known)."""
        if mins is None:
            mins = self.lat.minimal(self.state == 1)
        for m in mins:
            self.value_of(int(m))
        return self.pick(mins)

    def optimum_by_value(self, value: np.ndarray) -> int:
        """The optimum when every feasible node's value is the static ``value`` (non-decreasing
        upward, :meth:`Encoded.static_values`) and feasibility is monotone: no suppression, or
        the ``height`` measure.

        Nodes are visited by increasing ``(value, height, id)``; the first one not known
        infeasible is resolved as in Flash (a path upward through unclassified nodes, here
        climbing to the successor of least value, binary-searched for its lowest feasible node;
        predictive tagging). The first visited node found feasible, ``F``, has the least value of
        any feasible node (all nodes before it are infeasible). The tie rule of :meth:`pick`
        (lowest value within the relative tolerance, then height, then id, among the k-minimal
        nodes) then returns the feasible node of least ``(height, id)`` whose value is within the
        tolerance of ``value(F)``: any feasible node lies above a k-minimal node of no larger
        value and lower height, so the winner among all such feasible nodes is k-minimal. Those of
        smaller ``(height, id)`` than ``F`` come after ``F`` in the order, within the tolerance;
        they are classified in ``(height, id)`` order up to the first feasible one.

        Only the nodes needed for that proof are classified (``state`` 0 elsewhere). Returns
        -1 when no node is feasible (then the top, the node of least suppression, was evaluated).
        """
        lat = self.lat
        state = self.state
        order = value_order(value, lat.height)
        climb = np.ascontiguousarray(value, dtype=np.float64)
        self._tagging = True
        pos = 0
        while True:
            pos = int(_next_open(order, state, pos, False))
            if pos == len(order):  # every node infeasible
                self._tagging = False
                return -1
            _progress.update("lattice search", pos, len(order), "lattice nodes by value")
            node = int(order[pos])
            if state[node] == 1:
                break
            path = _path_kernel(lat.levels8, lat.heights, lat.strides, state, climb, node)
            self._search_path(path)
        best = node
        v = float(value[best])
        window = order[pos + 1 : int(np.searchsorted(value[order], v + _TOL * max(1.0, abs(v)), side="right"))]
        h = lat.height
        window = window[(h[window] < h[best]) | ((h[window] == h[best]) & (window < best))]
        for g in window[np.lexsort((window, h[window]))]:
            g = int(g)
            if state[g] == 0:
                self.check(g, tag=True)
            if state[g] == 1:
                best = g
                break
        self._tagging = False
        self.value_of(best)
        return best

    def optimum_exact(self) -> int:
        """Exact optimum over all feasible nodes when the measure is not monotone.

        Additive measures: visit feasible nodes by increasing no-suppression cost (a lower
        bound of the node's and every generalization's value) and stop once it exceeds the
        best value. Discernibility: propagate Bayardo–Agrawal's bound
        ``Σ_E |E|·max(|E|, k)`` of every evaluated node to its generalizations (with
        k-anonymity alone plus ``(n − k)`` per record suppressed at an evaluated
        generalization, since suppression only grows under specialization), evaluate
        feasible nodes best-first by bound and stop when every remaining bound exceeds the
        best value. Average class size: every feasible node.
        """
        enc, lat = self.enc, self.lat
        feas = np.flatnonzero(self.state == 1)
        ev_f = feas[self.evaluated[feas]]
        best = float(np.nanmin(self.values[ev_f])) if len(ev_f) else np.inf
        if enc.additive:
            gc = enc.gen_cost(lat.levels[feas])
            for node, g in zip(feas[np.argsort(gc, kind="stable")], np.sort(gc, kind="stable")):
                if g > best + _TOL * max(1.0, abs(best)):
                    break
                best = min(best, self.value_of(int(node)))
        elif enc.measure == "discernibility":
            # best-first on the propagated Bayardo–Agrawal bound, re-propagated in batches
            tol = _TOL * max(1.0, abs(best)) if np.isfinite(best) else 0.0
            while True:
                bound = self._propagate(np.where(self.evaluated, self.dm_bound, 0.0))
                if enc.kanon_only:
                    # a record suppressed at L sits in a class of size < k of every finer
                    # node, where the bound charged it k; it pays n: add (n - k) per record
                    # of the least suppression of L, that of its evaluated generalizations
                    sup = self._propagate(np.where(self.evaluated, self.sup, 0).astype(float), upward=False)
                    bound += float(enc.n - enc.k) * sup
                cand = feas[~self.evaluated[feas]]
                cand = cand[bound[cand] <= best + tol]
                if not len(cand):
                    break
                for node in cand[np.argsort(bound[cand], kind="stable")][:64]:
                    if bound[node] > best + tol:
                        break
                    best = min(best, self.value_of(int(node)))
                    tol = _TOL * max(1.0, abs(best))
        else:
            for node in feas:
                self.value_of(int(node))
        return self.pick(feas[self.evaluated[feas]])


def _infeasible(enc: Encoded, search: LatticeSearch, algorithm: str) -> InfeasibleError:
    ev = search.sup[search.evaluated]
    least = int(ev.min()) if len(ev) else -1
    models = ", ".join(str(m) for m in enc.models)
    return InfeasibleError(
        f"{algorithm}: no full-domain generalization satisfies {models} within max_suppression="
        f"{enc.max_suppression:g} ({enc.limit} of {enc.n} records); the best node needs {least} suppressed "
        f"records ({least / enc.n:.2%}). Raise max_suppression or relax the model."
    )


def run_search(enc: Encoded, algorithm: str, *, k_minimal: bool = False) -> LatticeResult:
    """Run the optimal (``"flash"``) or exhaustive (``"exhaustive"``) search on ``enc``.

    ``flash`` with ``k_minimal=False`` (the default) searches for the optimum only: nodes
    whose lower bound exceeds the best value found are neither evaluated nor classified
    (:meth:`LatticeSearch.classify_bounded`; ``state`` 0) — without suppression and with an
    additive measure, nodes are visited by value (:meth:`LatticeSearch.optimum_by_value`) —
    and ``minimal`` holds the k-minimal nodes the classification proves. ``k_minimal=True`` classifies every node
    and returns every k-minimal node (as ``exhaustive`` does).
    """
    with _progress.stage("lattice search"):
        return _run_search(enc, algorithm, k_minimal=k_minimal)


def _run_search(enc: Encoded, algorithm: str, *, k_minimal: bool) -> LatticeResult:
    t0 = time.perf_counter()
    check_dense(algorithm, enc.heights)
    search = LatticeSearch(enc)
    lat = search.lat
    # with a monotone measure (no suppression) plain Flash classification evaluates fewer nodes
    monotone_measure = enc.measure_monotone() and enc.monotone_feasibility
    bounded = (
        algorithm == "flash"
        and not k_minimal
        and search.bounds_available()
        and ((enc.monotone_feasibility and not monotone_measure) or enc.relaxed)
    )
    # no suppression and an additive measure: every node's value is static; visit nodes by value
    by_value = (
        algorithm == "flash" and not k_minimal and enc.limit == 0 and enc.monotone_feasibility and enc.static_values()
    )
    # starts by lowest relative distance Σ L_j/h_j; paths climb the attribute with the
    # fewest levels first (largest relative step 1/h_j): measure-independent
    prio = None if by_value else lat.levels8 @ (1.0 / np.maximum(lat.heights, 1))
    floored = None
    if by_value:
        # nodes below a column's floor or a pair's stair are infeasible: tagged unevaluated
        floored = search.tag_floors()
        # no separate check of the top: when nothing is feasible every path's binary search
        # ends by evaluating its top, the lattice's top among them (the least suppression)
        best = search.optimum_by_value(enc.lattice_cost())
        if best < 0:
            raise _infeasible(enc, search, algorithm)
    elif bounded:
        search._init_bounds()
        floored = search.tag_floors()
        # the top node has the least suppression (of the models, or of their relaxation):
        # if it fails, nothing passes
        if not search.check(lat.top, tag=True):
            raise _infeasible(enc, search, algorithm)
        search.classify_bounded(prio, -prio)
    elif algorithm == "flash" and enc.monotone_feasibility:
        floored = search.tag_floors()
        if not search.check(lat.top, tag=True):
            raise _infeasible(enc, search, algorithm)
        search.classify_flash(prio, -prio)
    else:
        search.classify_all()
    extra: dict[str, Any] = {"strategies": str(lat.n_strategies())}
    if floored is not None:
        extra["nodes_below_floors"] = int(floored)
    if by_value:
        mins = search.proven_minimal()
        extra["k_minimal_complete"] = False
        extra["nodes_pruned"] = int((search.state == 0).sum())
    elif bounded:
        best = search.optimum_bounded(monotone_measure)
        search._bounded = False
        search.state[search.state == _PRUNED] = 0
        if best < 0:
            raise _infeasible(enc, search, algorithm)
        mins = search.proven_minimal()
        extra["k_minimal_complete"] = False
        extra["nodes_pruned"] = int((search.state == 0).sum())
    else:
        feasible = search.state == 1
        if not feasible.any():
            raise _infeasible(enc, search, algorithm)
        mins = lat.minimal(feasible)
        if algorithm == "exhaustive":
            best = search.pick(np.flatnonzero(feasible))
        elif monotone_measure:
            best = search.optimum_monotone(mins)
        else:
            best = search.optimum_exact()
        for m in mins:  # for the preference criteria (already evaluated by flash and exhaustive)
            search.value_of(int(m))
    return search.result(
        algorithm,
        best,
        mins,
        t0,
        monotone_feasibility=enc.monotone_feasibility,
        monotone_measure=monotone_measure,
        extra=extra,
    )


def build_release(enc: Encoded, result: LatticeResult, algorithm: str) -> Release:
    """The release of ``result.optimum`` with its required suppression, and provenance."""
    lo, hi, suppressed, ev = enc.release_arrays(result.optimum)
    # ``objective`` is the value of ``ktype.measures.MEASURES[objective_measure]`` on the
    # release; the search minimizes ``1 - precision`` (precision is higher-is-better)
    objective = 1.0 - float(result.value) if result.measure == "precision" else float(result.value)
    return Release.build(
        enc.dataset,
        lo,
        hi,
        suppressed=suppressed,
        recoding="full-domain",
        levels=result.optimum,
        provenance={"lattice": result.summary(), "objective": objective, "objective_measure": result.measure,
                    "objective_options": {"k": int(enc.k)} if result.measure == "average_class_size" else {}},
    )
