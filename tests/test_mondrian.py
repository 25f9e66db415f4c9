"""Mondrian: outputs pass the independent checkers; strict regions are disjoint."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ktype
from ktype import Dataset, Hierarchy
from ktype.algorithms import run
from ktype.exceptions import InfeasibleError, UnsupportedModelError
from ktype.models.kanonymity import KAnonymity


@st.composite
def tables(draw):
    n = draw(st.integers(4, 40))
    r = draw(st.integers(1, 3))
    cols = {}
    hier = {}
    for j in range(r):
        m = draw(st.integers(1, 8))
        vals = draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n))
        cols[f"q{j}"] = vals
        if draw(st.booleans()):
            hier[f"q{j}"] = "ordered"
        else:
            hier[f"q{j}"] = Hierarchy.intervals(range(m), [2, 4], name=f"q{j}")
    cols["s"] = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n))
    df = pd.DataFrame(cols)
    return Dataset(df, quasi_identifiers=[f"q{j}" for j in range(r)], sensitive=["s"], hierarchies=hier)


def _boxes_disjoint_or_equal(rel):
    """Strict Mondrian on ordered attributes: distinct published boxes do not overlap."""
    keep = ~rel.suppressed
    boxes = np.unique(np.concatenate([rel.lo[keep], rel.hi[keep]], axis=1), axis=0)
    r = rel.r
    lo, hi = boxes[:, :r], boxes[:, r:]
    overlap = np.all((lo[:, None, :] <= hi[None, :, :]) & (lo[None, :, :] <= hi[:, None, :]), axis=2)
    np.fill_diagonal(overlap, False)
    return not overlap.any()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.integers(1, 5), st.sampled_from(["strict", "relaxed"]))
def test_mondrian_output_is_k_anonymous(ds, k, mode):
    if k > ds.n:
        with pytest.raises(ktype.exceptions.InvalidParameterError, match="exceeds the number of rows"):
            run("mondrian", ds, KAnonymity(k), mode=mode)
        return
    rel = run("mondrian", ds, KAnonymity(k), mode=mode)
    assert KAnonymity(k).check(rel).satisfied
    X = ds.X[rel.source]
    assert ((rel.lo <= X) & (X <= rel.hi)).all()


@settings(max_examples=30, deadline=None)
@given(tables(), st.integers(1, 4))
def test_strict_mondrian_regions_disjoint_on_ordered_attributes(ds, k):
    if k > ds.n:
        return
    ordered = Dataset(ds.data, quasi_identifiers=ds.quasi_identifiers, sensitive=ds.sensitive,
                      hierarchies={c: "ordered" for c in ds.quasi_identifiers})
    rel = run("mondrian", ordered, KAnonymity(k), mode="strict")
    assert _boxes_disjoint_or_equal(rel)


def test_mondrian_splits_until_k_on_simple_line():
    df = pd.DataFrame({"x": list(range(16)), "s": ["a", "b"] * 8})
    ds = Dataset(df, quasi_identifiers=["x"], sensitive=["s"], hierarchies={"x": "ordered"})
    rel = run("mondrian", ds, KAnonymity(4))
    out = rel.to_pandas()
    assert sorted(out["x"].unique()) == ["[0-3]", "[12-15]", "[4-7]", "[8-11]"]


def test_mondrian_with_l_diversity_extra_condition():
    from ktype.models.ldiversity import DistinctLDiversity

    df = pd.DataFrame({"x": list(range(12)), "s": ["a"] * 6 + ["b"] * 6})
    ds = Dataset(df, quasi_identifiers=["x"], sensitive=["s"], hierarchies={"x": "ordered"})
    plain = run("mondrian", ds, KAnonymity(2))
    assert not DistinctLDiversity(2).check(plain).satisfied  # homogeneous classes exist
    div = run("mondrian", ds, [KAnonymity(2), DistinctLDiversity(2)])
    assert DistinctLDiversity(2).check(div).satisfied and KAnonymity(2).check(div).satisfied


def test_mondrian_l_diversity_infeasible_table():
    from ktype.models.ldiversity import DistinctLDiversity

    df = pd.DataFrame({"x": list(range(6)), "s": ["a"] * 6})
    ds = Dataset(df, quasi_identifiers=["x"], sensitive=["s"], hierarchies={"x": "ordered"})
    with pytest.raises((InfeasibleError, ktype.exceptions.KtypeError), match="s"):
        run("mondrian", ds, [KAnonymity(2), DistinctLDiversity(2)])


def test_mondrian_rejects_unsupported_model():
    from ktype.models import KConcealment

    ds = ktype.load_adult(n=100)
    with pytest.raises(UnsupportedModelError, match="mondrian does not support KConcealment"):
        run("mondrian", ds, KConcealment(2))

    with pytest.raises(UnsupportedModelError, match="mondrian does not support _NoRule: it declares no per-class rule"):
        run("mondrian", ds, [KAnonymity(5), _NoRule(5)])


class _NoRule(KAnonymity):
    """A class model that declares no rule for the algorithms (rule_spec None)."""

    def rule_spec(self, dataset):
        return None


def test_mondrian_hierarchical_t_closeness():
    """The shared predicate decides hierarchical EMD too, so Mondrian takes that distance."""
    from ktype.data.bundled import bundled_path
    from ktype.models import TCloseness

    ds = ktype.load_adult(n=1000)
    hier = {c: h for c, h in zip(ds.quasi_identifiers, ds.hierarchies)}
    hier["salary-class"] = bundled_path("adult") / "adult_hierarchy_salary-class.csv"
    with_sens = Dataset(ds.data, quasi_identifiers=ds.quasi_identifiers, sensitive=["salary-class"], hierarchies=hier)
    model = TCloseness(0.05, distance="hierarchical")
    plain = run("mondrian", with_sens, KAnonymity(5))
    assert not model.check(plain).satisfied
    rel = run("mondrian", with_sens, [KAnonymity(5), model])
    assert model.check(rel).satisfied and rel.provenance["partitions"] > 1


@pytest.mark.parametrize("distance", ["equal", "ordered"])
def test_mondrian_t_closeness_condition(distance):
    from ktype.models import TCloseness

    ds = ktype.load_adult(n=3000)
    plain = run("mondrian", ds, KAnonymity(5))
    model = TCloseness(0.1, distance=distance)
    assert not model.check(plain).satisfied
    rel = run("mondrian", ds, [KAnonymity(5), model])
    assert model.check(rel).satisfied and KAnonymity(5).check(rel).satisfied


def test_mondrian_adult_hierarchical():
    ds = ktype.load_adult(n=3000)
    rel = run("mondrian", ds, KAnonymity(10))
    res = KAnonymity(10).check(rel)
    assert res.satisfied and res.summary["classes"] > 20
    assert rel.provenance["verified"] is True and rel.provenance["algorithm"] == "mondrian"


@settings(max_examples=200, deadline=None)
@given(hist=st.lists(st.integers(0, 9), min_size=1, max_size=7), li=st.integers(1, 8), c=st.floats(0.1, 5.0))
def test_recursive_diversity_test_matches_sorted_definition(hist, li, c):
    """Mondrian's recursive (c, l) test without a sort (cold-start compile) equals the
    definition r_1 < c (r_l + ... + r_m) on the sorted histogram (c read as a fraction)."""
    from ktype.algorithms.mondrian import _allowed, _conditions
    from ktype.models import RecursiveCLDiversity
    from ktype.models.ldiversity import as_fraction

    h = np.array(hist, dtype=np.int64)
    srt = np.sort(h)[::-1]
    num, den = as_fraction(c)
    want = bool(srt[0] * den < srt[li - 1 :].sum() * num)
    df = pd.DataFrame({"u": range(len(h)), "s": range(len(h))})
    ds = Dataset(df, quasi_identifiers=["u"], sensitive=["s"], hierarchies={"u": "ordered"})
    cond = _conditions(ds, (RecursiveCLDiversity(c, li),))[-1]
    size = max(int(h.sum()), 1)
    assert _allowed.py_func(h, size, 1, cond) == want
    assert _allowed(h, size, 1, cond) == want


@settings(max_examples=100, deadline=None)
@given(vals=st.lists(st.integers(-50, 50), min_size=1, max_size=40, unique=True), data=st.data())
def test_kth_smallest_and_width_order_match_numpy(vals, data):
    """The sort-free helpers of the relaxed median split and the dimension order."""
    from ktype.algorithms.mondrian import _kth_smallest, _order_desc

    a = np.array(vals, dtype=np.int64)
    kth = data.draw(st.integers(0, len(vals) - 1))
    assert _kth_smallest(a.copy(), kth) == np.sort(a)[kth]
    w = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=1, max_size=9)))
    assert _order_desc(w).tolist() == np.argsort(-w, kind="mergesort").tolist()
