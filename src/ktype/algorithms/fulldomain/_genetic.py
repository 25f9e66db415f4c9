"""Best-effort full-domain search by a genetic algorithm: ``genetic``.

After the genetic search ARX ships for high-dimensional data (Wirth et al.; ARX's
``GAAlgorithm``, described with its benchmark in Meurers, Bild, Do & Prasser, *A scalable
software solution for anonymizing high-dimensional biomedical data*, GigaScience 10(10),
2021): a population of level vectors evolves by selection, crossover and mutation under a
time and/or node budget, and returns the best feasible node it met. ktype's version is its
own (see ``docs/fulldomain.md``): individuals are ranked feasible-first (a feasible node by
its value, an infeasible one by its required suppression), parents are chosen by binary
tournament, children by uniform crossover and a per-attribute ±1 / random-level mutation,
the best ``elite`` survive unchanged, and — a memetic addition — every improvement of the
best node is polished by the local search of ``lightning`` (best feasible neighbour one level
lower on one attribute, or lower on one and higher on another). Nodes are evaluated by the
same sparse roll-up evaluator as ``lightning``; a node met twice costs nothing the second time.
"""

from __future__ import annotations

import numpy as np

from ..._validation import Interval
from ...data.dataset import Dataset
from ...exceptions import InvalidParameterError
from ...models._base import PrivacyModel
from ...release import Release
from .._registry import register
from ._api import CLASS_MODELS
from ._engine import Encoded, require_levels
from ._lattice import LatticeResult, build_release
from ._lightning import BEST_EFFORT_OPTIONS, _Lightning, finish

__all__ = ["genetic", "genetic_search"]

#: the search stops ("converged") after this many generations that met no new node
_IDLE_GENERATIONS = 25


class _Genetic(_Lightning):
    """State of one genetic search (nodes, budget, best and progress from :class:`_Lightning`)."""

    def __init__(
        self, enc: Encoded, time_limit: float | None, max_nodes: int | None, rng: np.random.Generator, population: int, elite: int
    ) -> None:
        super().__init__(enc, time_limit, max_nodes)
        self.rng = rng
        self.size = population
        self.elite = min(elite, population - 1)
        self.H = enc.heights.astype(np.int64)

    def rank(self, lv: np.ndarray) -> tuple[int, float, int]:
        """Sort key of an individual: feasible first, by value; infeasible by suppression."""
        ok, val = self.value_of(lv)
        if ok:
            return 0, float(val), int(lv.sum())
        sup = self.search.suppressed(lv)
        return 1, float(sup if sup >= 0 else np.inf), int(lv.sum())

    def random_node(self) -> np.ndarray:
        """A random level vector whose relative height is itself uniform (so the first
        population spans the lattice from the bottom to the top)."""
        return self.rng.binomial(self.H, self.rng.random()).astype(np.int64)

    def child(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Uniform crossover, then mutation: each attribute moves one level (probability
        ``1/r``) or to a random level (probability ``1/(4r)``)."""
        r = self.enc.r
        c = np.where(self.rng.random(r) < 0.5, a, b)
        step = self.rng.random(r) < 1.0 / r
        c = c + step * self.rng.choice(np.array([-1, 1]), r)
        jump = self.rng.random(r) < 0.25 / r
        c = np.where(jump, self.rng.integers(0, self.H + 1), c)
        return np.clip(c, 0, self.H).astype(np.int64)

    def run(self) -> None:
        pop = [self.H.copy()] + [self.random_node() for _ in range(self.size - 1)]
        keys = [self.rank(x) for x in pop]
        polished = np.inf
        idle = 0  # generations without a new node (a small lattice can be used up)
        while not self.stopped:
            before = self.search.n_evaluations
            order = sorted(range(len(pop)), key=lambda i: keys[i])
            pop = [pop[i] for i in order]
            keys = [keys[i] for i in order]
            if self.best is not None and self.best_value < polished and not self.stopped:
                polished = self.best_value
                self.polish(self.best)  # memetic step: a local minimum around each new best
            nxt, nkeys = pop[: self.elite], keys[: self.elite]
            while len(nxt) < self.size and not self.stopped:
                i, j = self.rng.integers(0, len(pop), 2), self.rng.integers(0, len(pop), 2)
                a = pop[i.min()]  # binary tournament: the better-ranked of two (pop is sorted)
                b = pop[j.min()]
                c = self.child(a, b)
                nxt.append(c)
                nkeys.append(self.rank(c))
            if len(nxt) < self.size:
                return
            pop, keys = nxt, nkeys
            idle = idle + 1 if self.search.n_evaluations == before else 0
            if idle >= _IDLE_GENERATIONS:
                self.stopped = "converged"


def genetic_search(
    enc: Encoded,
    *,
    time_limit: float | None = 10.0,
    max_nodes: int | None = None,
    rng: np.random.Generator,
    population: int = 40,
    elite: int = 4,
) -> LatticeResult:
    """Run the genetic search on ``enc`` (see :func:`genetic`); a sparse :class:`LatticeResult`
    whose ``extra`` has ``stopped``, ``progress`` and ``lower_bound`` None (no bound known)."""
    if time_limit is None and max_nodes is None:
        raise InvalidParameterError("genetic needs a budget: set time_limit (seconds) and/or max_nodes.")
    state = _Genetic(enc, time_limit, max_nodes, rng, population, elite)
    state.run()
    return finish(state, "genetic", time_limit, max_nodes, bounded=False)


@register(
    "genetic",
    models=CLASS_MODELS,
    recoding="full-domain",
    randomized=True,
    constraints={
        **BEST_EFFORT_OPTIONS,
        "population": [Interval(int, 2, None, closed="left")],
        "elite": [Interval(int, 0, None, closed="left")],
    },
    description="Best-effort full-domain search by a genetic algorithm (anytime, time/node budget, many QIs)",
    reference="Wirth et al., ARX's genetic algorithm; Meurers, Bild, Do & Prasser, GigaScience 10(10), 2021",
)
def genetic(
    dataset: Dataset,
    models: tuple[PrivacyModel, ...],
    *,
    measure: str = "non_uniform_entropy",
    max_suppression: float = 0.0,
    time_limit: float | None = 10.0,
    max_nodes: int | None = None,
    population: int = 40,
    elite: int = 4,
    rng: np.random.Generator | None = None,
) -> Release:
    """Best-effort full-domain generalization by a genetic algorithm (after Wirth et al., ARX).

    A population of ``population`` level vectors (the top node and random nodes of uniformly
    random relative height) evolves by binary tournament, uniform crossover and mutation
    (one level, or a random level); the ``elite`` best survive; every new best node is
    polished by ``lightning``'s local search (a memetic step, ktype's addition). Ranking:
    feasible nodes by their value, before infeasible ones by their required suppression.
    Stops at ``time_limit`` seconds and/or ``max_nodes`` evaluations (one of them is
    required; it also stops, ``stopped="converged"``, after 25 generations that met no new
    node); returns the best feasible node met (``provenance["lattice"]``: ``stopped``,
    ``progress``; no lower bound is known). Randomized: ``rng`` (SPEC 7; None = secret OS
    entropy, never recorded). With ``max_nodes`` and a seed the release is reproducible.
    """
    require_levels(dataset, "genetic")
    if rng is None:  # the registry always passes a Generator; direct calls get secret entropy
        rng = np.random.default_rng()
    enc = Encoded(dataset, models, max_suppression, measure)
    res = genetic_search(enc, time_limit=time_limit, max_nodes=max_nodes, rng=rng, population=population, elite=elite)
    return build_release(enc, res, "genetic")
