"""Tests written for the surviving mutants of the best-effort full-domain searches
(``fulldomain/_lightning.py``, ``_genetic.py``, ``_sparse.py``); see docs/mutation.md.

The sparse searches (lightning, genetic, and Samarati / Datafly through the same evaluator)
are checked against the oracle of ``test_lattice_engine_oracle`` (level_intervals boxes, the
models' own checkers, ``ktype.measures``), which shares no code with them: every node they
report as visited is classified, counted and valued as the oracle does; the returned node
is feasible and worth what the oracle says; Lightning's lower bound never exceeds the true
optimum; a node budget is kept, and a run with a larger budget continues the smaller run.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ktype.algorithms.fulldomain._engine import Encoded
from ktype.algorithms.fulldomain._genetic import genetic_search
from ktype.algorithms.fulldomain._lightning import lightning_search
from ktype.models.kanonymity import KAnonymity
from ktype.models.ldiversity import DistinctLDiversity, EntropyLDiversity
from tests.test_fulldomain_oracle import _adult
from tests.test_lattice_engine_oracle import ENGINE_MEASURES, Oracle, _close

QIS4 = ["age", "education", "sex", "race"]


def _check_sparse(res, oracle: Oracle, measure: str) -> None:
    """A sparse result against the oracle: visited rows, the optimum, the bookkeeping."""
    lv = [tuple(x) for x in res.levels.tolist()]
    assert lv == sorted(set(lv)), "visited nodes: unique, lexicographic"
    assert res.n_nodes == len(oracle.nodes) and res.lattice_size == len(oracle.nodes)
    for i, node in enumerate(lv):
        if res.state[i]:
            assert res.state[i] == (1 if node in oracle.feasible else -1), node
        if res.suppressed[i] >= 0:
            assert res.suppressed[i] == oracle.sup(node), node
        if res.state[i] == 1 and not math.isnan(res.values[i]):
            assert _close(res.values[i], oracle.value(node, measure)), (node, res.values[i])
    best = tuple(res.optimum.tolist())
    assert best in oracle.feasible
    assert _close(res.value, oracle.value(best, measure))
    assert res.optimum_suppressed == oracle.sup(best)
    assert res.summary()["nodes_evaluated"] == int(res.evaluated.sum())


@pytest.mark.parametrize("measure", ENGINE_MEASURES)
@pytest.mark.parametrize(("models", "sup"), [((KAnonymity(4),), 0.05), ((KAnonymity(3), DistinctLDiversity(2)), 0.0),
                                             ((KAnonymity(3), EntropyLDiversity(1.5)), 0.1)], ids=["k", "distinct", "entropy"])
def test_lightning_against_the_oracle_with_and_without_budget(models, sup, measure):
    ds = _adult(200, 4, QIS4)
    oracle = Oracle(ds, models, sup)
    want_lv, want = oracle.optimum(measure)
    full = lightning_search(Encoded(ds, models, sup, measure), time_limit=None)
    _check_sparse(full, oracle, measure)
    # feasibility is monotone for k-anonymity and distinct ℓ-diversity; entropy ℓ-diversity
    # with suppression is not (survey §2.2, Def. 5; ARX's isMonotonicWithSuppression)
    assert full.monotone_feasibility is (not any(isinstance(m, EntropyLDiversity) for m in models))
    assert full.summary()["monotone_feasibility"] is full.monotone_feasibility
    assert full.extra["exhausted"] and full.extra["stopped"] == ""
    assert tuple(full.optimum.tolist()) == want_lv and _close(full.value, want)
    progress = [p["value"] for p in full.extra["progress"]]
    assert progress == sorted(progress, reverse=True) and _close(progress[-1], full.value)
    for budget in (3, 10, 25):
        res = lightning_search(Encoded(ds, models, sup, measure), time_limit=None, max_nodes=budget)
        _check_sparse(res, oracle, measure)
        assert res.value >= want - 1e-9 * max(1.0, abs(want))
        lb = res.extra["lower_bound"]
        if lb is not None:
            assert lb <= want + 1e-9 * max(1.0, abs(want)), (budget, lb, want)
            assert _close(res.extra["gap"], res.value - lb)
        if res.extra["stopped"]:
            assert res.extra["stopped"] == "max_nodes" and not res.extra["exhausted"]


@pytest.mark.parametrize("measure", ["loss_metric", "discernibility", "height"])
def test_a_larger_node_budget_continues_the_smaller_run(measure):
    """Lightning is deterministic: the run with budget B is the first B evaluations of any run
    with a larger budget, so its improvements are a prefix of the larger run's, and more
    nodes never give a worse result."""
    ds = _adult(200, 4, QIS4)
    runs = [lightning_search(Encoded(ds, (KAnonymity(4),), 0.05, measure), time_limit=None, max_nodes=b)
            for b in (4, 8, 16, 32)]
    for a, b in zip(runs, runs[1:]):
        assert b.value <= a.value
        pa = [(p["nodes_evaluated"], p["value"]) for p in a.extra["progress"]]
        pb = [(p["nodes_evaluated"], p["value"]) for p in b.extra["progress"] if p["nodes_evaluated"] <= a.extra["max_nodes"]]
        assert pa == pb
        assert int(a.evaluated.sum()) <= a.extra["max_nodes"] + 1  # + the top, when nothing was found


@pytest.mark.parametrize("measure", ["loss_metric", "non_uniform_entropy", "discernibility"])
def test_genetic_against_the_oracle(measure):
    ds = _adult(200, 4, QIS4)
    models, sup = (KAnonymity(4),), 0.05
    oracle = Oracle(ds, models, sup)
    _, want = oracle.optimum(measure)
    for seed, budget in ((0, 20), (1, 60), (2, 200)):
        res = genetic_search(Encoded(ds, models, sup, measure), time_limit=None, max_nodes=budget,
                             rng=np.random.default_rng(seed))
        _check_sparse(res, oracle, measure)
        assert res.value >= want - 1e-9 * max(1.0, abs(want))
        assert res.extra["lower_bound"] is None
        progress = [p["value"] for p in res.extra["progress"]]
        assert progress == sorted(progress, reverse=True) and _close(progress[-1], res.value)


def test_lightning_descends_greedily_from_the_bottom_first(monkeypatch):
    """Lightning's bottom-up variant (Prasser et al. 2016, §4): after the first solution (the
    dive from the top), the first greedy descent starts at the bottom node and continues
    each time from the best direct generalization just evaluated."""
    from ktype.algorithms.fulldomain import _lightning

    ds = _adult(200, 4, QIS4)
    expanded: list[tuple[int, ...]] = []
    returned: list[bytes | None] = []
    real = _lightning._Lightning.expand

    def spy(self, key):
        expanded.append(tuple(np.frombuffer(key, dtype=np.int64).tolist()))
        out = real(self, key)
        returned.append(out)
        return out

    monkeypatch.setattr(_lightning._Lightning, "expand", spy)
    lightning_search(Encoded(ds, (KAnonymity(4),), 0.05, "loss_metric"), time_limit=None)
    assert expanded[0] == (0, 0, 0, 0)
    assert len(expanded) > 3
    for prev, nxt in zip(returned, expanded[1:3]):  # the descent follows expand's choice
        assert prev is not None and tuple(np.frombuffer(prev, dtype=np.int64).tolist()) == nxt


@pytest.mark.parametrize(("n", "seed", "k", "sup"), [(150, 3, 2, 0.05), (200, 4, 4, 0.1), (120, 7, 2, 0.1)])
def test_sparse_pick_breaks_ties_lexicographically(n, seed, k, sup):
    """Among Samarati's solutions (every feasible node of the lowest feasible height) the
    ``height`` measure ties them all: the sparse search's rule (value, then height, then the
    lexicographically least level vector, as flash's) must return the least one."""
    from ktype.algorithms.fulldomain._samarati import samarati_search

    ds = _adult(n, seed, QIS4)
    oracle = Oracle(ds, (KAnonymity(k),), sup)
    low = min(sum(lv) for lv in oracle.feasible)
    sols = sorted(lv for lv in oracle.feasible if sum(lv) == low)
    res = samarati_search(Encoded(ds, (KAnonymity(k),), sup, "height"))
    assert [tuple(x) for x in res.minimal.tolist()] == sols  # LatticeResult.minimal: lexicographic
    _check_sparse(res, oracle, "height")  # nodes classified by the VT matrix, then valued: one row each
    assert tuple(res.optimum.tolist()) == sols[0]


