"""flash's bounded search (``k_minimal=False``): sound lower bounds and the exhaustive optimum.

The bounds (docs/fulldomain.md, "Bounded search") are checked against brute force on random
tables and hierarchies: at every node, the lower bound built from any evaluated node is at
most the node's true value. The bounded search must return exhaustive's optimum and value,
classify nodes only correctly, and report only truly k-minimal nodes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ktype.algorithms.fulldomain import MEASURES
from ktype.algorithms.fulldomain._engine import Encoded
from ktype.algorithms.fulldomain._lattice import LatticeResult, LatticeSearch, run_search
from ktype.data.dataset import Dataset
from ktype.data.hierarchy import Hierarchy
from ktype.exceptions import InfeasibleError
from ktype.models.kanonymity import KAnonymity


def assert_bounded_agrees(a: LatticeResult | None, b: LatticeResult | None) -> None:
    """``a`` (bounded flash) against ``b`` (exhaustive): same optimum and value; every node
    ``a`` classified is classified alike by ``b``; ``a``'s k-minimal nodes are k-minimal in
    ``b``; evaluated values agree."""
    assert (a is None) == (b is None)
    if a is None or b is None:
        return
    assert a.optimum.tolist() == b.optimum.tolist(), (a.measure, a.max_suppression, a.optimum, b.optimum)
    assert a.value == pytest.approx(b.value, rel=1e-9, abs=1e-9)
    assert a.optimum_suppressed == b.optimum_suppressed
    known = a.state != 0
    assert (a.state[known] == b.state[known]).all()
    assert set(map(tuple, a.minimal.tolist())) <= set(map(tuple, b.minimal.tolist()))
    ev = a.evaluated & (b.state == 1)
    assert np.allclose(a.values[ev], b.values[ev], rtol=1e-9, atol=1e-9)
    assert a.n_evaluated <= b.n_evaluated


def random_table(seed: int, n_max: int = 60):
    """A random table (up to ``n_max`` rows, 1-4 QIs, skewed values) with random uniform-depth hierarchies."""
    rng = np.random.default_rng(seed)
    r = int(rng.integers(1, 5))
    n = int(rng.integers(3, n_max + 1))
    data, hier = {}, {}
    for j in range(r):
        m = int(rng.integers(2, 8))
        height = int(rng.integers(1, 4))
        values = [f"v{i}" for i in range(m)]
        groups = np.arange(m)
        rows = [[v] for v in values]
        for lev in range(1, height):
            ng = int(groups.max()) + 1
            merge = rng.random(max(ng - 1, 0)) < 0.5
            newid = np.concatenate([[0], np.cumsum(~merge)])
            groups = newid[groups]
            for i in range(m):
                rows[i].append(f"c{j}_{lev}_{groups[i]}")
        for i in range(m):
            rows[i].append("*")
        name = f"q{j}"
        hier[name] = Hierarchy.from_table(rows, name=name)
        p = rng.dirichlet(np.full(m, 0.7))
        data[name] = rng.choice(values, n, p=p)
    data["s"] = rng.choice(["a", "b", "c"], n)
    ds = Dataset(pd.DataFrame(data), quasi_identifiers=list(hier), sensitive=["s"], hierarchies=hier)
    k = int(rng.integers(2, 6))
    sup = float(rng.choice([0.05, 0.1, 0.2, 0.4]))
    return ds, k, sup


def _all_values(enc: Encoded) -> tuple[LatticeSearch, np.ndarray, np.ndarray, np.ndarray]:
    """Every node's value (also infeasible nodes), suppression and Bayardo–Agrawal bound, from the bottom."""
    search = LatticeSearch(enc)
    lat = search.lat
    zero = np.zeros(enc.r, dtype=np.int64)
    evs = [enc.evaluate(enc.bottom, zero, lat.levels[i], always_value=True, keep=False) for i in range(lat.size)]
    return search, np.array([e.value for e in evs]), np.array([e.suppressed for e in evs]), np.array([e.dm_bound for e in evs])


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_surcharge_bound_is_sound(seed):
    """Additive measures, k-anonymity alone: for every node L and every generalization G,
    value(L) >= gen_cost(L) + (value(G) - gen_cost(G)) (the suppressed records of G are
    suppressed at L and pay at least as much there)."""
    ds, k, sup = random_table(seed)
    for meas in ("non_uniform_entropy", "loss_metric", "precision"):
        enc = Encoded(ds, (KAnonymity(k),), sup, meas)
        search, value, _, _ = _all_values(enc)
        gc = enc.gen_cost(search.lat.levels)
        extra = search._propagate(value - gc, upward=False)  # max over generalizations (itself included)
        assert (gc + extra <= value + 1e-9 * np.maximum(1.0, np.abs(value))).all(), meas


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_bounds_after_bounded_search_are_sound(seed):
    """After the bounded search, each node's bound ``mono + sharp`` is at most its true value
    (brute force from the bottom), for every measure with a bound."""
    ds, k, sup = random_table(seed)
    for meas in ("non_uniform_entropy", "loss_metric", "precision", "discernibility", "height"):
        enc = Encoded(ds, (KAnonymity(k),), sup, meas)
        _, value, _, _ = _all_values(enc)
        search = LatticeSearch(enc)
        search._init_bounds()
        if not search.check(search.lat.top, tag=True):
            continue
        prio = (search.lat.levels / np.maximum(search.lat.heights, 1)).sum(axis=1)
        search.classify_bounded(prio, -prio)
        search.optimum_bounded(False)
        bound = search.mono + search.sharp
        assert (bound <= value + 1e-9 * np.maximum(1.0, np.abs(value))).all(), meas


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_bounded_flash_equals_exhaustive(seed):
    ds, k, sup = random_table(seed)
    for meas in MEASURES:
        for s in (0.0, sup):
            try:
                a = run_search(Encoded(ds, (KAnonymity(k),), s, meas), "flash")
                b = run_search(Encoded(ds, (KAnonymity(k),), s, meas), "exhaustive")
            except InfeasibleError:
                with pytest.raises(InfeasibleError):
                    run_search(Encoded(ds, (KAnonymity(k),), s, meas), "exhaustive")
                continue
            assert_bounded_agrees(a, b)


def test_bounded_flash_evaluates_fewer_nodes_on_adult_sample():
    """On an Adult sample with suppression the bounded search evaluates fewer nodes than the
    full classification, with the same optimum; the k-minimal list is flagged incomplete."""
    import ktype
    from ktype.algorithms.fulldomain import lattice_search

    ds = ktype.load_adult(quasi_identifiers=["sex", "age", "race", "marital-status", "education"], n=4000)
    for meas in ("loss_metric", "non_uniform_entropy", "discernibility"):
        a = lattice_search(ds, KAnonymity(5), measure=meas, max_suppression=0.04)
        full = lattice_search(ds, KAnonymity(5), measure=meas, max_suppression=0.04, k_minimal=True)
        ex = lattice_search(ds, KAnonymity(5), measure=meas, max_suppression=0.04, algorithm="exhaustive")
        assert_bounded_agrees(a, ex)
        assert a.n_evaluated < full.n_evaluated, meas
        assert a.extra["k_minimal_complete"] is False and "k_minimal_complete" not in full.extra
        with pytest.raises(ValueError, match="k_minimal=True"):
            a.prefer("absolute")
