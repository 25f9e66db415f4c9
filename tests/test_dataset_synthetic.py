"""Tests of the synthetic generators in :mod:`ktype.datasets.synthetic`."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ktype import Dataset
from ktype.datasets import (
    ARTIFICIAL_PROBABILITIES,
    CENSUS_SCHEMA,
    artificial_kconcealment,
    census,
    census_dataset,
    census_hierarchy,
)
from ktype.exceptions import HierarchyError, InvalidParameterError

TABLE2 = {  # Doka et al., Table 2
    "Age": (79, "numerical"),
    "Gender": (2, "categorical"),
    "Education Level": (17, "numerical"),
    "Marital Status": (6, "categorical"),
    "Race": (9, "categorical"),
    "Work Class": (10, "categorical"),
    "Country": (83, "categorical"),
    "Occupation": (51, "categorical"),
}


# ---------------------------------------------------------------------------- CENSUS
def test_census_schema_matches_table2():
    assert list(CENSUS_SCHEMA) == list(TABLE2)
    for col, (kind, domain, probs) in CENSUS_SCHEMA.items():
        assert (len(domain), kind) == TABLE2[col]
        assert len(set(domain)) == len(domain) == len(probs)
        assert np.isclose(probs.sum(), 1.0) and (probs > 0).all()


def test_census_shape_types_cardinalities():
    df = census(20_000, rng=0)
    assert df.shape == (20_000, 8) and list(df.columns) == list(TABLE2)
    for col, (m, kind) in TABLE2.items():
        if kind == "numerical":
            assert pd.api.types.is_integer_dtype(df[col])
        else:
            assert isinstance(df[col].dtype, pd.CategoricalDtype)
            assert len(df[col].cat.categories) == m
        assert df[col].nunique() <= m
    assert df["Age"].between(17, 95).all() and df["Education Level"].between(1, 17).all()
    # with 20k rows every value of the small domains shows up
    for col in ("Gender", "Marital Status", "Work Class", "Education Level", "Age"):
        assert df[col].nunique() == TABLE2[col][0]
    assert not df.isna().any().any()


def test_census_marginals_follow_schema():
    df = census(50_000, rng=1)
    _, domain, probs = CENSUS_SCHEMA["Country"]
    freq = df["Country"].value_counts(normalize=True).reindex(domain, fill_value=0).to_numpy()
    assert np.abs(freq - probs).max() < 0.01
    _, domain, probs = CENSUS_SCHEMA["Age"]
    freq = df["Age"].value_counts(normalize=True).reindex(domain, fill_value=0).to_numpy()
    assert np.abs(freq - probs).max() < 0.01


def test_census_determinism_and_rng():
    a = census(500, rng=42)
    pd.testing.assert_frame_equal(a, census(500, rng=42))
    assert not a.equals(census(500, rng=43))
    g1, g2 = np.random.default_rng(7), np.random.default_rng(7)
    pd.testing.assert_frame_equal(census(300, rng=g1), census(300, rng=g2))
    # a Generator is consumed, not copied: two draws from one differ
    g = np.random.default_rng(7)
    assert not census(300, rng=g).equals(census(300, rng=g))
    # None: fresh entropy
    assert not census(300).equals(census(300))
    # the global numpy state is untouched
    state = np.random.get_state()[1].copy()  # noqa: NPY002
    census(100, rng=5)
    census(100)
    assert np.array_equal(np.random.get_state()[1], state)  # noqa: NPY002


def test_census_bad_parameters():
    with pytest.raises(InvalidParameterError, match=r"The 'n' parameter of census must be an int in the range \[1, inf\)\. Got 0"):
        census(0)
    with pytest.raises(InvalidParameterError, match=r"'rng' parameter must be an int seed"):
        census(10, rng="seed")
    with pytest.raises(InvalidParameterError, match=r"Unknown CENSUS column 'Contry'\. Did you mean 'Country'\?"):
        census_hierarchy("Contry")
    with pytest.raises(InvalidParameterError, match=r"'kind' parameter of census_hierarchy"):
        census_hierarchy("Country", "balanced")


def test_census_dataset_hierarchies():
    ds = census_dataset(5_000, rng=3)
    assert isinstance(ds, Dataset) and (ds.n, ds.r) == (5_000, 8)
    assert ds.quasi_identifiers == list(TABLE2)
    assert ds.domain_sizes.tolist() == [m for m, _ in TABLE2.values()]
    for c, h in zip(ds.quasi_identifiers, ds.hierarchies):
        if TABLE2[c][1] == "numerical":
            assert h.kind == "ordered"
        else:
            assert h.kind == "tree" and h.uniform
            h.require_levels()
    assert ds.hierarchy("Gender").height == 1
    country = ds.hierarchy("Country")
    assert country.height == 4  # 83 -> 21 -> 6 -> 2 -> *
    # every level groups at most fanout children, and levels are balanced
    for lev in range(1, country.height):
        lo, hi = country.level_intervals(lev)
        assert (hi - lo + 1 <= 4**lev).all()
    # decoding X gives back the data
    for j, c in enumerate(ds.quasi_identifiers):
        h = ds.hierarchies[j]
        assert [str(h.leaves[x]) for x in ds.X[:200, j]] == [str(v) for v in ds.data[c].iloc[:200]]
    flat = census_dataset(100, rng=3, categorical="flat")
    assert all(h.height == 1 for h in flat.hierarchies if h.kind == "tree")
    np.testing.assert_array_equal(flat.X, census_dataset(100, rng=3).X)


def test_census_dataset_sensitive():
    ds = census_dataset(1_000, rng=4, sensitive=["Occupation"])
    assert ds.r == 7 and ds.sensitive == ["Occupation"]
    assert ds.sensitive_codes["Occupation"].max() < 51


# ---------------------------------------------------------------------------- k-concealment artificial
def test_artificial_shape_and_hierarchies():
    ds = artificial_kconcealment(rng=0)
    assert (ds.n, ds.r) == (5000, 6)
    assert ds.quasi_identifiers == ["A1", "A2", "A3", "A4", "A5", "A6"]
    assert ds.domain_sizes.tolist() == [2, 4, 4, 25, 10, 5]
    assert ds.sensitive == []
    heights = [h.height for h in ds.hierarchies]
    assert heights == [1, 2, 2, 3, 3, 3]
    a5, a6 = ds.hierarchy("A5"), ds.hierarchy("A6")
    # k-concealment §9: A6 unbalanced, a4/a5 at depth 3 and a1..a3 at depth 2; A5: a5, a10 under the halves
    assert {v: int(a6.leaf_depth[a6.rank_of(v)]) for v in ["a1", "a2", "a3", "a4", "a5"]} == {
        "a1": 2, "a2": 2, "a3": 2, "a4": 3, "a5": 3,
    }
    assert int(a5.leaf_depth[a5.rank_of("a5")]) == 2 and int(a5.leaf_depth[a5.rank_of("a10")]) == 2
    assert int(a5.leaf_depth[a5.rank_of("a1")]) == 3
    with pytest.raises(HierarchyError, match=r"'A6' is ragged"):
        a6.require_levels()
    # the A4 family: node leaf sets are exactly the listed subsets + singletons + root
    a4 = ds.hierarchy("A4")
    sets = {frozenset(a4.leaves[lo : hi + 1]) for lo, hi in zip(a4.node_lo, a4.node_hi)}
    want = {frozenset(f"a{i}" for i in r) for r in (range(1, 7), range(7, 13), range(13, 19), range(19, 26), range(1, 13), range(13, 26), range(1, 26))}
    want |= {frozenset([f"a{i}"]) for i in range(1, 26)}
    assert sets == want


def test_artificial_probabilities():
    ds = artificial_kconcealment(200_000, rng=1)
    for name, probs in ARTIFICIAL_PROBABILITIES.items():
        assert np.isclose(sum(probs), 1.0)
        freq = ds.data[name].value_counts(normalize=True).reindex([f"a{i}" for i in range(1, len(probs) + 1)])
        assert np.abs(freq.to_numpy() - np.asarray(probs)).max() < 0.006, name


def test_artificial_determinism():
    a = artificial_kconcealment(1000, rng=11)
    b = artificial_kconcealment(1000, rng=11)
    np.testing.assert_array_equal(a.X, b.X)
    pd.testing.assert_frame_equal(a.data, b.data)
    assert not np.array_equal(a.X, artificial_kconcealment(1000, rng=12).X)
    with pytest.raises(InvalidParameterError, match=r"'n' parameter of artificial_kconcealment"):
        artificial_kconcealment(-5)
