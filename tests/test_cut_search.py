"""Iyengar's genetic algorithm and Winkler's simulated annealing over per-attribute cuts: on tiny
tables they reach the optimum of an exhaustive search written here (every taxonomy cut listed by
hand, every interval partition of the ordered attribute, LM/CM and suppression by pandas);
seeds reproduce; the result improves on the start."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ktype
from ktype.algorithms import run
from ktype.data.hierarchy import Hierarchy
from ktype.models.kanonymity import KAnonymity

JOB = Hierarchy.from_table([["eng", "tech", "ANY"], ["dev", "tech", "ANY"], ["ops", "tech", "ANY"],
                            ["law", "prof", "ANY"], ["doc", "prof", "ANY"]], name="job")
LEAVES = ["eng", "dev", "ops", "law", "doc"]
TECH, PROF = ["eng", "dev", "ops"], ["law", "doc"]
#: every valid generalization of the job taxonomy (a set of nodes, each leaf under exactly one)
JOB_CUTS = [[LEAVES], [TECH, PROF], [TECH, ["law"], ["doc"]], [["eng"], ["dev"], ["ops"], PROF],
            [["eng"], ["dev"], ["ops"], ["law"], ["doc"]]]


def _interval_partitions(values):
    for cuts in itertools.product([False, True], repeat=len(values) - 1):
        groups, cur = [], [values[0]]
        for v, c in zip(values[1:], cuts):
            if c:
                groups.append(cur)
                cur = []
            cur.append(v)
        yield groups + [cur]


def exhaustive(df: pd.DataFrame, k: int, measure: str, max_sup: float) -> float:
    """Least LM or CM over every cut of job × interval partition of age (classes below k suppressed)."""
    ages = sorted(set(df["age"]))
    m_job, m_age = len(LEAVES), len(ages)
    best = np.inf
    for jc in JOB_CUTS:
        for ac in _interval_partitions(ages):
            job_of = {v: i for i, g in enumerate(jc) for v in g}
            age_of = {v: i for i, g in enumerate(ac) for v in g}
            key = df["job"].map(job_of).astype(str) + "|" + df["age"].map(age_of).astype(str)
            size = key.map(key.value_counts())
            sup = size < k
            if sup.sum() > np.floor(max_sup * len(df) + 1e-9):
                continue
            if measure == "loss_metric":
                jw = df["job"].map({v: len(g) for g in jc for v in g})
                aw = df["age"].map({v: g.index(max(g)) - g.index(min(g)) + 1 for g in ac for v in g})
                cost = ((jw - 1) / (m_job - 1) + ((aw - 1) / (m_age - 1) if m_age > 1 else 0)) / 2
                cost[sup] = 1.0
                val = cost.mean()
            else:
                kept = df[~sup].assign(key=key[~sup])
                wrong = (kept.groupby("key")["cls"].agg(lambda s: len(s) - s.value_counts().max())).sum()
                val = (sup.sum() + wrong) / len(df)
            best = min(best, float(val))
    return best


@st.composite
def tables(draw):
    n = draw(st.integers(3, 10))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    df = pd.DataFrame({"job": rng.choice(LEAVES, n), "age": rng.integers(30, 30 + draw(st.integers(1, 5)), n),
                       "cls": rng.choice(["Y", "N"], n)})
    return df, draw(st.integers(1, n)), draw(st.sampled_from(["loss_metric", "classification_metric"])), \
        draw(st.sampled_from([0.0, 0.3]))


def _ds(df):
    # the age domain is the values present, so LM's |A_age| is the oracle's m_age
    return ktype.Dataset(df, quasi_identifiers=["job", "age"], sensitive=["cls"], hierarchies={"job": JOB})


@settings(max_examples=40, deadline=None)
@given(tables(), st.sampled_from(["iyengar_ga", "winkler_sa"]))
def test_tiny_tables_reach_the_exhaustive_optimum(case, algorithm):
    """The GA reaches the exhaustive optimum on every tiny table; simulated annealing is a local
    search and may stop above it (5 rows, k = 2, LM: 0.7 against 0.667 for seeds 1 and 2, at
    3,000 and at 20,000 moves), so for it the optimum is a lower bound its value never crosses."""
    df, k, measure, max_sup = case
    ds = _ds(df)
    opts = {"iterations": 1500} if algorithm == "iyengar_ga" else {"iterations": 3000}
    rel = run(algorithm, ds, KAnonymity(k), rng=1, measure=measure, max_suppression=max_sup, **opts)
    opt = exhaustive(df, k, measure, max_sup)
    if algorithm == "iyengar_ga":
        assert rel.provenance["objective"] == pytest.approx(opt, abs=1e-12)
    else:
        assert rel.provenance["objective"] >= opt - 1e-12
    info = rel.provenance["cut_search"]
    assert info["best"] <= info["start"] and info["best"] == rel.provenance["objective"]
    assert rel.n_suppressed <= np.floor(max_sup * len(df) + 1e-9)


@pytest.mark.parametrize("algorithm", ["iyengar_ga", "winkler_sa"])
def test_a_seed_reproduces_and_the_search_improves_on_its_start(algorithm):
    ds = ktype.load_adult(n=400, quasi_identifiers=["age", "sex", "race", "education"])
    a = run(algorithm, ds, KAnonymity(5), rng=3, iterations=300)
    b = run(algorithm, ds, KAnonymity(5), rng=3, iterations=300)
    pd.testing.assert_frame_equal(a.to_pandas(), b.to_pandas())
    info = a.provenance["cut_search"]
    assert info["best"] <= info["start"]
    if algorithm == "winkler_sa":  # starts from the most general table (LM 1)
        assert info["start"] == 1.0 and info["best"] < 1.0


def test_annealing_can_stop_above_the_optimum_where_the_ga_does_not():
    """The table on which simulated annealing stays at a local optimum (found by the test above):
    the GA finds the exhaustive optimum, annealing with seed 1 does not — the gap is recorded, not
    hidden."""
    df = pd.DataFrame({"job": ["law", "doc", "doc", "ops", "doc"], "age": [33, 33, 30, 31, 32],
                       "cls": ["Y", "Y", "N", "N", "N"]})
    opt = exhaustive(df, 2, "loss_metric", 0.0)
    ga = run("iyengar_ga", _ds(df), KAnonymity(2), rng=1, measure="loss_metric", iterations=1500)
    sa = run("winkler_sa", _ds(df), KAnonymity(2), rng=1, measure="loss_metric", iterations=3000)
    assert ga.provenance["objective"] == pytest.approx(opt, abs=1e-12)
    assert sa.provenance["objective"] >= opt - 1e-12


def test_annealing_spends_its_documented_default_budget():
    """Without ``iterations`` simulated annealing makes the documented 5,000 moves (its
    signature's default), each one counted, on a table that needs generalizing."""
    df = pd.DataFrame({"job": ["law", "doc", "doc", "ops", "doc", "eng"], "age": [33, 33, 30, 31, 32, 30],
                       "cls": ["Y", "Y", "N", "N", "N", "Y"]})
    rel = run("winkler_sa", _ds(df), KAnonymity(2), rng=1)
    assert rel.provenance["cut_search"]["iterations"] == 5000


@pytest.mark.parametrize("algorithm", ["iyengar_ga", "winkler_sa"])
def test_records_of_classes_below_k_are_published_suppressed(algorithm):
    """With a suppression budget the best cut leaves a few records in classes below k: they
    must be published suppressed (flagged, within the budget), every other class has at least
    k records, and the budget buys a lower loss than the search without it."""
    ds = ktype.load_adult(n=400, quasi_identifiers=["age", "sex", "race", "education"])
    rel = run(algorithm, ds, KAnonymity(5), rng=3, iterations=300, max_suppression=0.05)
    assert 0 < rel.n_suppressed <= 20
    keep = ~rel.suppressed
    cells = np.concatenate([rel.lo[keep], rel.hi[keep]], axis=1)
    _, sizes = np.unique(cells, axis=0, return_counts=True)
    assert sizes.min() >= 5
    strict = run(algorithm, ds, KAnonymity(5), rng=3, iterations=300)
    assert strict.n_suppressed == 0
    assert rel.provenance["objective"] < strict.provenance["objective"]
