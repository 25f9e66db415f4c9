"""The parallel, level-by-level Mondrian publishes exactly the release of the sequential
implementation it replaced (a frozen copy: ``_mondrian_reference.py``): same partitions,
same boxes, same rows in the same canonical order."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ktype
import ktype.algorithms.mondrian as mondrian_module
from ktype import Dataset, Hierarchy
from ktype.algorithms import run
from ktype.models.kanonymity import KAnonymity
from ktype.models.ldiversity import DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity
from ktype.models.tcloseness import TCloseness
from ktype.tests._mondrian_reference import reference_mondrian


@pytest.fixture(autouse=True)
def _threads_even_on_small_tables(monkeypatch):
    """Small tables normally run on one thread; here every table runs on all of them."""
    monkeypatch.setattr(mondrian_module, "_PARALLEL_MIN_ROWS", 0)


def _assert_same_release(ds, models, mode):
    models = tuple(models) if isinstance(models, (list, tuple)) else (models,)
    new = run("mondrian", ds, models, mode=mode)
    ref = reference_mondrian(ds, models, mode=mode)
    assert new.provenance["partitions"] == ref.provenance["partitions"]
    np.testing.assert_array_equal(new.source, ref.source)
    np.testing.assert_array_equal(new.lo, ref.lo)
    np.testing.assert_array_equal(new.hi, ref.hi)
    np.testing.assert_array_equal(new.suppressed, ref.suppressed)
    return new


@st.composite
def tables(draw):
    n = draw(st.integers(2, 120))
    r = draw(st.integers(1, 4))
    cols, hier = {}, {}
    for j in range(r):
        m = draw(st.integers(1, 12))
        cols[f"q{j}"] = draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n))
        kind = draw(st.sampled_from(["ordered", "intervals", "flat"]))
        hier[f"q{j}"] = {"ordered": "ordered", "flat": "flat",
                         "intervals": Hierarchy.intervals(range(m), [2, 4], name=f"q{j}")}[kind]
    cols["s"] = draw(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=n, max_size=n))
    return Dataset(pd.DataFrame(cols), quasi_identifiers=[f"q{j}" for j in range(r)], sensitive=["s"],
                   hierarchies=hier)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.integers(1, 6), st.sampled_from(["strict", "relaxed"]),
       st.sampled_from([None, "distinct", "entropy", "recursive", "t-equal", "t-ordered"]))
def test_same_release_as_the_sequential_implementation_on_random_tables(ds, k, mode, extra):
    if k > ds.n:
        return
    models = [KAnonymity(k)]
    if extra is not None:
        models.append({"distinct": DistinctLDiversity(2), "entropy": EntropyLDiversity(1.5),
                       "recursive": RecursiveCLDiversity(c=2.0, l=2), "t-equal": TCloseness(0.4, distance="equal"),
                       "t-ordered": TCloseness(0.3, distance="ordered")}[extra])
    try:
        reference_mondrian(ds, tuple(models), mode=mode)
    except ktype.exceptions.InfeasibleError:
        with pytest.raises(ktype.exceptions.InfeasibleError):
            run("mondrian", ds, models, mode=mode)
        return
    _assert_same_release(ds, models, mode)


@pytest.mark.parametrize("mode", ["strict", "relaxed"])
@pytest.mark.parametrize("models", [
    [KAnonymity(10)], [KAnonymity(3)], [KAnonymity(5), DistinctLDiversity(2)],
    [KAnonymity(5), EntropyLDiversity(1.5)], [KAnonymity(5), TCloseness(0.2, distance="ordered")],
], ids=["k10", "k3", "distinct", "entropy", "t-ordered"])
def test_same_release_as_the_sequential_implementation_on_adult(mode, models):
    """Adult's hierarchies are trees whose closures make distinct partitions publish the
    same box (1,935 partitions, 1,860 boxes at k=10): the release order of their rows then
    follows the partition numbering, which must stay the sequential one's."""
    _assert_same_release(ktype.load_adult(), models, mode)


@pytest.mark.parametrize("mode", ["strict", "relaxed"])
def test_same_release_on_synthetic_census_with_ordered_and_tree_columns(mode):
    from ktype.datasets import census_dataset

    ds = census_dataset(20_000, rng=3, sensitive=["Occupation"])
    _assert_same_release(ds, [KAnonymity(4)], mode)
    _assert_same_release(ds, [KAnonymity(4), DistinctLDiversity(3)], mode)
