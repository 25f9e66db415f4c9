"""Best-effort full-domain search for many quasi-identifiers: ``lightning``.

An anytime search of the generalization lattice under a time and/or node budget, after
Lightning (Prasser, Bild, Eicher, Spengler, Kohlmayer & Kuhn, *Lightning: Utility-Driven
Anonymization of High-Dimensional Data*, Transactions on Data Privacy 9(2):161–185, 2016,
§4 "bottom-up" variant): a best-first search from the bottom node in which every node taken
from the priority queue starts a greedy depth-first descent (expand the node, evaluate its
direct generalizations, continue from the best of them), and nodes whose utility bound
cannot beat the best solution found are pruned with all their generalizations. The
implementation is ktype's own (roll-up evaluation, sparse visited set); see
``docs/fulldomain.md`` for what differs from the paper.
"""

from __future__ import annotations

import heapq
import logging
import time
from typing import Any

import numpy as np

from ..._validation import Interval
from ...data.dataset import Dataset
from ...exceptions import InfeasibleError
from ...models._base import PrivacyModel
from ...release import Release
from .._registry import register
from ._api import CLASS_MODELS, MEASURE_OPTION, SUPPRESSION_OPTION
from ._engine import Encoded, NodeEval, require_levels
from ._lattice import _TOL, LatticeResult, build_release
from ._sparse import SparseSearch

__all__ = ["BEST_EFFORT_OPTIONS", "lightning", "lightning_search"]

#: options of the best-effort searches (``lightning``, ``genetic``): measure, suppression, budget
BEST_EFFORT_OPTIONS: dict[str, list] = {
    "measure": MEASURE_OPTION,
    "max_suppression": SUPPRESSION_OPTION,
    "time_limit": [Interval(float, 0, None, closed="neither"), None],
    "max_nodes": [Interval(int, 1, None, closed="left"), None],
}

_log = logging.getLogger(__name__)


