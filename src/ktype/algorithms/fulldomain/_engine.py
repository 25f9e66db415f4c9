"""Node evaluation for full-domain (level-vector) generalization, without materializing tables.

The lattice of a dataset with quasi-identifiers ``A_1..A_r`` whose hierarchies have heights
``h_1..h_r`` is the product of chains ``{0..h_1} x ... x {0..h_r}`` (Ciriani et al., survey
§2.3: the generalization lattice ``DGH_DT``; a node is a *distance vector* from the bottom,
§2.6). Node ``L`` publishes every value of ``A_j`` at level ``L_j`` of its hierarchy.

Evaluation works on **frequency sets** (Incognito's term, LeFevre et al. 2005): a table of
distinct generalized tuples (one row per equivalence class, group ids per column) and their
counts. The bottom node's frequency set is the table of distinct input tuples; a coarser
node's frequency set is obtained from any finer evaluated node's frequency set by mapping
each group id one or more levels up and merging equal rows (*roll-up*), in
``O(#rows of the finer set)`` with a numba hash kernel. Per-class sensitive histograms roll
up the same way, so every :class:`~ktype.models._base.ClassModel` (k-anonymity,
ℓ-diversity variants, t-closeness, ...) is evaluated through its generic
``class_verdicts(sizes, hist, dataset)``.

A node's *required suppression* is the number of records in classes that fail some model
(survey §2.7, Def. 5: the minimal suppression at a fixed distance vector is unique — remove
exactly the failing classes); the node is *feasible* when that number is at most
``floor(max_suppression * n)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np

from ...data.dataset import Dataset
from ...exceptions import HierarchyError, UnsupportedModelError
from ...models._base import ClassModel, PrivacyModel
from ...models.kanonymity import KAnonymity

__all__ = ["MEASURES", "Encoded", "FrequencySet", "NodeEval", "feasibility_monotone", "suppression_limit"]

#: measures available to the lattice searches (all are losses: lower is better)
MEASURES = ("non_uniform_entropy", "loss", "discernibility", "average_class_size", "precision", "height")

_HASH_MUL = np.uint64(0x9E3779B97F4A7C15)


@numba.njit(cache=True)
def _rollup_kernel(tab, cnt, maps, offs):  # pragma: no cover - compiled
    """Map every row of ``tab`` through per-column ``maps`` and merge equal rows.

    Returns ``(out_tab, out_cnt, inv)``: distinct mapped rows in first-appearance order,
    their summed counts, and the output row of each input row.
    """
    d, r = tab.shape
    size = 1
    while size < 2 * d + 2:
        size *= 2
    mask = np.uint64(size - 1)
    slots = np.full(size, -1, dtype=np.int64)
    out_tab = np.empty((max(d, 1), r), dtype=tab.dtype)
    out_cnt = np.zeros(max(d, 1), dtype=np.int64)
    inv = np.empty(d, dtype=np.int64)
    buf = np.empty(r, dtype=np.int32)
    g = 0
    mul = np.uint64(0x9E3779B97F4A7C15)
    for i in range(d):
        h = np.uint64(0x84222325CBF29CE4)
        for j in range(r):
            v = maps[offs[j] + tab[i, j]]
            buf[j] = v
            h = (h ^ np.uint64(v)) * mul
        h ^= h >> np.uint64(29)
        s = h & mask
        while True:
            e = slots[s]
            if e == -1:
                slots[s] = g
                for j in range(r):
                    out_tab[g, j] = buf[j]
                out_cnt[g] = cnt[i]
                inv[i] = g
                g += 1
                break
            same = True
            for j in range(r):
                if out_tab[e, j] != buf[j]:
                    same = False
                    break
            if same:
                out_cnt[e] += cnt[i]
                inv[i] = e
                break
            s = (s + np.uint64(1)) & mask
    return out_tab[:g], out_cnt[:g], inv


@numba.njit(cache=True)
def _rollup_key_kernel(tab, cnt, maps, offs, mult):  # pragma: no cover - compiled
    """:func:`_rollup_kernel` when the mapped rows fit a mixed-radix int64 key (faster):
    keys first, then a Fibonacci-hashed open-addressing table over the keys."""
    d, r = tab.shape
    keys = np.empty(d, dtype=np.int64)
    for i in range(d):
        key = np.int64(0)
        for j in range(r):
            key += np.int64(maps[offs[j] + tab[i, j]]) * mult[j]
        keys[i] = key
    size = 2
    shift = np.uint64(63)
    while size < 2 * d + 2:
        size *= 2
        shift -= np.uint64(1)
    mask = np.uint64(size - 1)
    mul = np.uint64(0x9E3779B97F4A7C15)
    slots = np.full(size, -1, dtype=np.int64)
    inv = np.empty(d, dtype=np.int64)
    rep = np.empty(max(d, 1), dtype=np.int64)
    out_cnt = np.zeros(max(d, 1), dtype=np.int64)
    g = 0
    for i in range(d):
        key = keys[i]
        s = (np.uint64(key) * mul) >> shift
        while True:
            e = slots[s]
            if e == -1:
                slots[s] = g
                rep[g] = i
                out_cnt[g] = cnt[i]
                inv[i] = g
                g += 1
                break
            if keys[rep[e]] == key:
                out_cnt[e] += cnt[i]
                inv[i] = e
                break
            s = (s + np.uint64(1)) & mask
    out_tab = np.empty((g, r), dtype=tab.dtype)
    for o in range(g):
        i = rep[o]
        for j in range(r):
            out_tab[o, j] = maps[offs[j] + tab[i, j]]
    return out_tab, out_cnt[:g], inv


@numba.njit(cache=True)
def _surcharge(tab, cnt, ok, costs, offs):  # pragma: no cover - compiled
    """Σ over failing classes of count × Σ_j costs[offs[j] + group_j]."""
    tot = 0.0
    for i in range(tab.shape[0]):
        if ok[i]:
            continue
        c = 0.0
        for j in range(tab.shape[1]):
            c += costs[offs[j] + tab[i, j]]
        tot += c * cnt[i]
    return tot


@numba.njit(cache=True)
def _sum_rows(inv, hist, g):  # pragma: no cover - compiled
    out = np.zeros((g, hist.shape[1]), dtype=np.int64)
    for i in range(inv.shape[0]):
        o = inv[i]
        for v in range(hist.shape[1]):
            out[o, v] += hist[i, v]
    return out


def fast_rollup(tab: np.ndarray, cnt: np.ndarray, maps: list[np.ndarray], offs: np.ndarray, radix: list[int]):
    """Roll-up with an int64 mixed-radix key when it fits, else by comparing rows."""
    flat = np.concatenate(maps) if maps else np.zeros(0, dtype=np.int32)
    total = 1
    for x in radix:
        total *= int(x)
    if total < 2**62:
        mult = np.ones(len(radix), dtype=np.int64)
        for j in range(len(radix) - 2, -1, -1):
            mult[j] = mult[j + 1] * int(radix[j + 1])
        return _rollup_key_kernel(tab, cnt, flat, offs, mult)
    return _rollup_kernel(tab, cnt, flat, offs)


def suppression_limit(max_suppression: float, n: int) -> int:
    """Largest number of suppressed records allowed: ``floor(max_suppression * n)``."""
    return int(np.floor(max_suppression * n + 1e-9))


def _monotone_with_suppression(model: PrivacyModel) -> bool:
    flag = getattr(model, "monotone_with_suppression", None)
    if flag is not None:
        return bool(flag)
    # k-anonymity: outliers at a coarser node are a subset of those at a finer one (survey §2.7)
    return isinstance(model, KAnonymity)


def feasibility_monotone(models: tuple[PrivacyModel, ...], limit: int) -> bool:
    """Whether "node is feasible" is preserved by generalization for these models.

    Without suppression (``limit == 0``) that is each model's ``monotone`` flag; with
    suppression it additionally needs the model to be monotone *with suppression* (true for
    k-anonymity; other models may declare ``monotone_with_suppression``), as in ARX's
    ``isMonotonicWithSuppression``.
    """
    if not all(m.monotone for m in models):
        return False
    return limit == 0 or all(_monotone_with_suppression(m) for m in models)


@dataclass
class FrequencySet:
    """Distinct generalized tuples of one node (group ids per column), counts, histograms."""

    tab: np.ndarray  # (g, r) int16/int32 group ids at the node's levels
    cnt: np.ndarray  # (g,) int64
    hists: dict[str, np.ndarray] = field(default_factory=dict)  # column -> (g, V) int64

    @property
    def n_rows(self) -> int:
        return int(self.cnt.shape[0])


@dataclass
class NodeEval:
    """Result of evaluating one node."""

    n_classes: int
    suppressed: int
    feasible: bool
    value: float
    dm_bound: float
    fs: FrequencySet | None = None
    ok: np.ndarray | None = None
    inv: np.ndarray | None = None


class Encoded:
    """Per-dataset precomputation shared by every lattice algorithm.

    Parameters
    ----------
    dataset : Dataset
        Every quasi-identifier needs a uniform-depth tree hierarchy
        (:meth:`Hierarchy.require_levels`).
    models : tuple of ClassModel
        The privacy models (each evaluated per equivalence class).
    max_suppression : float
        Fraction of records that may be suppressed, in ``[0, 1]``.
    measure : str
        One of :data:`MEASURES`.
    """

    def __init__(self, dataset: Dataset, models: tuple[PrivacyModel, ...], max_suppression: float, measure: str) -> None:
        for m in models:
            if not isinstance(m, ClassModel):
                raise UnsupportedModelError(
                    f"Full-domain lattice search evaluates models per equivalence class; {type(m).__name__} is not a ClassModel."
                )
        if measure not in MEASURES:
            raise ValueError(f"unknown measure {measure!r}")
        for h in dataset.hierarchies:
            h.require_levels()
        self.dataset = dataset
        self.models = tuple(models)
        self.measure = measure
        self.n = n = dataset.n
        self.r = r = dataset.r
        self.limit = suppression_limit(max_suppression, n)
        self.max_suppression = float(max_suppression)
        self.heights = np.array([h.height for h in dataset.hierarchies], dtype=np.int64)
        self.k = max([m.k for m in models if isinstance(m, KAnonymity)], default=1)
        self.monotone_feasibility = feasibility_monotone(self.models, self.limit)
        X = dataset.X
        # ---- per column, per level: dense group id of each leaf rank, and group -> node
        self.gmap: list[list[np.ndarray]] = []
        self.gnode: list[list[np.ndarray]] = []
        self.ngroups: list[list[int]] = []
        # per column, per level: cost of each group for the measure (per record), column total
        self.gcost: list[list[np.ndarray]] = []
        self.colcost = np.zeros((r, int(self.heights.max()) + 1))
        self.rootcost = np.zeros(r)
        for j, h in enumerate(dataset.hierarchies):
            freq = np.bincount(X[:, j], minlength=h.size).astype(np.int64)
            gm, gn, ng, gc = [], [], [], []
            for lev in range(h.height + 1):
                nodes = h.level_nodes(lev)
                uniq, ids = np.unique(nodes, return_inverse=True)
                ids = ids.astype(np.int32)
                gm.append(ids)
                gn.append(uniq.astype(np.int32))
                ng.append(len(uniq))
                gfreq = np.bincount(ids, weights=freq, minlength=len(uniq))
                cost = self._group_cost(j, h, lev, uniq, gfreq)
                gc.append(cost)
                self.colcost[j, lev] = self._column_total(j, h, lev, ids, freq, gfreq, cost)
            self.gmap.append(gm)
            self.gnode.append(gn)
            self.ngroups.append(ng)
            self.gcost.append(gc)
            self.rootcost[j] = gc[h.height][0]
        # ---- level-up maps: group at level a -> group at level b >= a
        self._up: dict[tuple[int, int, int], np.ndarray] = {}
        # ---- bottom frequency set (distinct input tuples) with per-class sensitive histograms
        ident = np.concatenate([self.gmap[j][0] for j in range(r)]).astype(np.int32)
        offs = np.concatenate([[0], np.cumsum([len(self.gmap[j][0]) for j in range(r)])[:-1]]).astype(np.int64)
        small = max(max(ng) for ng in self.ngroups) < 2**15
        self.tab_dtype = np.int16 if small else np.int32
        tab, cnt, inv = _rollup_kernel(np.ascontiguousarray(X, dtype=self.tab_dtype), np.ones(n, dtype=np.int64), ident, offs)
        self.row_tuple = inv  # input row -> distinct tuple
        hists = {}
        self.sens_cols: list[str] = []
        for m in self.models:
            col = m.sensitive_name(dataset)
            if col is not None and col not in hists:
                V = len(dataset.sensitive_values[col])
                codes = dataset.sensitive_codes[col].astype(np.int64)
                hists[col] = np.bincount(inv * V + codes, minlength=len(cnt) * V).reshape(len(cnt), V).astype(np.int64)
                self.sens_cols.append(col)
        self.bottom = FrequencySet(tab, cnt, hists)
        self.model_cols = [m.sensitive_name(dataset) for m in self.models]

    # ------------------------------------------------------------------ measures
    def _group_cost(self, j: int, h: Any, lev: int, nodes: np.ndarray, gfreq: np.ndarray) -> np.ndarray:
        """Per-record cost of publishing a value of column ``j`` as each group of ``lev``.

        For ``non_uniform_entropy`` the per-record cost also depends on the original value
        (``-log2 N(a)``); that part is added once per record in :meth:`_column_total` and
        cancels in the suppression surcharge, so the group cost is ``log2 N(B)``.
        """
        meas = self.measure
        if meas == "non_uniform_entropy":
            with np.errstate(divide="ignore"):
                return np.where(gfreq > 0, np.log2(np.maximum(gfreq, 1)), 0.0)
        if meas == "loss":
            m = h.size
            lo = h.node_lo[nodes]
            hi = h.node_hi[nodes]
            if m <= 1:
                return np.zeros(len(nodes))
            return (hi - lo).astype(float) / (m - 1)
        if meas == "precision":
            return np.full(len(nodes), lev / h.height if h.height else 0.0)
        return np.zeros(len(nodes))

    def _column_total(self, j, h, lev, ids, freq, gfreq, cost) -> float:
        """Sum over all records of the column-``j`` cell cost at level ``lev`` (no suppression)."""
        if self.measure == "non_uniform_entropy":
            f = freq[freq > 0].astype(float)
            return float((gfreq * cost).sum() - (f * np.log2(f)).sum())
        if self.measure in ("loss", "precision"):
            return float((gfreq * cost).sum())
        return 0.0

    def gen_cost(self, levels: np.ndarray) -> np.ndarray:
        """Measure value of each node (rows of ``levels``) if nothing were suppressed.

        For the cell-additive measures (entropy, loss, precision, height) this is a lower
        bound of the node's value and of every generalization's value, with or without
        suppression (a suppressed cell costs the root, the largest cost of its column).
        """
        levels = np.atleast_2d(levels)
        if self.measure == "height":
            return levels.sum(axis=1).astype(float)
        if self.measure in ("non_uniform_entropy", "loss", "precision"):
            tot = np.zeros(len(levels))
            for j in range(self.r):
                tot += self.colcost[j, levels[:, j]]
            return self._scale(tot)
        return np.zeros(len(levels))

    def _scale(self, x):
        if self.measure in ("loss", "precision"):
            return x / (self.n * self.r)
        return x

    @property
    def additive(self) -> bool:
        """Whether the measure is a sum of per-cell costs (lower-bounded by :meth:`gen_cost`)."""
        return self.measure in ("non_uniform_entropy", "loss", "precision", "height")

    def measure_monotone(self) -> bool:
        """Whether the measure can only grow under generalization in this setting."""
        return self.measure == "height" or self.limit == 0

    # ------------------------------------------------------------------ evaluation
    def up(self, j: int, a: int, b: int) -> np.ndarray:
        key = (j, a, b)
        m = self._up.get(key)
        if m is None:
            ga = self.gmap[j][a]
            rep = np.zeros(self.ngroups[j][a], dtype=np.int64)
            rep[ga] = np.arange(len(ga))  # a leaf of each group (any)
            m = self.gmap[j][b][rep].astype(np.int32)
            self._up[key] = m
        return m

    def rollup(self, src: FrequencySet, src_levels, dst_levels, cols=None, need_inv: bool = False):
        """Frequency set of ``dst_levels`` from a finer node's frequency set (on ``cols``)."""
        cols = range(self.r) if cols is None else cols
        maps = [self.up(j, int(a), int(b)) for j, a, b in zip(cols, src_levels, dst_levels)]
        offs = np.zeros(len(maps), dtype=np.int64)
        if len(maps) > 1:
            offs[1:] = np.cumsum([len(x) for x in maps])[:-1]
        tab, cnt, inv = fast_rollup(src.tab, src.cnt, maps, offs, [self.ngroups[j][int(b)] for j, b in zip(cols, dst_levels)])
        hists = {c: _sum_rows(inv, hsrc, len(cnt)) for c, hsrc in src.hists.items()}
        return FrequencySet(tab, cnt, hists), inv

    def verdicts(self, fs: FrequencySet) -> np.ndarray:
        """Whether each class passes every model."""
        ok = np.ones(fs.n_rows, dtype=bool)
        for m, col in zip(self.models, self.model_cols):
            ok &= np.asarray(m.class_verdicts(fs.cnt, fs.hists.get(col) if col else None, self.dataset), dtype=bool)
        return ok

    def evaluate(
        self, src: FrequencySet, src_levels, levels, *, keep: bool = True, need_inv: bool = False, always_value: bool = False
    ) -> NodeEval:
        """Evaluate node ``levels`` by rolling up ``src`` (the frequency set of ``src_levels``)."""
        levels = np.asarray(levels, dtype=np.int64)
        fs, inv = self.rollup(src, src_levels, levels)
        ok = self.verdicts(fs)
        sup = int(fs.cnt[~ok].sum())
        feasible = sup <= self.limit
        # the value of an infeasible node is never used (only its bound, for discernibility)
        value = self.value(fs, ok, levels, sup) if (feasible or always_value) else np.nan
        dm_bound = 0.0
        if self.measure == "discernibility":
            sizes = fs.cnt.astype(float)
            dm_bound = float((sizes * np.maximum(sizes, self.k)).sum())
        return NodeEval(int(ok.sum()), sup, feasible, value, dm_bound, fs if keep else None, ok, inv if need_inv else None)

    def value(self, fs: FrequencySet, ok: np.ndarray, levels: np.ndarray, sup: int) -> float:
        """The measure of a node from its frequency set and class verdicts (see docs/fulldomain.md)."""
        meas = self.measure
        n = self.n
        if meas == "height":
            return float(levels.sum())
        if meas == "discernibility":
            s = fs.cnt[ok].astype(float)
            return float((s * s).sum() + float(sup) * n)
        if meas == "average_class_size":
            classes = int(ok.sum())
            return float(n - sup) / classes / self.k if classes else float("inf")
        base = float(sum(self.colcost[j, levels[j]] for j in range(self.r)))
        if sup:
            # suppressed records pay, per cell, the root's cost minus their group's cost
            costs = [self.rootcost[j] - self.gcost[j][int(levels[j])] for j in range(self.r)]
            offs = np.zeros(self.r, dtype=np.int64)
            offs[1:] = np.cumsum([len(c) for c in costs])[:-1]
            base += _surcharge(fs.tab, fs.cnt, ok, np.concatenate(costs), offs)
        return float(self._scale(base))

    # ------------------------------------------------------------------ release
    def release_arrays(self, levels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, NodeEval]:
        """``lo, hi, suppressed`` per input row for node ``levels``."""
        levels = np.asarray(levels, dtype=np.int64)
        ev = self.evaluate(self.bottom, np.zeros(self.r, dtype=np.int64), levels, need_inv=True)
        X = self.dataset.X
        lo = np.empty(X.shape, dtype=np.int32)
        hi = np.empty(X.shape, dtype=np.int32)
        for j, h in enumerate(self.dataset.hierarchies):
            li, hj = h.level_intervals(int(levels[j]))
            lo[:, j] = li[X[:, j]]
            hi[:, j] = hj[X[:, j]]
        suppressed = ~ev.ok[ev.inv[self.row_tuple]]
        return lo, hi, suppressed, ev


def require_levels(dataset: Dataset, algorithm: str) -> None:
    """Raise a HierarchyError naming the algorithm when a QI has no uniform levels."""
    for h in dataset.hierarchies:
        try:
            h.require_levels()
        except HierarchyError as e:
            raise HierarchyError(f"{algorithm} uses full-domain recoding: {e}") from None
