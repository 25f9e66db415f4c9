"""Stochastic searches over per-attribute cuts: Iyengar's genetic algorithm and Winkler's
simulated annealing.

Survey: Ciriani et al., "k-Anonymity" (Springer 2007), §4.4 (heuristic algorithms, AG_TS):
Iyengar's genetic algorithm is "an incomplete stochastic search method" without quality
guarantee; Winkler's simulated annealing finds "locally minimal solutions" at a high
computational cost. The chapter gives neither's details; they are taken from the original
papers:

* **Iyengar**, "Transforming data to satisfy privacy constraints", KDD 2002: the generalization
  of each attribute is chosen independently and is not necessarily full-domain — a numeric
  (ordered) attribute is cut into intervals by a chosen set of cut points, a categorical one
  is generalized to a *valid generalization* of its taxonomy tree (a set of nodes such that
  every leaf has exactly one chosen ancestor); records of classes smaller than k are
  suppressed. A chromosome is a bitstring; the search is a steady-state GA in the GENITOR
  style (rank-biased selection of two parents, crossover, mutation; the child replaces the
  worst individual when better). The fitness is his usage-based metric: the loss metric LM
  (``measure="loss_metric"``: each cell costs the fraction of its domain it covers, a
  suppressed record 1 per cell) or the classification metric CM
  (``measure="classification_metric"``: the fraction of records suppressed or whose class
  label is not the majority of their class).
* **Winkler**, "Using simulated annealing for k-anonymity", US Census Bureau research report
  (2002): the same search space walked by simulated annealing — a neighbour flips one bit; a
  worse neighbour is accepted with probability ``exp(-Δ / T)``, the temperature cooling
  geometrically from ``t_start`` to ``t_end`` over the iterations.

Why not the engine of ``genetic`` (``algorithms/fulldomain``): that search evolves full-domain
level vectors evaluated by the lattice engine's roll-ups; Iyengar's space is larger (one cut
per taxonomy, any set of cut points on ordered attributes), where a generalization is not a
level and the lattice's roll-ups do not apply. Both searches here share one encoding and one
evaluator instead: an individual is evaluated by grouping the table's published codes
(``group_ids``, numpy; no loop over rows) and cached by its bitstring.

Encoding and choices, recorded:

* Ordered attribute: one bit per gap between adjacent *present* values (Iyengar's encoding);
  1 = a cut point. Tree attribute (deviation): one bit per internal taxonomy value, 1 =
  "specialized into its children"; a value below an unspecialized one is ignored, so every
  bitstring decodes to a valid generalization (Iyengar encodes gaps between leaves and
  repairs or penalizes invalid strings). The all-zero string is the most general table.
* Suppression: at most ``max_suppression`` × n records (default 0: none); an individual
  needing more is infeasible, ranked after every feasible one by its excess (fitness
  ``1 + excess fraction``; feasible fitnesses lie in [0, 1]).
* GA: the first population holds the all-zero string and random strings whose density of
  ones is itself uniform; linear ranking selection with bias 1.5; two-point crossover; each
  bit flips with probability 1/L. SA starts from the all-zero string (feasible whenever
  k <= n). The budget is ``iterations`` (children or moves), optionally cut by
  ``time_limit`` seconds (then the result depends on the machine's speed).
* When the original table is already k-anonymous (the all-one string needs no suppression), it
  is returned without search: it is optimal for both LM (0) and CM (refining a class never
  adds minority records; a suppressed record costs 1).
* The release is the best individual met; ``provenance`` records its fitness, the start's
  (the best of the first population, or SA's start) and the evaluations.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from .._grouping import group_ids
from .._validation import Interval, Options
from ..data.dataset import Dataset
from ..data.hierarchy import Hierarchy
from ..models._base import PrivacyModel
from ..models.kanonymity import KAnonymity
from ..release import Release
from ._registry import register
from .tds import class_labels

__all__ = ["iyengar_ga", "winkler_sa", "CutSpace"]


class CutSpace:
    """Bitstring encoding of one cut per attribute, and the fitness of a bitstring."""

    def __init__(self, dataset: Dataset, k: int, measure: str, label: str | None, max_suppression: float) -> None:
        self.dataset = dataset
        self.k = k
        self.measure = measure
        self.X = dataset.X.astype(np.int64)
        self.n, self.r = self.X.shape
        self.max_sup = int(np.floor(max_suppression * self.n + 1e-9))
        self.label = None
        if measure == "classification_metric":
            self.label, y, self.n_cls = class_labels(dataset, label, "the classification metric")
            self.y = y.astype(np.int64)
        self.decoders: list[Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]] = []
        self.slices: list[slice] = []
        start = 0
        for j, h in enumerate(dataset.hierarchies):
            bits, dec = self._tree(h) if h.is_tree else self._ordered(h, np.unique(self.X[:, j]))
            self.slices.append(slice(start, start + bits))
            self.decoders.append(dec)
            start += bits
        self.L = start
        self.cache: dict[bytes, float] = {}

    @staticmethod
    def _tree(h: Hierarchy) -> tuple[int, Callable]:
        par = np.asarray(h.node_parent, dtype=np.int64)
        depth = np.asarray(h.node_depth, dtype=np.int64)
        nn = len(par)
        internal = np.flatnonzero(np.bincount(par[par >= 0], minlength=nn) > 0)
        leaf_node = np.flatnonzero(np.asarray(h.node_lo) == np.asarray(h.node_hi))
        # the deepest node of each leaf rank (a leaf value), then its ancestors from the root
        leaf_node = leaf_node[np.lexsort((-depth[leaf_node], np.asarray(h.node_lo)[leaf_node]))]
        leaf_node = leaf_node[np.r_[True, np.diff(np.asarray(h.node_lo)[leaf_node]) != 0]]
        D = int(depth.max()) + 1
        anc = _ancestors_from_root(par, depth, leaf_node, D)
        nlo, nhi = np.asarray(h.node_lo, dtype=np.int64), np.asarray(h.node_hi, dtype=np.int64)

        def decode(bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            expanded = np.zeros(nn, dtype=bool)
            expanded[internal] = bits
            stop = ~expanded[anc]
            node = anc[np.arange(h.size), np.argmax(stop, axis=1)]
            return nlo[node], nhi[node]

        return len(internal), decode

    @staticmethod
    def _ordered(h: Hierarchy, present: np.ndarray) -> tuple[int, Callable]:
        def decode(bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            seg = np.r_[0, np.cumsum(bits)]
            first = np.r_[True, seg[1:] != seg[:-1]]
            last = np.r_[seg[1:] != seg[:-1], True]
            lo_s = present[first][seg]
            hi_s = present[last][seg]
            lo = np.arange(h.size, dtype=np.int64)
            hi = lo.copy()
            lo[present] = lo_s
            hi[present] = hi_s
            return lo, hi

        return max(len(present) - 1, 0), decode

    def cells(self, bits: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(lo, hi, suppressed) of the table generalized by ``bits``."""
        lo = np.empty((self.n, self.r), dtype=np.int64)
        hi = np.empty((self.n, self.r), dtype=np.int64)
        for j in range(self.r):  # attributes, not rows
            llo, lhi = self.decoders[j](bits[self.slices[j]])
            lo[:, j] = llo[self.X[:, j]]
            hi[:, j] = lhi[self.X[:, j]]
        ids, g = group_ids([lo[:, j] for j in range(self.r)])
        sizes = np.bincount(ids, minlength=g)
        return lo, hi, sizes[ids] < self.k

    def fitness(self, bits: np.ndarray) -> float:
        """LM or CM of the generalized table (feasible: in [0, 1]); infeasible: 1 + excess / n."""
        key = np.packbits(bits).tobytes()
        got = self.cache.get(key)
        if got is not None:
            return got
        lo, hi, sup = self.cells(bits)
        n_sup = int(sup.sum())
        if n_sup > self.max_sup:
            val = 1.0 + (n_sup - self.max_sup) / self.n
        elif self.measure == "loss_metric":
            denom = np.maximum(self.dataset.domain_sizes.astype(np.float64) - 1, 1.0)
            cost = np.where(self.dataset.domain_sizes > 1, (hi - lo) / denom, 0.0)
            cost[sup] = 1.0
            val = float(cost.mean()) if cost.size else 0.0
        else:
            keep = ~sup
            ids, g = group_ids([lo[keep, j] for j in range(self.r)])
            pair = np.bincount(ids * self.n_cls + self.y[keep], minlength=g * self.n_cls).reshape(g, self.n_cls)
            val = (n_sup + float((pair.sum(axis=1) - pair.max(axis=1)).sum())) / self.n
        self.cache[key] = val
        return val

    def release(self, bits: np.ndarray, provenance: dict) -> Release:
        lo, hi, sup = self.cells(bits)
        prov = {"objective": self.fitness(bits), "objective_measure": self.measure, **provenance}
        if self.label is not None:
            prov["objective_options"] = {"label": self.label}
        return Release.build(self.dataset, lo.astype(np.int32), hi.astype(np.int32), suppressed=sup,
                             recoding="local", provenance=prov)