class _Lightning:
    """State of one Lightning search (see :func:`lightning_search`)."""

    def __init__(self, enc: Encoded, time_limit: float | None, max_nodes: int | None) -> None:
        self.enc = enc
        self.search = SparseSearch(enc)
        self.t0 = time.perf_counter()
        self.c0 = time.process_time()
        self.deadline = None if time_limit is None else self.t0 + float(time_limit)
        self.max_nodes = max_nodes
        self.heap: list[tuple[float, int, bytes]] = []
        self.levels: dict[bytes, np.ndarray] = {}
        self.lb: dict[bytes, float] = {}
        self.score: dict[bytes, float] = {}
        self.expanded: set[bytes] = set()
        self.best: np.ndarray | None = None
        self.best_value = np.inf
        self.trace: list[dict[str, Any]] = []
        self.stopped = ""
        self.started = False
        self._additive = enc.additive
        self._dm = enc.measure == "discernibility"
        self._cols = np.arange(enc.r)

    # ------------------------------------------------------------------ budget
    def out_of_budget(self) -> bool:
        if self.max_nodes is not None and self.search.n_evaluations >= self.max_nodes:
            self.stopped = "max_nodes"
            return True
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            self.stopped = "time_limit"
            return True
        return False

    # ------------------------------------------------------------------ bounds
    def bound_of(self, lv: np.ndarray, ev: NodeEval | None) -> float:
        """Lower bound of the value of ``lv`` and of every generalization of it."""
        if self._additive:
            if self.enc.measure == "height":
                return float(lv.sum())
            return float(self.enc._scale(self.enc.colcost[self._cols, lv].sum()))
        if self._dm and ev is not None:
            return float(ev.dm_bound)
        return -np.inf

    def pruned(self, bound: float) -> bool:
        return bound >= self.best_value - _TOL * max(1.0, abs(self.best_value))

    # ------------------------------------------------------------------ nodes
    def _better(self, lv: np.ndarray, score: float) -> bool:
        """Whether a feasible node beats the best: a lower value (beyond a relative 1e-9), or
        an equal one at a lower height, then lexicographically smaller (``flash``'s rule)."""
        if self.best is None:
            return True
        tol = _TOL * max(1.0, abs(self.best_value))
        if score < self.best_value - tol:
            return True
        if score > self.best_value + tol:
            return False
        return (int(lv.sum()), tuple(lv.tolist())) < (int(self.best.sum()), tuple(self.best.tolist()))

    def visit(self, lv: np.ndarray) -> tuple[bytes, float, float] | None:
        """Evaluate a new node; record a better solution; ``(key, score, bound)`` or None if pruned."""
        ev = self.search.evaluate(lv, always_value=True)
        key = self.search.key(lv)
        # score: the node's value with every failing class suppressed (its true value when feasible)
        score = float(ev.value) if np.isfinite(ev.value) else np.inf
        if ev.feasible and self._better(lv, score):
            self.best, self.best_value = lv.copy(), score
            t = time.perf_counter() - self.t0
            cpu = time.process_time() - self.c0
            self.trace.append({"time_s": round(t, 4), "cpu_s": round(cpu, 4), "nodes_evaluated": self.search.n_evaluations, "value": score})
            _log.info("lightning: %.6g after %d nodes, %.2f s", score, self.search.n_evaluations, t)
        bound = self.bound_of(lv, ev)
        self.levels[key] = lv
        self.lb[key] = bound
        self.score[key] = score
        if self.pruned(bound):
            return None
        # every visited node stays queued until expanded or pruned (see lower_bound)
        heapq.heappush(self.heap, (score, int(lv.sum()), key))
        return key, score, bound

    def expand(self, key: bytes) -> bytes | None:
        """Evaluate the unvisited direct generalizations of ``key``, queue them, return the best.

        A node interrupted by the budget goes back to the queue unexpanded (so that
        :meth:`lower_bound` still covers its generalizations)."""
        lv = self.levels[key]
        best_key, best_score = None, np.inf
        for j in range(self.enc.r):
            if lv[j] >= self.enc.heights[j]:
                continue
            s = lv.copy()
            s[j] += 1
            if self.search.row(s) is not None:
                continue
            if self.out_of_budget():
                heapq.heappush(self.heap, (self.score[key], int(lv.sum()), key))
                return None
            got = self.visit(s)
            if got is None:
                continue
            skey, score, _ = got
            if score < best_score:
                best_key, best_score = skey, score
        self.expanded.add(key)
        return best_key

    def value_of(self, lv: np.ndarray) -> tuple[bool, float]:
        """``(feasible, value)`` of a node, visiting it when new."""
        i = self.search.row(lv)
        if i is None:
            if self.out_of_budget():
                return False, np.inf  # not visited: the budget is spent
            self.visit(lv)
        st = self.search.state(lv)
        return st == 1, self.search.value(lv) if st == 1 else np.inf

    def _floor(self, cur: np.ndarray) -> None:
        """Make ``cur - 1`` (clipped at 0) a cached roll-up source: every neighbour of ``cur``
        generalizes it, so each rolls up from it instead of from the bottom."""
        floor = np.maximum(cur - 1, 0)
        if floor.any() and self.search.row(floor) is None and not self.out_of_budget():
            self.visit(floor)

    def dive(self, start: np.ndarray, frozen: tuple[int, ...] = ()) -> None:
        """Top-down greedy dive: from the feasible node ``start``, move to the best feasible
        direct specialization (not lowering the attributes ``frozen``) until none is feasible."""
        cur = start.copy()
        while True:
            self._floor(cur)
            best_lv, best_val = None, np.inf
            for j in range(self.enc.r):
                if cur[j] == 0 or j in frozen:
                    continue
                nb = cur.copy()
                nb[j] -= 1
                if self.out_of_budget():
                    return
                ok, val = self.value_of(nb)
                if ok and val < best_val:
                    best_lv, best_val = nb, val
            if best_lv is None:
                return
            cur = best_lv

    def kicks(self) -> None:
        """Iterated local search around the best node: generalize one attribute (one level, or
        fully) and dive again with it held; when no such kick improves, generalize two
        attributes by one level each; polish the best; repeat while the best value drops."""
        H = self.enc.heights
        r = self.enc.r
        while self.best is not None and not self.stopped:
            base, base_val = self.best.copy(), self.best_value
            moves: list[tuple[tuple[int, ...], np.ndarray]] = []
            for i in range(r):
                for target in sorted({min(int(base[i]) + 1, int(H[i])), int(H[i])}):
                    if target > base[i]:
                        nb = base.copy()
                        nb[i] = target
                        moves.append(((i,), nb))
            pairs = []
            for i in range(r):
                for i2 in range(i + 1, r):
                    if base[i] < H[i] and base[i2] < H[i2]:
                        nb = base.copy()
                        nb[i] += 1
                        nb[i2] += 1
                        pairs.append(((i, i2), nb))
            for group in (moves, pairs):
                for frozen, nb in group:
                    if self.stopped:
                        return
                    ok, _ = self.value_of(nb)
                    if ok:
                        self.dive(nb, frozen=frozen)
                if self.best_value < base_val - _TOL * max(1.0, abs(base_val)):
                    break
            if self.best is not None and not self.stopped:
                self.polish(self.best)
            if self.best_value >= base_val - _TOL * max(1.0, abs(base_val)):
                return

    def polish(self, start: np.ndarray) -> None:
        """Local search from the feasible node ``start``: move to the best feasible neighbour
        one level lower on one attribute (and, when none improves, one level higher on another:
        a swap) while the value drops; stop at a local minimum of both neighbourhoods."""
        cur = start.copy()
        _, cur_val = self.value_of(cur)
        r = self.enc.r
        H = self.enc.heights
        while not self.out_of_budget():
            self._floor(cur)
            best_lv, best_val = None, cur_val - _TOL * max(1.0, abs(cur_val))
            for phase in (0, 1):
                for j in range(r):
                    if cur[j] == 0:
                        continue
                    for i in range(r) if phase else (-1,):
                        if phase and (i == j or cur[i] >= H[i]):
                            continue
                        nb = cur.copy()
                        nb[j] -= 1
                        if phase:
                            nb[i] += 1
                        if self.out_of_budget():
                            return
                        ok, val = self.value_of(nb)
                        if ok and val < best_val:
                            best_lv, best_val = nb, val
                if best_lv is not None:
                    break
            if best_lv is None:
                return
            cur, cur_val = best_lv, best_val

    def bottom_up(self, dives: int | None = None) -> None:
        """Lightning proper: best-first from the queue, each dequeued node starting a greedy
        depth-first descent; at most ``dives`` descents (None: until the queue is empty)."""
        if not self.started:
            self.started = True
            bottom = np.zeros(self.enc.r, dtype=np.int64)
            if self.search.row(bottom) is None:
                self.visit(bottom)
            # Lightning's first greedy descent starts at the bottom itself
            key = self.search.key(bottom)
            cur: bytes | None = key if key not in self.expanded and not self.pruned(self.lb[key]) else None
            while cur is not None and not self.out_of_budget():
                cur = self.expand(cur)
            if dives is not None:
                dives -= 1
        n = 0
        while self.heap and not self.stopped and (dives is None or n < dives):
            _, _, key = heapq.heappop(self.heap)
            if key in self.expanded or self.pruned(self.lb[key]):
                continue
            n += 1
            before = self.best_value
            cur = key
            while cur is not None and not self.out_of_budget():
                cur = self.expand(cur)
            if dives is None and self.best_value < before:
                self.kicks()  # a better solution from a descent: search around it too

    def run(self) -> None:
        top = self.enc.heights.astype(np.int64)
        feasible, _ = self.value_of(top)
        if not feasible and self.enc.monotone_feasibility:
            return  # the top has the least suppression: nothing is feasible
        if feasible:
            self.dive(top)  # a first solution from the top (cheap: coarse nodes)
        self.bottom_up(dives=2)  # Lightning's greedy descent from the bottom, then from the best-ranked node
        self.kicks()  # local search around the best solution
        self.bottom_up()  # Lightning's best-first search, until the budget or the queue ends

    # ------------------------------------------------------------------ bound on the optimum
    def lower_bound(self) -> float:
        """A lower bound of the optimum over the whole lattice.

        Every node is a generalization of the bottom; on its chain from the bottom, the first
        node that was not expanded is queued or pruned. A pruned node's generalizations cannot
        beat the best value; a queued node ``Q``'s generalizations other than ``Q`` itself
        (whose value is known) are at least the bound of one of its direct generalizations.
        """
        if self._additive is False and not self._dm:
            return -np.inf if self.heap_live() else self.best_value
        live = list({k for _, _, k in self.heap if k not in self.expanded and not self.pruned(self.lb[k])})
        if not live:
            return float(self.best_value)
        if self._dm:
            return float(min(self.best_value, min(self.lb[k] for k in live)))
        # additive: bound(Q + e_j) = bound(Q) + step cost of column j, vectorized over queued Q
        Q = np.array([self.levels[k] for k in live], dtype=np.int64)
        H = self.enc.heights
        cols = self._cols[None, :]
        if self.enc.measure == "height":
            step = np.ones(Q.shape, dtype=float)
            base = Q.sum(axis=1).astype(float)
        else:
            cc = self.enc.colcost
            up = np.minimum(Q + 1, H[None, :])
            step = self.enc._scale(cc[cols, up] - cc[cols, Q])
            base = self.enc._scale(cc[cols, Q].sum(axis=1))
        step = np.where(Q < H[None, :], step, np.inf)
        return float(min(self.best_value, float((base + step.min(axis=1)).min())))

    def heap_live(self) -> bool:
        return any(k not in self.expanded and not self.pruned(self.lb[k]) for _, _, k in self.heap)


