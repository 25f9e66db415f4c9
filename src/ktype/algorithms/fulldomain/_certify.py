"""Exact branch-and-bound over a huge lattice: prove (or improve) a best-effort result.

``lightning`` and ``genetic`` return the best node they met within a budget; on a lattice too
large for ``flash`` (MACH2019: 8.5·10⁷ nodes) nothing says how far that node is from the
optimum. :func:`certify` settles it for the cell-additive measures (``loss_metric``,
``non_uniform_entropy``, ``precision``) under a model whose feasibility is monotone with
suppression (k-anonymity, distinct ℓ-diversity): it either finds a feasible node whose value
is below a target, or proves that none exists, never building the lattice's per-node arrays.

Bounds (all sound; ``docs/fulldomain.md``, "Proving a best-effort result optimal"):

* **value without suppression** ``LM₀(y) = Σ_j colcost_j(y_j)``, monotone and additive. Every
  node with ``LM₀(y) < T`` lies below a *maximal* such node, and there are few of those
  (MACH2019, T = 0.619192: 312,825 of 8.5·10⁷);
* **infeasibility** is inherited downwards: the records a node suppresses (classes of fewer
  than ``k`` records) are suppressed at every specialization, so an infeasible node's whole
  down-set is infeasible;
* **suppression at a coarser node** ``z``: for ``y ≤ z`` with suppressed set ``S(y) ⊇ S(z)``,
  ``value(y) = Σ_j [Σ_{t ∉ S(y)} c_j(t, y_j) + |S(y)|·root_j]
  ≥ B_z(y) = Σ_j [Σ_{t ∉ S(z)} c_j(t, y_j) + |S(z)|·root_j]`` (a suppressed cell costs the
  root, the largest cost of its column). ``B_z`` is additive and monotone in ``y``, so the
  candidates below a feasible ``z`` form a down-set again, given by its maximal nodes.

The search: a stack of *generators* ``y`` ("no node ≤ y may be below T"), first the maximal
nodes of ``{LM₀ < T}``. A generator is evaluated (one roll-up from the bottom); infeasible: its
down-set is done; feasible with value ``< T``: a better node (``T`` drops to its value, so the
search ends with the proven optimum); otherwise the maximal nodes ``w < y`` with
``B_y(w) < T`` are pushed. A node is processed once (the claim "done below y" stays true when
``T`` drops). The search is a plain depth-first stack; :class:`Certifier` can save and resume
it (:meth:`Certifier.save`), for runs of minutes to hours in the background.
"""

from __future__ import annotations

import pickle
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..._jit import njit
from ...exceptions import InvalidParameterError, UnsupportedModelError
from ._engine import Encoded

__all__ = ["Certificate", "Certifier", "certify", "maximal_below"]

#: relative tolerance: nodes within this of the target are ties, not improvements
_TOL = 1e-9
#: initial generators sharing their set of top attributes roll up from a common finer node
#: when the group has at least this many live members
_GROUP_MIN = 3


@njit
def _maximal_kernel(box, term, off, T):  # pragma: no cover - compiled
    """Maximal nodes ``y ≤ box`` (coordinate-wise) with ``Σ_j term[off[j] + y_j] < T``.

    ``term`` must be non-decreasing in the level of each attribute. Depth-first over the
    attributes, each from ``box_j`` down to 0, pruning a prefix when even the least completion
    (all remaining attributes at level 0) reaches ``T``, or when a fixed attribute below its
    box could be raised by one level under ``T`` even at the largest completion (then no
    completion is maximal).
    """
    r = len(box)
    minrest = np.zeros(r + 1)
    maxrest = np.zeros(r + 1)
    for j in range(r - 1, -1, -1):
        minrest[j] = minrest[j + 1] + term[off[j]]
        maxrest[j] = maxrest[j + 1] + term[off[j] + box[j]]
    out = []
    y = np.zeros(r, dtype=np.int64)
    part = np.zeros(r + 1)
    # slack[j]: the least raise step among the fixed attributes 0..j-1 below their box
    step = np.full(r + 1, np.inf)
    j = 0
    y[0] = box[0] + 1
    while j >= 0:
        y[j] -= 1
        if y[j] < 0:
            j -= 1
            continue
        p = part[j] + term[off[j] + y[j]]
        if p + minrest[j + 1] >= T:
            continue  # lower levels of attribute j may still fit
        s = step[j]
        if y[j] < box[j]:
            d = term[off[j] + y[j] + 1] - term[off[j] + y[j]]
            if d < s:
                s = d
        if p + maxrest[j + 1] + s < T:
            continue  # some fixed attribute can always be raised: not maximal (lower y_j: also not)
        if j == r - 1:
            # p < T; maximal iff every raisable attribute crosses T
            if p + s >= T:
                out.append(y.copy())
            continue
        part[j + 1] = p
        step[j + 1] = s
        j += 1
        y[j] = box[j] + 1
    res = np.empty((len(out), r), dtype=np.int64)
    for i in range(len(out)):
        res[i] = out[i]
    return res