def _ancestors_from_root(par: np.ndarray, depth: np.ndarray, leaf_node: np.ndarray, D: int) -> np.ndarray:
    """(leaves × D): the ancestor of each leaf at depth d, the leaf itself below its depth."""
    anc = np.repeat(leaf_node[:, None], D, axis=1)
    cur = leaf_node.copy()
    for _ in range(D):  # levels, not rows
        d = depth[cur]
        anc[np.arange(len(cur)), d] = cur
        cur = np.where(d > 0, par[cur], cur)
    return anc


_COMMON = {
    "measure": [Options(("loss_metric", "classification_metric"))],
    "label": [str, None],
    "max_suppression": [Interval(float, 0, 1, closed="both")],
    "iterations": [Interval(int, 0, None, closed="left")],
    "time_limit": [Interval(float, 0, None, closed="neither"), None],
}


def _space(dataset: Dataset, models: tuple[PrivacyModel, ...], measure: str, label: str | None,
           max_suppression: float) -> CutSpace:
    return CutSpace(dataset, int(models[0].k), measure, label, float(max_suppression))  # type: ignore[attr-defined]


def _identity(sp: CutSpace, search: str) -> Release | None:
    """The original table when it is already k-anonymous (optimal: see the module docstring)."""
    ones = np.ones(sp.L, dtype=bool)
    if sp.cells(ones)[2].any():
        return None
    f = sp.fitness(ones)
    return sp.release(ones, {"cut_search": {"search": search, "start": f, "best": f, "iterations": 0,
                                            "evaluations": 1, "bits": sp.L}})