def lightning_search(enc: Encoded, *, time_limit: float | None = 10.0, max_nodes: int | None = None) -> LatticeResult:
    """Run the Lightning search on ``enc`` (see :func:`lightning`); a sparse :class:`LatticeResult`.

    ``extra`` holds ``lower_bound`` (of the optimum, when known), ``gap`` (value − bound),
    ``exhausted`` (the search ended by itself: the result is optimal), ``stopped``
    (``"time_limit"`` / ``"max_nodes"`` / ``""``) and ``progress`` (every improvement: time,
    nodes evaluated, value).
    """
    state = _Lightning(enc, time_limit, max_nodes)
    state.run()
    return finish(state, "lightning", time_limit, max_nodes)


def finish(state: _Lightning, algorithm: str, time_limit: float | None, max_nodes: int | None, *, bounded: bool = True) -> LatticeResult:
    """The sparse :class:`LatticeResult` of a finished best-effort search (``lightning``,
    ``genetic``); ``bounded``: whether the search keeps Lightning's queue invariant, so that
    :meth:`_Lightning.lower_bound` holds (else ``lower_bound`` is None)."""
    enc = state.enc
    if state.best is None:
        least = min((state.search.suppressed(v) for v in state.levels.values()), default=-1)
        if not state.stopped:
            raise InfeasibleError(
                f"{algorithm}: no full-domain generalization satisfies {', '.join(str(m) for m in enc.models)} within "
                f"max_suppression={enc.max_suppression:g} ({enc.limit} of {enc.n} records); the best node visited needs "
                f"{least} suppressed records. Raise max_suppression or relax the model."
            )
        # budget spent before any solution: the top node has the least suppression when feasibility is monotone
        top = enc.heights.astype(np.int64)
        if state.search.row(top) is None:
            state.visit(top)
        if state.best is None:
            raise InfeasibleError(
                f"{algorithm} found no solution within its budget ({state.stopped}: {state.search.n_evaluations} nodes, "
                f"{time.perf_counter() - state.t0:.2f} s) and the top node needs {state.search.suppressed(top)} suppressed "
                f"records (limit {enc.limit}). Raise the budget or max_suppression."
            )
    exhausted = bounded and not state.stopped and not state.heap_live()
    lb = (state.best_value if exhausted else state.lower_bound()) if bounded else -np.inf
    extra = {
        "time_limit": time_limit,
        "max_nodes": max_nodes,
        "stopped": state.stopped,
        "exhausted": bool(exhausted),
        "lower_bound": float(lb) if np.isfinite(lb) else None,
        "gap": float(state.best_value - lb) if np.isfinite(lb) else None,
        "progress": state.trace,
    }
    best = state.best
    assert best is not None
    return state.search.result(
        algorithm,
        best,
        best[None, :],
        state.t0,
        monotone_feasibility=enc.monotone_feasibility,
        monotone_measure=enc.measure_monotone(),
        extra=extra,
    )


