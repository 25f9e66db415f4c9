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
from ktype.algorithms.fulldomain._engine import Encoded, FrequencySet
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


def random_hierarchy(rng: np.random.Generator, name: str, values: list[str], height: int) -> Hierarchy:
    """A random uniform-depth hierarchy of ``height`` levels over ``values``: each level
    merges random runs of adjacent groups of the level below; the top is ``*``."""
    groups = np.arange(len(values))
    rows = [[v] for v in values]
    for lev in range(1, height):
        ng = int(groups.max()) + 1
        merge = rng.random(max(ng - 1, 0)) < 0.5
        newid = np.concatenate([[0], np.cumsum(~merge)])
        groups = newid[groups]
        for i in range(len(values)):
            rows[i].append(f"{name}_{lev}_{groups[i]}")
    for row in rows:
        row.append("*")
    return Hierarchy.from_table(rows, name=name)


def random_table(seed: int, n_max: int = 60, sensitive_hierarchy: bool = False):
    """A random table (up to ``n_max`` rows, 1-4 QIs, skewed values) with random uniform-depth
    hierarchies; a random ``k`` and suppression limit. ``sensitive_hierarchy``: the sensitive
    column ``s`` (2-5 values) gets a 2-level hierarchy too (hierarchical t-closeness)."""
    rng = np.random.default_rng(seed)
    r = int(rng.integers(1, 5))
    n = int(rng.integers(3, n_max + 1))
    data, hier = {}, {}
    for j in range(r):
        m = int(rng.integers(2, 8))
        values = [f"v{i}" for i in range(m)]
        name = f"q{j}"
        hier[name] = random_hierarchy(rng, name, values, int(rng.integers(1, 4)))
        p = rng.dirichlet(np.full(m, 0.7))
        data[name] = rng.choice(values, n, p=p)
    V = int(rng.integers(2, 6)) if sensitive_hierarchy else 3
    svals = [f"s{i}" for i in range(V)]
    data["s"] = rng.choice(svals, n, p=rng.dirichlet(np.full(V, 1.0)))
    sens = {}
    if sensitive_hierarchy:
        top = [f"g{int(g)}" for g in rng.integers(0, 2, V)]
        sens["s"] = Hierarchy.from_table([[v, t, "*"] for v, t in zip(svals, top)], name="s")
    ds = Dataset(pd.DataFrame(data), quasi_identifiers=list(hier), sensitive=["s"], hierarchies={**hier, **sens})
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


@settings(max_examples=40, deadline=None)
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


@settings(max_examples=40, deadline=None)
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


@settings(max_examples=40, deadline=None)
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


# ---------------------------------------------------------------- non-monotone models: the relaxation
def _sensitive_table(seed: int, n_max: int = 40):
    ds, _, sup = random_table(seed, n_max, sensitive_hierarchy=True)
    return ds, sup, np.random.default_rng(seed + 1)


def _valid_models(ds, rng):
    """The models of :func:`_models` that accept ``ds``."""
    out = []
    for model in _models(rng):
        try:
            model.validate(ds)
        except Exception:
            continue
        out.append(model)
    return out


def _models(rng):
    from ktype.models.ldiversity import DistinctLDiversity, EntropyLDiversity, FrequencyLDiversity, RecursiveCLDiversity
    from ktype.models.tcloseness import TCloseness

    return [
        EntropyLDiversity(float(rng.choice([1.5, 2.0, 2.5]))),
        RecursiveCLDiversity(float(rng.choice([1.5, 3.0])), int(rng.integers(2, 4))),
        FrequencyLDiversity(float(rng.choice([1.5, 2.0]))),
        TCloseness(float(rng.choice([0.15, 0.3, 0.5])), distance=str(rng.choice(["equal", "ordered", "hierarchical"]))),
        DistinctLDiversity(2),
    ]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_min_emd_equals_brute_force(seed):
    """_min_emd: the least EMD over every histogram of M records equals enumeration."""
    from itertools import combinations_with_replacement

    from ktype.algorithms.fulldomain._engine import tcloseness_min_size
    from ktype.models.tcloseness import TCloseness

    ds, _, rng = _sensitive_table(seed, 30)
    V = len(ds.sensitive_values["s"])
    for distance in ("equal", "ordered", "hierarchical"):
        model = TCloseness(0.3, distance=distance)
        try:
            model.validate(ds)
        except Exception:
            continue
        M = int(rng.integers(1, 7))
        hists = np.array([np.bincount(c, minlength=V) for c in combinations_with_replacement(range(V), M)])
        brute = model.class_values(hists.sum(axis=1), hists, ds).min()
        m0 = tcloseness_min_size(TCloseness(float(brute) + 1e-6, distance=distance), ds)
        assert m0 <= M  # some class of M records passes at t = its least EMD
        from ktype.algorithms.fulldomain import _engine

        got = _engine._min_emd(M, model.table_distribution(ds), distance, _tree_of(model, ds))
        assert got == pytest.approx(brute, abs=1e-9), distance