def _out_of_time(t0: float, time_limit: float | None) -> bool:
    return time_limit is not None and time.perf_counter() - t0 > time_limit


@register(
    "iyengar_ga",
    models=(KAnonymity,),
    recoding="local",
    randomized=True,
    constraints={**_COMMON, "population": [Interval(int, 2, None, closed="left")]},
    description="Iyengar's genetic algorithm over per-attribute cuts (taxonomy cuts, interval cut points), LM or CM.",
    reference="Iyengar, Transforming data to satisfy privacy constraints, KDD 2002; survey §4.4",
    combinable=False,
)
def iyengar_ga(dataset: Dataset, models: tuple[PrivacyModel, ...], *, measure: str = "loss_metric",
               label: str | None = None, max_suppression: float = 0.0, iterations: int = 2000,
               time_limit: float | None = None, population: int = 40, rng: np.random.Generator) -> Release:
    """Iyengar's steady-state genetic algorithm (KDD 2002) for k-anonymity.

    Parameters
    ----------
    measure : {"loss_metric", "classification_metric"}
        Iyengar's LM or CM (CM: the class is ``label``, default the first sensitive column).
    max_suppression : float
        Fraction of records that may be suppressed (those in classes smaller than k).
    iterations : int
        Children bred (the budget); ``time_limit`` (seconds) may stop earlier.
    population : int
        Individuals kept.

    Returns
    -------
    Release
        ``provenance["cut_search"]`` holds the fitness of the best first individual (``start``),
        of the result (``best``), the children bred and the distinct individuals evaluated.

    Examples
    --------
    >>> import ktype
    >>> from ktype.models.kanonymity import KAnonymity
    >>> ds = ktype.load_adult(n=500, quasi_identifiers=["age", "sex", "race", "education"])
    >>> rel = ktype.algorithms.run("iyengar_ga", ds, KAnonymity(5), iterations=300, rng=0)
    >>> info = rel.provenance["cut_search"]
    >>> info["best"] <= info["start"]
    True
    """
    sp = _space(dataset, models, measure, label, max_suppression)
    done = _identity(sp, "genetic")
    if done is not None:
        return done
    t0 = time.perf_counter()
    L = sp.L
    pop = [np.zeros(L, dtype=bool)]
    while len(pop) < population:
        pop.append(rng.random(L) < rng.random())
    fit = np.array([sp.fitness(b) for b in pop])
    start = float(fit.min())
    bias = 1.5
    bred = 0
    for _ in range(iterations if L else 0):  # children, not rows
        if _out_of_time(t0, time_limit):
            break
        order = np.argsort(fit, kind="stable")
        u = rng.random(2)
        ranks = (population * (bias - np.sqrt(bias * bias - 4 * (bias - 1) * u)) / (2 * (bias - 1))).astype(np.int64)
        a, b = pop[order[min(ranks[0], population - 1)]], pop[order[min(ranks[1], population - 1)]]
        i, j = np.sort(rng.integers(0, L + 1, 2))
        child = a.copy()
        child[i:j] = b[i:j]
        child ^= rng.random(L) < 1.0 / L
        bred += 1
        f = sp.fitness(child)
        worst = int(order[-1])
        if f < fit[worst] and not any(np.array_equal(child, p) for p in pop):
            pop[worst] = child
            fit[worst] = f
    best = int(np.argmin(fit))
    return sp.release(pop[best], {"cut_search": {"search": "genetic", "start": start, "best": float(fit[best]),
                                                 "iterations": bred, "evaluations": len(sp.cache), "bits": L}})


