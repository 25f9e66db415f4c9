"""Node evaluation for searches that visit few nodes of a possibly huge lattice.

``datafly``, ``samarati`` and ``lightning`` never build the lattice's per-node arrays
(:class:`~._lattice.LatticeSearch` needs ``Π(h_j+1)`` entries of each): a
:class:`SparseSearch` keeps the nodes it has visited in a dictionary keyed by level vector,
rolls each new node up from the smallest cached frequency set below it
(:class:`~._engine.FrequencyCache`), and returns a *sparse*
:class:`~._lattice.LatticeResult` (``lattice_size`` set, rows = visited nodes).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ._engine import Encoded, FrequencyCache, NodeEval
from ._hashed import HashedRollup, HashedSet
from ._lattice import _CACHE_BUDGET, _TOL, LatticeResult, encoding_fields, lattice_size

__all__ = ["SparseSearch"]


class SparseSearch:
    """Visited nodes of one lattice, by level vector, with roll-up caching.

    Each visited node has a row: its level vector, state (``1`` feasible, ``-1``
    infeasible), whether its frequency set was computed (``evaluated``; Samarati's VT matrix
    classifies without it), measure value (NaN unless computed), required suppression and
    class count (``-1`` unless evaluated).
    """

    def __init__(self, enc: Encoded, cache_budget: int = _CACHE_BUDGET) -> None:
        self.enc = enc
        self.size = lattice_size(enc.heights)
        self._row: dict[bytes, int] = {}
        self._levels: list[np.ndarray] = []
        self._state: list[int] = []
        self._evaluated: list[bool] = []
        self._value: list[float] = []
        self._sup: list[int] = []
        self._classes: list[int] = []
        # wide rows with k-anonymity alone: table nodes roll up by incremental row hashes
        self._hashed = HashedRollup(enc) if HashedRollup.usable(enc) else None
        self._cache = FrequencyCache(enc, cache_budget, None if self._hashed is None else self._hashed.bottom)
        self._zero = np.zeros(enc.r, dtype=np.int64).tobytes()
        self.n_evaluations = 0

    # ------------------------------------------------------------------ bookkeeping
    @staticmethod
    def key(levels: Any) -> bytes:
        return np.ascontiguousarray(levels, dtype=np.int64).tobytes()

    def row(self, levels: Any) -> int | None:
        """Row of a visited node, or None."""
        return self._row.get(self.key(levels))

    def _record(self, levels: np.ndarray) -> int:
        key = self.key(levels)
        i = self._row.get(key)
        if i is None:
            i = len(self._levels)
            self._row[key] = i
            self._levels.append(np.array(levels, dtype=np.int64))
            self._state.append(0)
            self._evaluated.append(False)
            self._value.append(np.nan)
            self._sup.append(-1)
            self._classes.append(-1)
        return i

    def classify(self, levels: Any, feasible: bool, suppressed: int) -> None:
        """Record a node classified without evaluating it (Samarati's VT matrix)."""
        i = self._record(np.asarray(levels, dtype=np.int64))
        self._state[i] = 1 if feasible else -1
        self._sup[i] = int(suppressed)

    def state(self, levels: Any) -> int:
        i = self.row(levels)
        return 0 if i is None else self._state[i]

    def value(self, levels: Any) -> float:
        """Measure value of ``levels`` (evaluated when not yet)."""
        i = self.row(levels)
        if i is None or not self._evaluated[i]:
            self.evaluate(levels)
            i = self.row(levels)
        return self._value[i]  # type: ignore[index]

    def suppressed(self, levels: Any) -> int:
        i = self.row(levels)
        return -1 if i is None else self._sup[i]

    @property
    def n_visited(self) -> int:
        return len(self._levels)

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, levels: Any, *, always_value: bool = False, cache: bool = True) -> NodeEval:
        """Evaluate node ``levels`` from the smallest cached frequency set below it."""
        lv = np.ascontiguousarray(levels, dtype=np.int64)
        key = lv.tobytes()
        _, slv, sfs = self._cache.source(lv)
        if self._hashed is not None and isinstance(sfs, HashedSet) and not self.enc.packs(lv):
            ev = self._hashed.evaluate(sfs, slv, lv)
        else:
            ev = self.enc.evaluate(sfs, slv, lv, always_value=always_value)
        self.n_evaluations += 1
        i = self._record(lv)
        self._state[i] = 1 if ev.feasible else -1
        self._evaluated[i] = True
        self._value[i] = ev.value
        self._sup[i] = ev.suppressed
        self._classes[i] = ev.n_classes
        if cache and key != self._zero:
            self._cache.put(key, lv, ev.fs)  # type: ignore[arg-type]
        return ev

    def pick(self, nodes: np.ndarray) -> np.ndarray:
        """Best of evaluated level vectors ``nodes``: lowest value (within a relative 1e-9),
        then height, then lexicographic (the rule of :meth:`LatticeSearch.pick`)."""
        nodes = np.atleast_2d(np.asarray(nodes, dtype=np.int64))
        vals = np.array([self.value(v) for v in nodes])
        best = np.nanmin(vals)
        cand = nodes[vals <= best + _TOL * max(1.0, abs(best))]
        keys = [cand[:, j] for j in range(cand.shape[1] - 1, -1, -1)]
        o = np.lexsort((*keys, cand.sum(axis=1)))
        return cand[o[0]].copy()

    # ------------------------------------------------------------------ result
    def result(
        self,
        algorithm: str,
        best: np.ndarray,
        minimal: np.ndarray,
        t0: float,
        *,
        monotone_feasibility: bool,
        monotone_measure: bool,
        extra: dict,
    ) -> LatticeResult:
        """A sparse :class:`LatticeResult`: rows are the visited nodes in lexicographic order."""
        enc = self.enc
        r = enc.r
        levels = np.array(self._levels, dtype=np.int64).reshape(-1, r)
        order = np.lexsort([levels[:, j] for j in range(r - 1, -1, -1)]) if len(levels) else np.zeros(0, dtype=np.int64)
        i = self.row(best)
        minimal = np.asarray(minimal, dtype=np.int64).reshape(-1, r)
        if len(minimal):
            minimal = minimal[np.lexsort([minimal[:, j] for j in range(r - 1, -1, -1)])]
        assert i is not None
        return LatticeResult(
            algorithm=algorithm,
            **encoding_fields(enc),
            levels=levels[order],
            state=np.array(self._state, dtype=np.int8)[order],
            evaluated=np.array(self._evaluated, dtype=bool)[order] | (np.array(self._state, dtype=np.int8)[order] != 0),
            values=np.array(self._value, dtype=float)[order],
            suppressed=np.array(self._sup, dtype=np.int64)[order],
            optimum=np.array(best, dtype=np.int64),
            value=float(self._value[i]),
            optimum_suppressed=int(self._sup[i]),
            minimal=minimal,
            time_s=time.perf_counter() - t0,
            monotone_feasibility=monotone_feasibility,
            monotone_measure=monotone_measure,
            classes=np.array(self._classes, dtype=np.int64)[order],
            extra=extra,
            lattice_size=self.size,
        )