@register(
    "lightning",
    models=CLASS_MODELS,
    recoding="full-domain",
    constraints=BEST_EFFORT_OPTIONS,
    description="Best-effort full-domain search for many quasi-identifiers (Lightning: anytime, time/node budget)",
    reference="Prasser et al., Lightning: Utility-Driven Anonymization of High-Dimensional Data (TDP 2016), §4",
)
def lightning(
    dataset: Dataset,
    models: tuple[PrivacyModel, ...],
    *,
    measure: str = "non_uniform_entropy",
    max_suppression: float = 0.0,
    time_limit: float | None = 10.0,
    max_nodes: int | None = None,
) -> Release:
    """Best-effort full-domain generalization within a budget (Prasser et al. 2016, Lightning).

    Never builds the lattice, so it runs where the exact searches refuse (MACH2019's 8.5·10⁷
    nodes, CREDITCARD's 4.9·10¹³, 60 QIs). Best-first from the bottom by the node's value
    with its failing classes suppressed; every dequeued node starts a greedy descent through
    its best direct generalization; nodes whose lower bound (additive measures: the
    no-suppression value, monotone; discernibility: Σ|E|·max(|E|,k)) reaches the best value
    found are pruned with their generalizations. Stops at ``time_limit`` seconds and/or
    ``max_nodes`` evaluations (at least one must be set for a huge lattice; both ``None``
    runs until the queue is empty, which proves the result optimal). Returns the best
    feasible node found; ``provenance["lattice"]`` has ``lower_bound`` (a lower bound of the
    optimum when the measure has one), ``gap``, ``exhausted``, ``stopped`` and ``progress``.
    With ``time_limit`` the result depends on the machine's speed; use ``max_nodes`` for a
    reproducible release. Each step costs one roll-up from the smallest cached finer node.
    """
    require_levels(dataset, "lightning")
    enc = Encoded(dataset, models, max_suppression, measure)
    return build_release(enc, lightning_search(enc, time_limit=time_limit, max_nodes=max_nodes), "lightning")
