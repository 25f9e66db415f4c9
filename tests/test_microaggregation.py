"""MDAV / V-MDAV micro-aggregation (survey §6; Domingo-Ferrer & Mateo-Sanz 2002; Solanas &
Martínez-Ballesté 2006): the k-d tree kernel against a quadratic plain-numpy oracle, the group
sizes, the published centroids and their independent checker."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ktype
from ktype.algorithms import run
from ktype.algorithms.microaggregation import microaggregate
from ktype.algorithms.microaggregation._kernels import mdav_kernel
from ktype.exceptions import DataError, InvalidParameterError
from ktype.models.kanonymity import KAnonymity
from ktype.models.microaggregation import check_microaggregation
from tests._mdav_reference import mdav_reference, vmdav_reference


@st.composite
def tables(draw, integer: bool = True):
    n = draw(st.integers(1, 60))
    d = draw(st.integers(1, 3))
    k = draw(st.integers(1, n))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    P = rng.integers(0, 4, size=(n, d)).astype(float) if integer else rng.normal(size=(n, d))
    return P, k


@settings(max_examples=150, deadline=None)
@given(tables())
def test_kernel_equals_reference_on_integer_data(case):
    # integer coordinates: every sum is exact, so ties are decided identically by both
    P, k = case
    assert np.array_equal(mdav_kernel(P, k, False, 0.2)[0], mdav_reference(P, k))
    for gamma in (0.2, 1.1):
        assert np.array_equal(mdav_kernel(P, k, True, gamma)[0], vmdav_reference(P, k, gamma))


@settings(max_examples=60, deadline=None)
@given(tables(integer=False))
def test_kernel_equals_reference_on_continuous_data(case):
    # k >= 2: with k = 1 the last two records are equidistant from their midpoint, a tie that
    # the kernel's running centroid and the oracle's mean decide by rounding
    P, k = case
    k = max(k, 2) if len(P) >= 2 else k
    assert np.array_equal(mdav_kernel(P, k, False, 0.2)[0], mdav_reference(P, k))


@settings(max_examples=80, deadline=None)
@given(tables(), st.floats(0.05, 3.0))
def test_group_sizes(case, gamma):
    P, k = case
    lab, g = mdav_kernel(P, k, False, 0.2)
    sizes = np.bincount(lab, minlength=g)
    assert (lab >= 0).all() and sizes.min() >= k
    assert sizes.max() <= max(2 * k - 1, len(P) if len(P) < 2 * k else 0)  # k..2k-1 (a table < 2k is one group)
    lab, g = mdav_kernel(P, k, True, gamma)
    assert (lab >= 0).all() and np.bincount(lab, minlength=g).min() >= k


def test_kernel_on_larger_table_matches_reference():
    """Deep k-d tree (many leaves, deletions across subtrees) against the oracle."""
    rng = np.random.default_rng(3)
    P = rng.integers(0, 50, size=(1500, 4)).astype(float)
    assert np.array_equal(mdav_kernel(P, 4, False, 0.2)[0], mdav_reference(P, 4))


def _two_clusters() -> ktype.Dataset:
    df = pd.DataFrame({"age": [21, 22, 23, 50, 52, 54], "income": [10, 12, 11, 40, 44, 42],
                       "disease": ["flu", "cold", "flu", "ulcer", "flu", "cold"]})
    return ktype.Dataset(df, quasi_identifiers=["age", "income"], sensitive=["disease"])


def test_centroids_on_a_hand_example():
    ma = microaggregate(_two_clusters(), 3)
    got = ma.table.to_dict("list")
    assert got["age"] == [22.0] * 3 + [52.0] * 3 and got["income"] == [11.0] * 3 + [42.0] * 3
    assert sorted(got["disease"][:3]) == ["cold", "flu", "flu"]
    assert ma.n_groups == 2 and ma.check.satisfied
    # SSE on z-scores: recomputed by hand
    z = _two_clusters().data[["age", "income"]].to_numpy(float)
    z = (z - z.mean(0)) / z.std(0)
    sse = sum(((z[s] - z[s].mean(0)) ** 2).sum() for s in (slice(0, 3), slice(3, 6)))
    assert ma.sse == pytest.approx(sse) and ma.sst == pytest.approx(12.0)
    assert ma.information_loss == pytest.approx(sse / 12.0)


def test_v_mdav_merges_a_close_record():
    # 7 records, k = 3: V-MDAV lets the record at 24 join the first group (d_in = 1 << gamma * d_out)
    df = pd.DataFrame({"x": [21, 22, 23, 24, 80, 81, 82]})
    ds = ktype.Dataset(df, quasi_identifiers=["x"])
    ma = microaggregate(ds, 3, method="v_mdav", gamma=2.0)
    assert sorted(set(ma.table["x"])) == [22.5, 81.0]


def test_rows_do_not_reveal_input_order():
    ds = _two_clusters()
    perm = np.array([5, 3, 0, 4, 1, 2])
    a = microaggregate(ds, 2).table
    b = microaggregate(ds.subset(perm), 2).table
    pd.testing.assert_frame_equal(a, b)


def test_non_numeric_qi_is_refused_by_name():
    df = pd.DataFrame({"age": [1, 2, 3], "race": ["a", "b", "c"]})
    with pytest.raises(DataError, match="'race' is not numeric"):
        microaggregate(ktype.Dataset(df, quasi_identifiers=["age", "race"]), 2)


@pytest.mark.parametrize("bad", [{"k": 0}, {"k": 7}, {"k": 2.5}, {"method": "kmeans"}, {"gamma": 0}])
def test_bad_parameters(bad):
    args = {"k": 2, **bad}
    k = args.pop("k")
    with pytest.raises(InvalidParameterError):
        microaggregate(_two_clusters(), k, **args)


def test_checker_rejects_small_groups_and_wrong_centroids():
    ds = _two_clusters()
    ma = microaggregate(ds, 3)
    assert check_microaggregation(ds, ma.table, ma._source, 3).satisfied
    assert not check_microaggregation(ds, ma.table, ma._source, 4).satisfied  # groups of 3 < 4
    shifted = ma.table.copy()
    shifted["age"] = shifted["age"] + np.where(shifted.index < 3, 0.5, 0.0)  # not the mean any more
    res = check_microaggregation(ds, shifted, ma._source, 3)
    assert not res.satisfied and res.summary["wrong_centroid_rows"] == 3
    swapped = ma._source.copy()
    swapped[[0, 5]] = swapped[[5, 0]]  # a row published in the other group
    assert not check_microaggregation(ds, ma.table, swapped, 3).satisfied
    assert not check_microaggregation(ds, ma.table, np.zeros(6, dtype=np.int64), 3).satisfied


@pytest.mark.parametrize("name", ["mdav", "v_mdav"])
def test_registered_release_is_k_anonymous_and_reports_sse(name):
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.integers(0, 30, size=(300, 3)), columns=["a", "b", "c"])
    ds = ktype.Dataset(df, quasi_identifiers=["a", "b", "c"])
    rel = run(name, ds, KAnonymity(7))
    assert KAnonymity(7).check(rel).satisfied
    info = rel.provenance["microaggregation"]
    assert info["smallest_group"] >= 7 and 0 <= info["sse_sst"] <= 1
    ma = microaggregate(ds, 7, method=name)
    assert info["sse"] == pytest.approx(ma.sse) and info["groups"] == ma.n_groups