def test_genetic_child_follows_the_documented_operators():
    """``child(a, a)`` (crossover of equal parents) is the mutation alone: each attribute
    moves one level up or down with probability ``1/r`` (clipped to its levels) or jumps to a
    uniformly random level with probability ``1/(4r)``; the empirical frequencies of 20,000
    children match that distribution within 0.015 per level."""
    from ktype.algorithms.fulldomain._genetic import _Genetic

    ds = _adult(200, 4, QIS4)
    enc = Encoded(ds, (KAnonymity(4),), 0.05, "loss_metric")
    g = _Genetic(enc, None, 10, np.random.default_rng(0), 10, 2)
    H = enc.heights
    r = enc.r
    a = H // 2
    kids = np.array([g.child(a, a) for _ in range(20_000)])
    pj, ps = 0.25 / r, 1.0 / r
    for j in range(r):
        levels = np.arange(H[j] + 1)
        step = np.zeros(H[j] + 1)
        step[a[j]] += 1 - ps
        step[max(a[j] - 1, 0)] += ps / 2
        step[min(a[j] + 1, H[j])] += ps / 2
        want = (1 - pj) * step + pj / (H[j] + 1)
        got = np.array([(kids[:, j] == x).mean() for x in levels])
        np.testing.assert_allclose(got, want, atol=0.015, err_msg=f"attribute {j}")