@register(
    "winkler_sa",
    models=(KAnonymity,),
    recoding="local",
    randomized=True,
    constraints={**_COMMON, "t_start": [Interval(float, 0, None, closed="neither")],
                 "t_end": [Interval(float, 0, None, closed="neither")]},
    description="Winkler's simulated annealing over per-attribute cuts (taxonomy cuts, interval cut points), LM or CM.",
    reference="Winkler, Using simulated annealing for k-anonymity, US Census Bureau report, 2002; survey §4.4",
    combinable=False,
)
def winkler_sa(dataset: Dataset, models: tuple[PrivacyModel, ...], *, measure: str = "loss_metric",
               label: str | None = None, max_suppression: float = 0.0, iterations: int = 5000,
               time_limit: float | None = None, t_start: float = 0.05, t_end: float = 1e-4,
               rng: np.random.Generator) -> Release:
    """Simulated annealing (Winkler, 2002) over Iyengar's generalizations, from the most general table.

    Parameters
    ----------
    measure, label, max_suppression, iterations, time_limit
        As for ``iyengar_ga`` (``iterations``: moves proposed).
    t_start, t_end : float
        Temperatures of the geometric cooling schedule (fitness units: LM and CM lie in [0, 1]).

    Returns
    -------
    Release
        The best individual met; ``provenance["cut_search"]`` as for ``iyengar_ga`` plus the
        moves accepted.

    Examples
    --------
    >>> import ktype
    >>> from ktype.models.kanonymity import KAnonymity
    >>> ds = ktype.load_adult(n=500, quasi_identifiers=["age", "sex", "race", "education"])
    >>> rel = ktype.algorithms.run("winkler_sa", ds, KAnonymity(5), iterations=500, rng=0)
    >>> rel.provenance["cut_search"]["best"] <= rel.provenance["cut_search"]["start"]
    True
    """
    sp = _space(dataset, models, measure, label, max_suppression)
    done = _identity(sp, "annealing")
    if done is not None:
        return done
    t0 = time.perf_counter()
    L = sp.L
    cur = np.zeros(L, dtype=bool)
    f_cur = start = sp.fitness(cur)
    best, f_best = cur.copy(), f_cur
    ratio = (t_end / t_start) ** (1.0 / max(iterations - 1, 1))
    temp = t_start
    moved = accepted = 0
    for _ in range(iterations if L else 0):  # moves, not rows
        if _out_of_time(t0, time_limit):
            break
        nxt = cur.copy()
        nxt[rng.integers(L)] ^= True
        f = sp.fitness(nxt)
        moved += 1
        if f <= f_cur or rng.random() < np.exp(-(f - f_cur) / temp):
            cur, f_cur = nxt, f
            accepted += 1
            if f < f_best:
                best, f_best = cur.copy(), f
        temp *= ratio
    return sp.release(best, {"cut_search": {"search": "annealing", "start": start, "best": f_best, "iterations": moved,
                                            "accepted": accepted, "evaluations": len(sp.cache), "bits": L}})