def _tree_of(model, ds):
    """The tree argument of ``_min_emd`` (as ``tcloseness_min_size`` builds it)."""
    from ktype.algorithms.fulldomain import _engine

    captured = {}
    orig = _engine._min_emd

    def spy(M, q, distance, tree):
        captured["tree"] = tree
        return 0.0

    _engine._min_emd = spy
    try:
        _engine.tcloseness_min_size(model, ds)
    finally:
        _engine._min_emd = orig
    return captured["tree"]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_relaxation_holds_for_every_passing_class(seed):
    """Every class (at every node) that passes a model passes its relaxation: at least k'
    records, d distinct sensitive values, and for t-closeness a least EMD over the
    distributions on its value set of at most t (so failing the relaxation implies failing)."""
    from ktype.algorithms.fulldomain._engine import relaxation, support_conditions
    from ktype.algorithms.fulldomain._lattice import Lattice

    ds, sup, rng = _sensitive_table(seed)
    for model in _valid_models(ds, rng):
        enc = Encoded(ds, (model,), sup, "loss_metric")
        k2, dist = relaxation((model,), ds)
        lat = Lattice(enc.heights)
        zero = np.zeros(enc.r, dtype=np.int64)
        for node in range(lat.size):
            ev = enc.evaluate(enc.bottom, zero, lat.levels[node])
            ok2 = ev.fs.cnt >= k2
            for col, d in dist.items():
                ok2 &= (ev.fs.hists[col] > 0).sum(axis=1) >= d
            assert not (ev.ok & ~ok2).any(), (model, k2, dist)
            for col, gd, q, lim in support_conditions((model,), ds):
                # least EMD over distributions on the class's values, by brute force
                present = ev.fs.hists[col] > 0
                least = np.array([(q * np.where(p[None, :], gd, np.inf).min(axis=1)).sum() for p in present])
                assert not (ev.ok & (least > lim)).any(), model


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_relaxed_bounded_flash_equals_exhaustive(seed):
    """Non-monotone models under suppression: the relaxed bounded search = exhaustive."""
    ds, sup, rng = _sensitive_table(seed)
    for model in _valid_models(ds, rng):
        for meas in ("loss_metric", "non_uniform_entropy", "discernibility", "precision"):
            try:
                a = run_search(Encoded(ds, (model,), sup, meas), "flash")
            except InfeasibleError:
                a = None
            try:
                b = run_search(Encoded(ds, (model,), sup, meas), "exhaustive")
            except InfeasibleError:
                b = None
            assert_bounded_agrees(a, b)
            if a is not None:
                assert b is not None and set(map(tuple, a.minimal.tolist())) <= set(map(tuple, b.minimal.tolist()))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_compiled_verdicts_equal_the_models(seed):
    """Encoded.verdicts (the shared compiled predicate) = each model's own class_verdicts, on
    random histograms including classes exactly at the threshold (uniform, equal to the table)."""
    ds, sup, rng = _sensitive_table(seed)
    V = len(ds.sensitive_values["s"])
    hist = rng.integers(0, 4, size=(200, V)) * rng.integers(0, 2, size=(200, V))
    table = np.bincount(ds.sensitive_codes["s"], minlength=V)
    hist = np.vstack([hist, np.eye(V, dtype=np.int64) * 3, np.ones((1, V), dtype=np.int64), table[None, :], 2 * table[None, :]])
    hist = hist[hist.sum(axis=1) > 0].astype(np.int64)
    cnt = hist.sum(axis=1).astype(np.int64)
    for model in _valid_models(ds, rng) + [KAnonymity(3)]:
        enc = Encoded(ds, (model,), sup, "loss_metric")
        col = model.sensitive_name(ds)
        fast = enc.verdicts(FrequencySet(None, cnt, {col: hist} if col else {}))
        assert (fast == np.asarray(model.class_verdicts(cnt, hist, ds), dtype=bool)).all(), model
