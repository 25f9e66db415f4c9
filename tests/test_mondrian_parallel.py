"""Both Mondrian partitioners — the parallel, level-by-level compiled core and the numpy one
that small k-anonymity jobs use (no compilation on a cold start) — publish exactly the
release of the sequential implementation they replaced (a frozen copy:
``_mondrian_reference.py``): same partitions, same boxes, same rows in the same canonical
order."""

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
from tests._mondrian_reference import reference_mondrian


@pytest.fixture(autouse=True)
def _threads_even_on_small_tables(monkeypatch):
    """Small tables normally run on one thread; here every table runs on all of them."""
    monkeypatch.setattr(mondrian_module, "_PARALLEL_MIN_ROWS", 0)


def _assert_same_release(ds, models, mode, path="compiled"):
    """``path``: "compiled" forces the numba core, "numpy" lets k-anonymity jobs of any size
    take the numpy partitioner (jobs with a sensitive condition always run compiled)."""
    models = tuple(models) if isinstance(models, (list, tuple)) else (models,)
    limit = 0 if path == "compiled" else 10**12
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(mondrian_module, "_NUMPY_MAX_ROWS", limit)
        new = run("mondrian", ds, models, mode=mode)
    ref = reference_mondrian(ds, models, mode=mode)
    assert new.provenance["partitions"] == ref.provenance["partitions"]
    # the published table, row by row (rows with equal content may come from any of their
    # records: the private source order among them is not part of the release) ...
    np.testing.assert_array_equal(new.lo, ref.lo)
    np.testing.assert_array_equal(new.hi, ref.hi)
    np.testing.assert_array_equal(new.suppressed, ref.suppressed)
    for c in ds.sensitive:
        np.testing.assert_array_equal(new.sensitive_codes(c), ref.sensitive_codes(c))
    # ... and every record generalized to the same box
    a, b = np.argsort(new.source), np.argsort(ref.source)
    np.testing.assert_array_equal(new.lo[a], ref.lo[b])
    np.testing.assert_array_equal(new.hi[a], ref.hi[b])
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


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.integers(1, 6), st.sampled_from(["strict", "relaxed"]),
       st.sampled_from([None, None, "distinct", "entropy", "recursive", "t-equal", "t-ordered"]),
       st.sampled_from(["compiled", "numpy"]))
def test_same_release_as_the_sequential_implementation_on_random_tables(ds, k, mode, extra, path):
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
    _assert_same_release(ds, models, mode, path)


@pytest.mark.parametrize("mode", ["strict", "relaxed"])
@pytest.mark.parametrize("models", [
    [KAnonymity(10)], [KAnonymity(3)], [KAnonymity(5), DistinctLDiversity(2)],
    [KAnonymity(5), EntropyLDiversity(1.5)], [KAnonymity(5), TCloseness(0.2, distance="ordered")],
], ids=["k10", "k3", "distinct", "entropy", "t-ordered"])
def test_same_release_as_the_sequential_implementation_on_adult(mode, models):
    """Adult's hierarchies are trees whose closures make distinct partitions publish the
    same box (1,935 partitions, 1,860 boxes at k=10): their rows interleave by their other
    columns, whatever the partition numbering."""
    _assert_same_release(ktype.load_adult(), models, mode)
    if len(models) == 1:
        _assert_same_release(ktype.load_adult(), models, mode, "numpy")


@pytest.mark.parametrize("mode", ["strict", "relaxed"])
def test_same_release_on_synthetic_census_with_ordered_and_tree_columns(mode):
    from ktype.datasets import census_dataset

    ds = census_dataset(20_000, rng=3, sensitive=["Occupation"])
    _assert_same_release(ds, [KAnonymity(4)], mode)
    _assert_same_release(ds, [KAnonymity(4)], mode, "numpy")
    _assert_same_release(ds, [KAnonymity(4), DistinctLDiversity(3)], mode)


def test_small_k_anonymity_jobs_take_the_numpy_partitioner_and_compile_nothing(monkeypatch):
    """README command 1's job (Adult, k = 10, Mondrian) compiles no numba kernel: a cold
    start costs no compilation. Jobs with a sensitive condition run the compiled core."""
    calls = []
    real = mondrian_module._mondrian_core
    monkeypatch.setattr(mondrian_module, "_mondrian_core", lambda *a: calls.append(1) or real(*a))
    ds = ktype.load_adult()
    rel = run("mondrian", ds, KAnonymity(10))
    assert calls == [] and rel.provenance["timings"]["compile_s"] == 0.0
    run("mondrian", ds, [KAnonymity(10), DistinctLDiversity(2)])
    assert calls == [1]