def maximal_below(box: np.ndarray, term: np.ndarray, off: np.ndarray, T: float) -> np.ndarray:
    """Maximal level vectors ``y ≤ box`` with ``Σ_j term[off[j] + y_j] < T`` (rows, int64)."""
    return _maximal_kernel(np.asarray(box, dtype=np.int64), np.ascontiguousarray(term, dtype=np.float64), np.asarray(off, dtype=np.int64), float(T))


@dataclass
class Certificate:
    """Outcome of :func:`certify`.

    ``optimum`` / ``value``: the best node known at the end (the target's node if nothing
    better was found); ``proven``: the search finished, so no feasible node has a value below
    ``value`` (within the relative tolerance ``1e-9``); ``improved``: a node below the
    starting target was found. Counters: generators processed, nodes evaluated (roll-ups),
    infeasible / feasible among them, nodes inferred infeasible from an evaluated infeasible
    parent, the initial maximal nodes, and wall / CPU seconds (cumulated over resumed runs).
    """

    target: float
    value: float
    optimum: np.ndarray | None
    proven: bool
    improved: bool
    stats: dict[str, Any] = field(default_factory=dict)


class Certifier:
    """Resumable state of one certification (see :func:`certify`)."""

    def __init__(self, enc: Encoded, target: float, optimum: np.ndarray | None = None) -> None:
        if not enc.monotone_feasibility:
            raise UnsupportedModelError(
                "certify needs models whose failing classes only have failing sub-classes (k-anonymity, distinct "
                "ℓ-diversity, p-sensitivity): other models' feasibility is not inherited by specializations."
            )
        if not enc._surcharged:
            raise UnsupportedModelError(
                f"certify bounds the cell-additive measures (loss_metric, non_uniform_entropy, precision); not {enc.measure!r}."
            )
        self.enc = enc
        H = enc.heights.astype(np.int64)
        self.H = H
        r = enc.r
        self.off = np.concatenate([[0], np.cumsum(H + 1)[:-1]]).astype(np.int64)
        tab = enc.bottom.tab
        assert tab is not None
        self.cnt = enc.bottom.cnt.astype(np.float64)
        # surcharge of one record of each bottom tuple, per (attribute, level): root − cell cost
        cols = [enc._costs[enc._coff[j, lev] + enc.gmap[j][lev][tab[:, j]]] for j in range(r) for lev in range(H[j] + 1)]
        self.sur = np.ascontiguousarray(np.stack(cols, axis=1))
        self.col = np.concatenate([enc.colcost[j, : H[j] + 1] for j in range(r)])
        self.scale = float(enc._scale(1.0))
        self.target = float(target)
        self.start_target = float(target)
        self.optimum = None if optimum is None else np.asarray(optimum, dtype=np.int64)
        #: lift infeasible generators whose suppression exceeds ``lift × limit`` (0: never)
        self.lift = 0.0
        self.pending = np.zeros((0, enc.r), dtype=np.int8)
        self.alive = np.zeros(0, dtype=bool)
        self.pos = 0
        self.dead: list[np.ndarray] = []
        self.group_start = np.zeros(0, dtype=np.int64)
        zero = np.zeros(r, dtype=np.int64)
        self._bottom = (zero, enc.bottom, None)
        self._src: tuple | None = None
        self._src_end = 0
        self.stack: list[np.ndarray] = []
        self.done: set[bytes] = set()
        self.infeasible: set[bytes] = set()
        self.stats: dict[str, Any] = {
            "generators": 0,
            "evaluated": 0,
            "infeasible": 0,
            "feasible": 0,
            "inferred_infeasible": 0,
            "initial_maximal": 0,
            "pushed": 0,
            "lift_evaluated": 0,
            "lift_covered": 0,
            "sources": 0,
            "wall_s": 0.0,
            "cpu_s": 0.0,
        }
        self.started = False

    # ------------------------------------------------------------------ bounds
    def _threshold(self) -> float:
        """Unscaled threshold: a node whose bound reaches it cannot beat the target."""
        t = self.target
        return (t - _TOL * max(1.0, abs(t))) / self.scale

    def _source(self, lv: np.ndarray):
        """The roll-up source for ``lv``: the current group's finer node when it lies below
        ``lv`` (far fewer rows than the bottom), else the bottom."""
        if self._src is not None and (self._src[0] <= lv).all():
            return self._src
        return self._bottom

    def quick(self, lv: np.ndarray) -> tuple[bool, int]:
        """Whether ``lv`` is feasible, and its required suppression (one roll-up)."""
        slv, sfs, _ = self._source(lv)
        ev = self.enc.evaluate(sfs, slv, lv, keep=False)
        self.stats["evaluated"] += 1
        return bool(ev.feasible), int(ev.suppressed)

    def terms(self, lv: np.ndarray) -> tuple[float, np.ndarray]:
        """Value of the feasible node ``lv`` and the per-(attribute, level) terms of ``B_lv``."""
        slv, sfs, sinv = self._source(lv)
        ev = self.enc.evaluate(sfs, slv, lv, keep=False, need_inv=True)
        self.stats["evaluated"] += 1
        assert ev.feasible and ev.ok is not None and ev.inv is not None
        bad = ~ev.ok[ev.inv]
        sup = np.flatnonzero(bad if sinv is None else bad[sinv])  # bottom tuples suppressed
        term = self.col + self.cnt[sup] @ self.sur[sup] if len(sup) else self.col
        return float(ev.value), term

    # ------------------------------------------------------------------ search
    def start(self) -> None:
        """The initial generators: maximal nodes of ``{LM₀ < target}``, grouped by the set of
        attributes at their top level (lexicographic inside a group)."""
        gens = maximal_below(self.H, self.col, self.off, self._threshold())
        self.stats["initial_maximal"] = len(gens)
        cols = [gens[:, j] for j in range(self.enc.r - 1, -1, -1)]
        order = np.lexsort((*cols, *[gens[:, j] == self.H[j] for j in range(self.enc.r - 1, -1, -1)])) if len(gens) else np.zeros(0, dtype=np.int64)
        self.pending = np.ascontiguousarray(gens[order], dtype=np.int8)
        top = self.pending == self.H.astype(np.int8)
        new = np.ones(len(gens), dtype=bool)
        new[1:] = (top[1:] != top[:-1]).any(axis=1)
        self.group_start = np.flatnonzero(new)
        self.alive = np.ones(len(gens), dtype=bool)
        self.pos = 0
        self.started = True

    def _enter_group(self, i: int) -> None:
        """Pending generator ``i`` starts a group: roll up its common source once (groups of
        at least ``_GROUP_MIN`` live generators)."""
        g = int(np.searchsorted(self.group_start, i, side="right")) - 1
        a = int(self.group_start[g])
        b = int(self.group_start[g + 1]) if g + 1 < len(self.group_start) else len(self.pending)
        live = self.alive[a:b]
        self._src = None
        self._src_end = b
        if live.sum() < _GROUP_MIN:
            return
        lv = self.pending[a:b][live].min(axis=0).astype(np.int64)
        ev = self.enc.evaluate(self.enc.bottom, np.zeros(self.enc.r, dtype=np.int64), lv, keep=True, need_inv=True)
        self.stats["sources"] += 1
        self._src = (lv, ev.fs, ev.inv)

    def _next(self) -> np.ndarray | None:
        if self.stack:
            return self.stack.pop()
        while self.pos < len(self.pending) and not self.alive[self.pos]:
            self.pos += 1
        if self.pos >= len(self.pending):
            return None
        if self.pos >= self._src_end:
            self._enter_group(self.pos)
        self.alive[self.pos] = False
        self.pos += 1
        return self.pending[self.pos - 1].astype(np.int64)

    @property
    def finished(self) -> bool:
        return self.started and not self.stack and not self.alive[self.pos :].any()

    def remaining(self) -> int:
        """Generators still to process (pushed ones and live initial ones)."""
        return len(self.stack) + int(self.alive[self.pos :].sum()) if self.started else -1

    def _lift(self, y: np.ndarray) -> None:
        """``y`` is infeasible: raise it greedily (one attribute at a time, kept while the node
        stays infeasible); the infeasible node reached covers every initial generator below it,
        whose down-sets are then infeasible too."""
        z = y.copy()
        raised = False
        for j in range(len(z) - 1, -1, -1):  # the last attributes vary fastest in the pending order
            for lev in (int(self.H[j]), int(z[j]) + 1) if z[j] + 1 < self.H[j] else (int(self.H[j]),) if z[j] < self.H[j] else ():
                old = z[j]
                z[j] = lev
                self.stats["lift_evaluated"] += 1
                if self.quick(z)[0]:
                    z[j] = old
                else:
                    raised = True
                    break
        if not raised:
            return
        self.infeasible.add(z.tobytes())
        rest = self.pending[self.pos :]
        live = self.alive[self.pos :]
        hit = live & (rest <= z.astype(np.int8)).all(axis=1)
        live[hit] = False
        self.stats["lift_covered"] += int(hit.sum())
        self.dead.append(z)

    def step(self) -> bool:
        """Process one generator: the last pushed one, else the next live initial one (False:
        none left)."""
        lv = self._next()
        if lv is None:
            return False
        key = lv.tobytes()
        if key in self.done:
            return True
        self.done.add(key)
        self.stats["generators"] += 1
        for j in range(len(lv)):
            if lv[j] < self.H[j]:
                lv[j] += 1
                hit = lv.tobytes() in self.infeasible
                lv[j] -= 1
                if hit:
                    self.infeasible.add(key)
                    self.stats["inferred_infeasible"] += 1
                    return True
        ok, sup = self.quick(lv)
        if not ok:
            self.infeasible.add(key)
            self.stats["infeasible"] += 1
            if self.lift and sup > self.lift * self.enc.limit:
                self._lift(lv)
            return True
        self.stats["feasible"] += 1
        value, term = self.terms(lv)
        if value < self.target - _TOL * max(1.0, abs(self.target)):
            self.target = value
            self.optimum = lv.copy()
        kids = maximal_below(lv, term, self.off, self._threshold())
        kids = kids[(kids != lv).any(axis=1)]
        if self.dead and len(kids):
            dead = np.array(self.dead)
            covered = (kids[:, None, :] <= dead[None, :, :]).all(axis=2).any(axis=1)
            self.stats["lift_covered"] += int(covered.sum())
            kids = kids[~covered]
        self.stack.extend(kids)
        self.stats["pushed"] += len(kids)
        return True

    def run(self, time_limit: float | None = None, checkpoint: str | Path | None = None, every: float = 60.0, log=None) -> bool:
        """Process generators until the stack is empty (True) or ``time_limit`` seconds pass."""
        t0, c0 = time.perf_counter(), time.process_time()
        w0, cpu0 = self.stats["wall_s"], self.stats["cpu_s"]
        if not self.started:
            self.start()
        last = t0
        while self.step():
            now = time.perf_counter()
            if now - last >= every:
                last = now
                self.stats["wall_s"] = w0 + now - t0
                self.stats["cpu_s"] = cpu0 + time.process_time() - c0
                if checkpoint is not None:
                    self.save(checkpoint)
                if log is not None:
                    log(self.progress())
            if time_limit is not None and now - t0 >= time_limit:
                break
        self.stats["wall_s"] = w0 + time.perf_counter() - t0
        self.stats["cpu_s"] = cpu0 + time.process_time() - c0
        if checkpoint is not None:
            self.save(checkpoint)
        return self.finished

    def progress(self) -> str:
        s = self.stats
        return (
            f"target {self.target:.9g}; remaining {self.remaining():,}; generators {s['generators']:,} "
            f"(evaluated {s['evaluated']:,}: {s['infeasible']:,} infeasible, {s['feasible']:,} feasible; "
            f"{s['inferred_infeasible']:,} inferred; lifts {s['lift_evaluated']:,} evaluations covered {s['lift_covered']:,}); wall {s['wall_s']:.0f} s, CPU {s['cpu_s']:.0f} s"
        )

    def certificate(self) -> Certificate:
        return Certificate(
            target=self.start_target,
            value=self.target,
            optimum=None if self.optimum is None else self.optimum.copy(),
            proven=self.finished,
            improved=self.target < self.start_target,
            stats=dict(self.stats, done=len(self.done)),
        )

    # ------------------------------------------------------------------ checkpoints
    def save(self, path: str | Path) -> None:
        """Write the search state (stack, processed and infeasible nodes, target, counters)."""
        path = Path(path)
        tmp = path.with_suffix(path.suffix + ".tmp")
        state = {
            "heights": self.H.tolist(),
            "n": self.enc.n,
            "measure": self.enc.measure,
            "limit": self.enc.limit,
            "target": self.target,
            "start_target": self.start_target,
            "optimum": None if self.optimum is None else self.optimum.tolist(),
            "stack": np.array(self.stack, dtype=np.int8).reshape(-1, self.enc.r),
            "pending": self.pending,
            "alive": self.alive,
            "pos": self.pos,
            "group_start": self.group_start,
            "dead": np.array(self.dead, dtype=np.int8).reshape(-1, self.enc.r),
            "lift": self.lift,
            "done": np.frombuffer(b"".join(self.done), dtype=np.int64).astype(np.int8),
            "infeasible": np.frombuffer(b"".join(self.infeasible), dtype=np.int64).astype(np.int8),
            "stats": self.stats,
            "started": self.started,
        }
        with open(tmp, "wb") as fh:
            pickle.dump(state, fh)
        tmp.replace(path)

    def load(self, path: str | Path) -> None:
        """Resume from :meth:`save`'s file (same dataset, models, suppression and measure)."""
        with open(path, "rb") as fh:
            state = pickle.load(fh)  # noqa: S301 - our own checkpoint file
        if state["heights"] != self.H.tolist() or state["n"] != self.enc.n or state["measure"] != self.enc.measure or state["limit"] != self.enc.limit:
            raise InvalidParameterError(
                f"checkpoint {path} belongs to another dataset or setting (heights {state['heights']}, n {state['n']}, "
                f"{state['measure']}, suppression limit {state['limit']}); delete it or pass another checkpoint path."
            )
        r = self.enc.r
        self.target = float(state["target"])
        self.start_target = float(state["start_target"])
        self.optimum = None if state["optimum"] is None else np.array(state["optimum"], dtype=np.int64)
        self.stack = [np.asarray(x, dtype=np.int64) for x in state["stack"]]
        self.pending = state["pending"]
        self.alive = state["alive"]
        self.pos = int(state["pos"])
        self.group_start = state["group_start"]
        self._src, self._src_end = None, 0  # the group's source is rebuilt on the next generator
        self.dead = [np.asarray(x, dtype=np.int64) for x in state["dead"]]
        self.lift = float(state["lift"])
        self.done = {np.asarray(x, dtype=np.int64).tobytes() for x in state["done"].reshape(-1, r)}
        self.infeasible = {np.asarray(x, dtype=np.int64).tobytes() for x in state["infeasible"].reshape(-1, r)}
        self.stats = dict(state["stats"])
        self.started = bool(state["started"])


