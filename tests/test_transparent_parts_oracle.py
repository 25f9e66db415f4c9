"""Parts of the transparent algorithms and their baselines against definitions written out here.

* Perimeter coordinates (Xiao, Tao & Koudas, TODS 2010, §3 Eq. 4): ``M[j]·(W[j, hi] − W[j, lo])``
  is the normalized width ``(max − min)/ext_j`` times ``Π ext`` (exact integers), or the
  normalized width itself where that product would overflow (floats, ``M = 1``).
* Mask's capped distribution (Wong et al., VLDB 2007, as run by Xiao et al.'s appendix): the
  counts sum to the group size, none above the cap, none on a value the pool lacks.
* ℓ-diverse Mondrian on a tree hierarchy publishes hierarchy nodes, each group frequency
  ℓ-diverse (``max count · ℓ <= size``).
* A table that is not ℓ-eligible is refused with the value and the count that make it so.
"""

from __future__ import annotations

import warnings
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ktype
from ktype.algorithms import run
from ktype.algorithms.transparent import prepare
from ktype.algorithms.transparent._common import perimeter_coordinates
from ktype.algorithms.transparent.mask import capped_counts
from ktype.data.hierarchy import Hierarchy
from ktype.exceptions import InfeasibleError
from ktype.models import FrequencyLDiversity, TransparentLDiversity


def _widths(values: np.ndarray, ext: np.ndarray) -> np.ndarray:
    return np.where(ext > 0, (values.max(axis=0) - values.min(axis=0)) / np.where(ext > 0, ext, 1), 0.0)


@pytest.mark.parametrize("scale", [1, 10**7])
def test_perimeter_coordinates_give_the_normalized_width(scale):
    """Small extents: exact integers; extents whose product passes 2^62: floats."""
    rng = np.random.default_rng(5)
    n = 40
    df = pd.DataFrame({c: rng.integers(0, 50, n) * scale for c in ("a", "b", "c")})
    df["s"] = rng.choice(list("xyz"), n)
    ds = ktype.Dataset(df, quasi_identifiers=["a", "b", "c"], sensitive=["s"])
    X = np.asarray(ds.X, dtype=np.int32)
    W, M = perimeter_coordinates(ds, X)
    values = df[["a", "b", "c"]].to_numpy()
    ext = values.max(axis=0) - values.min(axis=0)
    exact = n * 3 * int(np.prod(ext.astype(object))) < 2**62
    assert exact == (scale == 1)
    prod = float(np.prod(ext.astype(float))) if exact else 1.0
    for rows in (rng.choice(n, size, replace=False) for size in (2, 5, 17, n)):
        lo, hi = X[rows].min(axis=0), X[rows].max(axis=0)
        got = np.array([M[j] * (W[j, hi[j]] - W[j, lo[j]]) for j in range(3)], dtype=float)
        np.testing.assert_allclose(got, _widths(values[rows], ext) * prod, rtol=1e-12)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=7), st.integers(1, 12), st.integers(-1, 8))