def test_genetic_converges_on_a_small_lattice_to_its_optimum():
    """On a lattice it can use up (Adult, 3 QIs, 24 nodes) and a time budget it never
    reaches, genetic stops because generations meet no new node ("converged") and, having
    met the optimum, returns it."""
    ds = _adult(150, 3)
    models, sup = (KAnonymity(4),), 0.05
    oracle = Oracle(ds, models, sup)
    want_lv, want = oracle.optimum("loss_metric")
    res = genetic_search(Encoded(ds, models, sup, "loss_metric"), time_limit=600.0, rng=np.random.default_rng(1))
    assert res.extra["stopped"] == "converged"
    _check_sparse(res, oracle, "loss_metric")
    assert tuple(res.optimum.tolist()) == want_lv and _close(res.value, want)


@pytest.mark.parametrize("budget", [12, 30])
def test_a_node_budget_buys_that_many_distinct_nodes(budget):
    """A node met twice costs nothing the second time (docs/fulldomain.md): a search stopped
    by ``max_nodes = B`` has evaluated exactly ``B`` distinct nodes (Adult, 4 QIs, 80 nodes)."""
    ds = _adult(200, 4, QIS4)
    enc = Encoded(ds, (KAnonymity(4),), 0.05, "loss_metric")
    for res in (lightning_search(enc, time_limit=None, max_nodes=budget),
                genetic_search(Encoded(ds, (KAnonymity(4),), 0.05, "loss_metric"), time_limit=None, max_nodes=budget,
                               rng=np.random.default_rng(3))):
        assert res.extra["stopped"] == "max_nodes", res.algorithm
        assert int((~np.isnan(res.values)).sum()) == budget, res.algorithm