def certify(
    enc: Encoded,
    target: float | None = None,
    optimum: np.ndarray | None = None,
    *,
    time_limit: float | None = None,
    checkpoint: str | Path | None = None,
    log=None,
) -> Certificate:
    """Prove that no feasible node of ``enc``'s lattice has a value below ``target``, or find one.

    ``target``: the value to certify, e.g. a ``lightning`` result (``optimum``: its node);
    ``None`` starts from the top node's value, so the search returns the optimum itself.
    Every better node found lowers the target, so a finished search (``proven``) returns the
    optimum value and a node attaining it. ``time_limit`` (seconds) stops early
    (``proven=False``); ``checkpoint``: a file to save the state to every minute and at the
    end, and to resume from when it exists.
    """
    if target is None:
        top = enc.heights.astype(np.int64)
        ev = enc.evaluate(enc.bottom, np.zeros(enc.r, dtype=np.int64), top, keep=False)
        if not ev.feasible:
            return Certificate(np.inf, np.inf, None, True, False, {"evaluated": 1})
        target, optimum = float(ev.value) * (1 + 2 * _TOL) + 2 * _TOL, top
    state = Certifier(enc, float(target), optimum)
    if checkpoint is not None and Path(checkpoint).exists():
        state.load(checkpoint)
    state.run(time_limit=time_limit, checkpoint=checkpoint, log=log)
    return state.certificate()