def test_capped_counts_fill_the_group_under_the_cap(pooled, size, cap):
    pooled = np.array(pooled, dtype=np.int64)
    nz = int((pooled > 0).sum())
    got = capped_counts(pooled, size, cap)
    if cap <= 0 or cap * nz < size:
        assert got is None
        return
    assert got is not None
    assert int(got.sum()) == size
    assert (got <= cap).all() and (got >= 0).all()
    assert (got[pooled == 0] == 0).all()
    # never below the proportional share (rounded down) clipped at the cap
    tot = int(pooled.sum())
    assert (got >= np.minimum(pooled * size // tot, cap)).all()


@pytest.mark.parametrize("seed", range(3))
def test_l_diverse_mondrian_on_a_tree_publishes_nodes_of_diverse_groups(seed):
    rng = np.random.default_rng(seed)
    n = 60
    cities = ["Lyon", "Nice", "Oslo", "Bergen", "Rome", "Milan"]
    tree = {"Lyon": "France", "Nice": "France", "Oslo": "Norway", "Bergen": "Norway", "Rome": "Italy", "Milan": "Italy"}
    df = pd.DataFrame({"age": rng.integers(20, 70, n), "city": rng.choice(cities, n), "s": rng.choice(list("abcd"), n)})
    h = Hierarchy.from_subsets(cities, [[c for c in cities if tree[c] == k] for k in ("France", "Norway", "Italy")],
                               "city", labels=["France", "Norway", "Italy"])
    ds = ktype.Dataset(df, quasi_identifiers=["age", "city"], sensitive=["s"], hierarchies={"city": h})
    rel = run("mondrian_ldiv", ds, FrequencyLDiversity(2))
    pub = rel.to_pandas()
    assert set(pub["city"]) <= set(cities) | {"France", "Norway", "Italy", "*"}, set(pub["city"])
    groups = pub.groupby(["age", "city"])["s"].agg(list)
    for values in groups:
        assert max(Counter(values).values()) * 2 <= len(values)


@pytest.mark.parametrize("name", ["tailor", "ace", "hybrid", None])
def test_an_ineligible_table_is_refused_naming_the_value_and_its_count(name):
    """Through the registry (the model's validation) and through the algorithms' shared
    preparation (None), which Anatomy also calls."""
    df = pd.DataFrame({"age": [20, 21, 22, 23, 24], "s": ["flu", "flu", "flu", "hiv", "cold"]})
    ds = ktype.Dataset(df, quasi_identifiers=["age"], sensitive=["s"])
    with pytest.raises(InfeasibleError, match=r"value 'flu' of 's' occurs 3 times"):
        if name is None:
            prepare(ds, "s", 2, np.random.default_rng(0))
        else:
            run(name, ds, TransparentLDiversity(2), rng=0)


@pytest.mark.parametrize("seed", [0, 1])
def test_mask_publishes_diverse_groups_of_the_original_sizes(seed):
    """Tables where some group that is not ℓ-diverse has no diverse group of its size, so Mask
    draws the pooled distribution capped at |G|/ℓ per value: every published group is
    frequency ℓ-diverse and keeps its size."""
    rng = np.random.default_rng(seed)
    n = 30
    df = pd.DataFrame({"age": rng.integers(20, 70, n), "s": rng.choice(list("aaabbcd"), n)})
    ds = ktype.Dataset(df, quasi_identifiers=["age"], sensitive=["s"])
    rel = run("mask", ds, FrequencyLDiversity(2), rng=0, k=2)
    pub = rel.to_pandas()
    assert len(pub) == n
    for _, values in pub.groupby("age")["s"]:
        assert max(Counter(values).values()) * 2 <= len(values), list(values)
    # the provenance counts the groups whose values were changed and the values changed, as a
    # recount from the original records behind each published box says
    orig = ds.data["s"].to_numpy()[rel.source]
    changed, moved = 0, 0
    for label in pub["age"].unique():
        rows = np.flatnonzero(pub["age"].to_numpy() == label)
        before, after = Counter(orig[rows]), Counter(pub["s"].to_numpy()[rows])
        changed += before != after
        moved += sum((before - after).values())
    assert rel.provenance["modified_groups"] == changed >= 1
    assert rel.provenance["altered_values"] == moved
    # the groups are Mondrian's on the ages: each published box holds as many rows as records it covers
    for label, size in pub["age"].value_counts().items():
        lo, hi = (int(x) for x in str(label).strip("[]").split("-")) if "-" in str(label) else (int(label),) * 2
        assert size == int(((df["age"] >= lo) & (df["age"] <= hi)).sum())


def test_the_anatomy_split_check_gives_the_solver_only_options_it_knows():
    """Duplicate QI rows spread over two groups: the split check solves an integer program
    (HiGHS), whose options must all be ones the solver accepts (an unknown one, such as a
    misspelt time limit, is dropped with a warning and the solve runs without a limit)."""
    from scipy.optimize import OptimizeWarning

    from ktype.algorithms.transparent.anatomy import Anatomy, check_anatomy

    ds = ktype.Dataset(pd.DataFrame({"q": [0, 0, 1, 1], "v": list("abab")}), quasi_identifiers=["q"], sensitive=["v"])
    qi = pd.DataFrame({"q": [0, 0, 1, 1], "group": [1, 2, 1, 2]})
    st_ = pd.DataFrame({"group": [1, 1, 2, 2], "v": list("abab")})
    with warnings.catch_warnings():
        warnings.simplefilter("error", OptimizeWarning)
        res = check_anatomy(Anatomy(qi, st_), 1, ds)
    assert res.summary["assignment"].endswith("integer program"), res.summary
    assert res.summary["groups_match_input"] is True


@pytest.mark.parametrize("seed", range(4))
def test_the_kernels_give_the_same_groups_on_any_number_of_threads(seed):
    """Tailor runs the root's dimensions in parallel when a depth has fewer nodes than threads;
    Ace balances leaves and buckets over the threads. The groups and their ids must not depend
    on the thread count (1 is the serial, depth-by-depth and bucket-by-bucket run)."""
    from ktype.algorithms.transparent import _kernels as K

    rng = np.random.default_rng(seed)
    n = 3000
    if seed % 2:
        df = pd.DataFrame({"a": rng.integers(0, 9, n), "b": rng.integers(0, 5, n), "c": rng.integers(0, 4, n),
                           "s": rng.integers(0, 12, n)})
    else:  # symmetric under swapping a and b (points (x, σ(x)) for an involution σ): the root's
        # best cuts on a and on b tie, and the first dimension must win as in the serial scan
        sigma = np.arange(n)
        pairs = rng.permutation(n).reshape(-1, 2)
        sigma[pairs[:, 0]], sigma[pairs[:, 1]] = pairs[:, 1], pairs[:, 0]
        df = pd.DataFrame({"a": np.arange(n), "b": sigma, "c": np.zeros(n, dtype=int), "s": rng.integers(0, 12, n)})
    ds = ktype.Dataset(df, quasi_identifiers=["a", "b", "c"], sensitive=["s"])
    p = prepare(ds, "s", 3, np.random.default_rng(seed))
    leaves = [K.tailor_kernel(p.X, p.W, p.M, p.sorted_orders(), p.s, p.n_values, p.l, 2, t) for t in (1, 2, 3)]
    for leaf, g in leaves[1:]:
        assert g == leaves[0][1]
        np.testing.assert_array_equal(leaf, leaves[0][0])
    leaf, n_leaves = leaves[0]
    assert n_leaves > 2  # several leaves of uneven sizes: the balancing has work to do
    rows = np.argsort((leaf * p.n_values + p.s) * n + p.draw, kind="stable")
    leaf_start = np.concatenate(([0], np.cumsum(np.bincount(leaf, minlength=n_leaves))))
    groups = [K.ace_kernel(rows, leaf_start, p.s, p.n_values, p.l, p.X, p.W, p.M, p.key, t) for t in (1, 2, 5)]
    for group, g in groups[1:]:
        assert g == groups[0][1]
        np.testing.assert_array_equal(group, groups[0][0])


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.lists(st.floats(0, 1e6), max_size=30), st.integers(1, 6))
def test_balanced_bins_split_every_item_once_by_the_lpt_rule(cost, n_bins):
    from ktype.algorithms.transparent._kernels import balanced_bins

    cost = np.array(cost, dtype=np.float64)
    items, start = balanced_bins(cost, n_bins)
    assert start[0] == 0 and start[-1] == len(cost) and np.all(np.diff(start) >= 0)
    assert sorted(items.tolist()) == list(range(len(cost)))
    load = np.zeros(n_bins)
    for q in np.argsort(-cost, kind="stable"):  # the rule written out: largest first, to the least loaded bin
        w = int(np.argmin(load))
        load[w] += cost[q]
        assert q in items[start[w]:start[w + 1]]
    for w in range(n_bins):
        assert np.all(np.diff(items[start[w]:start[w + 1]]) > 0)


@pytest.mark.parametrize("seed", range(3))
def test_ace_reads_its_rows_by_leaf_value_and_secret_draw(seed):
    """``ace_groups`` orders the rows by (leaf, value, secret draw) with a counting sort; the
    groups must be those of the kernel fed the argsort of that key (several buckets per leaf,
    so the draws decide which rows share a bucket)."""
    from ktype.algorithms.transparent import _kernels as K
    from ktype.algorithms.transparent import ace_groups, tailor_groups

    rng = np.random.default_rng(seed)
    n = 2000
    df = pd.DataFrame({"a": rng.integers(0, 30, n), "b": rng.integers(0, 20, n), "s": rng.integers(0, 9, n)})
    ds = ktype.Dataset(df, quasi_identifiers=["a", "b"], sensitive=["s"])
    p = prepare(ds, "s", 3, np.random.default_rng(seed))
    for leaf in (np.zeros(n, dtype=np.int64), tailor_groups(p)[0]):
        n_leaves = int(leaf.max()) + 1
        rows = np.argsort((leaf * p.n_values + p.s) * n + p.draw, kind="stable")
        leaf_start = np.concatenate(([0], np.cumsum(np.bincount(leaf, minlength=n_leaves))))
        want = K.ace_kernel(rows, leaf_start, p.s, p.n_values, p.l, p.X, p.W, p.M, p.key, 1)
        got = ace_groups(p, leaf if n_leaves > 1 else None)
        assert got[1] == want[1]
        np.testing.assert_array_equal(got[0], want[0])
