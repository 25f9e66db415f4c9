"""Tests of t-closeness (ktype.models.tcloseness): EMD against brute-force formulas and a
linear-programming transport solver, a hand-computed hierarchical example, monotonicity
under merging, and the release-level checker."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog
from scipy.stats import wasserstein_distance

from ktype import Dataset, Hierarchy, Release
from ktype.exceptions import HierarchyError, InvalidParameterError
from ktype.models.tcloseness import TCloseness, emd_equal, emd_hierarchical, emd_ordered


def _transport(p: np.ndarray, q: np.ndarray, d: np.ndarray) -> float:
    """Earth Mover's Distance by linear programming (the definition, Li et al. §4.1)."""
    m = len(p)
    A_eq = np.zeros((2 * m, m * m))
    for i in range(m):
        A_eq[i, i * m : (i + 1) * m] = 1  # mass leaving i
        A_eq[m + i, i::m] = 1  # mass arriving at i
    res = linprog(d.ravel(), A_eq=A_eq, b_eq=np.concatenate([p, q]), bounds=(0, None), method="highs")
    assert res.status == 0
    return float(res.fun)


dist_st = st.lists(st.integers(0, 5), min_size=2, max_size=6).filter(lambda c: sum(c) > 0)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_equal_and_ordered_emd_against_brute_force(data):
    pc = np.array(data.draw(dist_st), dtype=float)
    m = len(pc)
    qc = np.array(data.draw(st.lists(st.integers(0, 5), min_size=m, max_size=m).filter(lambda c: sum(c) > 0)), float)
    p, q = pc / pc.sum(), qc / qc.sum()
    idx = np.arange(m)
    # ordered: scipy's 1-D Wasserstein distance on ranks, scaled by 1/(m-1); and the LP
    assert emd_ordered(p[None], q)[0] == pytest.approx(wasserstein_distance(idx, idx, p, q) / (m - 1), abs=1e-12)
    d_ord = np.abs(idx[:, None] - idx[None, :]) / (m - 1)
    assert emd_ordered(p[None], q)[0] == pytest.approx(_transport(p, q, d_ord), abs=1e-8)
    # equal: total variation; and the LP with 0/1 ground distance
    assert emd_equal(p[None], q)[0] == pytest.approx(0.5 * sum(abs(a - b) for a, b in zip(p, q)), abs=1e-12)
    assert emd_equal(p[None], q)[0] == pytest.approx(_transport(p, q, 1.0 - np.eye(m)), abs=1e-8)


def _tiny_hierarchy() -> Hierarchy:
    # root -> {A: {a, b}, B: {c, d}}, H = 2
    return Hierarchy.from_subsets(["a", "b", "c", "d"], [["a", "b"], ["c", "d"]], name="s")


def test_hierarchical_emd_hand_computed():
    h = _tiny_hierarchy()
    assert list(h.leaves) == ["a", "b", "c", "d"]
    q = np.full(4, 0.25)
    # P = all mass on a. extra: a .75, b c d -.25; A +.5, B -.5.
    # cost(A) = 1/2 * min(.75, .25) = .125; cost(B) = 0; cost(root) = 1 * min(.5, .5) = .5
    assert emd_hierarchical(np.array([[1.0, 0, 0, 0]]), q, h)[0] == pytest.approx(0.625)
    # P = (.5, .5, 0, 0): only the root moves .5 -> .5
    assert emd_hierarchical(np.array([[0.5, 0.5, 0, 0]]), q, h)[0] == pytest.approx(0.5)
    # P = (.5, 0, .5, 0): inside A and inside B, .25 each at cost 1/2
    assert emd_hierarchical(np.array([[0.5, 0, 0.5, 0]]), q, h)[0] == pytest.approx(0.25)
    assert emd_hierarchical(q[None], q, h)[0] == pytest.approx(0.0)
    # vectorized over rows: same values when stacked
    P = np.array([[1.0, 0, 0, 0], [0.5, 0.5, 0, 0], [0.5, 0, 0.5, 0]])
    assert emd_hierarchical(P, q, h) == pytest.approx([0.625, 0.5, 0.25])


def _random_tree(draw, leaves: list[str]) -> list:
    """A random laminar family over ``leaves`` as nested lists (a recursive split)."""
    if len(leaves) == 1:
        return leaves[0]
    k = draw(st.integers(2, min(3, len(leaves))))
    cuts = sorted(draw(st.lists(st.integers(1, len(leaves) - 1), min_size=k - 1, max_size=k - 1, unique=True)))
    parts = [leaves[a:b] for a, b in itertools.pairwise([0, *cuts, len(leaves)])]
    return [_random_tree(draw, part) for part in parts]


def _flatten(t) -> list[str]:
    return [t] if isinstance(t, str) else [x for c in t for x in _flatten(c)]


def _subsets(t) -> list[list[str]]:
    if isinstance(t, str):
        return []
    return [_flatten(t)] + [s for c in t for s in _subsets(c)]


def _heights(t, out: dict) -> int:
    """Subtree height of each internal node, keyed by its leaf tuple."""
    if isinstance(t, str):
        return 0
    hgt = 1 + max(_heights(c, out) for c in t)
    out[tuple(_flatten(t))] = hgt
    return hgt


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_hierarchical_emd_against_linear_program(data):
    m = data.draw(st.integers(2, 7))
    leaves = [f"v{i}" for i in range(m)]
    tree = _random_tree(data.draw, leaves)
    h = Hierarchy.from_subsets(leaves, _subsets(tree), name="s")
    heights: dict = {}
    H = _heights(tree, heights)
    # ground distance: height(LCA)/H, the LCA being the smallest subset holding both leaves
    pos = {v: i for i, v in enumerate(h.leaves)}
    d = np.zeros((m, m))
    for a, b in itertools.combinations(leaves, 2):
        lca = min((s for s in heights if a in s and b in s), key=len)
        d[pos[a], pos[b]] = d[pos[b], pos[a]] = heights[lca] / H
    pc = np.array(data.draw(st.lists(st.integers(0, 5), min_size=m, max_size=m).filter(lambda c: sum(c) > 0)), float)
    qc = np.array(data.draw(st.lists(st.integers(0, 5), min_size=m, max_size=m).filter(lambda c: sum(c) > 0)), float)
    p, q = pc / pc.sum(), qc / qc.sum()
    assert emd_hierarchical(p[None], q, h)[0] == pytest.approx(_transport(p, q, d), abs=1e-8)


# ------------------------------------------------------------------ the model on releases
def _dataset(sens, hierarchy=None, qi=None):
    n = len(sens)
    df = pd.DataFrame({"q": qi if qi is not None else list(range(n)), "s": sens})
    hier = {"s": hierarchy} if hierarchy is not None else None
    return Dataset(df, quasi_identifiers=["q"], sensitive=["s"], hierarchies=hier)


def test_release_check_equal_and_ordered_hand_computed():
    # table: s = 1,1,2,2,3,3 (Q uniform over 3 values); classes {1,1}, {2,2}, {3,3} by q
    ds = _dataset([1, 1, 2, 2, 3, 3], qi=[0, 0, 1, 1, 2, 2])
    rel = Release.build(ds, ds.X, ds.X, recoding="multidimensional")
    # equal: each class (1, 0, 0) vs (1/3, 1/3, 1/3) -> 2/3
    res = TCloseness(0.6).check(rel)
    assert not res.satisfied and res.summary["max_emd"] == pytest.approx(2 / 3)
    assert TCloseness(2 / 3).check(rel).satisfied
    # ordered: class {1,1}: cumsum diffs (2/3, 1/3, 0) -> 1/2; {2,2}: (-1/3, 1/3, 0) -> 1/3
    ordered = TCloseness(0.4, distance="ordered").check(rel)
    assert ordered.per_record.reshape(3, 2).all(axis=1).tolist() == [False, True, False]
    assert ordered.summary["max_emd"] == pytest.approx(0.5)
    # merging everything into one class gives distance 0
    whole = Release.build(ds, np.zeros_like(ds.X), np.full_like(ds.X, 2), recoding="multidimensional")
    assert TCloseness(0.0).check(whole).satisfied
    assert TCloseness(0.0, distance="ordered").check(whole).summary["max_emd"] == pytest.approx(0.0)


def test_release_check_hierarchical_and_errors():
    sens = ["a", "a", "b", "b", "c", "d", "c", "d"]
    ds = _dataset(sens, _tiny_hierarchy(), qi=[0, 0, 1, 1, 2, 2, 3, 3])
    rel = Release.build(ds, ds.X, ds.X, recoding="multidimensional")
    res = TCloseness(0.55, distance="hierarchical").check(rel)
    # classes {a,a}: .625; {b,b}: .625; {c,d}: .5 (only the root moves .5); {c,d}: .5
    assert res.summary["max_emd"] == pytest.approx(0.625)
    assert [bool(res.per_record[rel.source == i][0]) for i in (0, 2, 4, 6)] == [False, False, True, True]
    TCloseness(0.1, distance="hierarchical").validate(ds)  # always feasible, hierarchy present
    plain = _dataset(sens)
    with pytest.raises(HierarchyError, match=r"needs a hierarchy for the sensitive column 's'"):
        TCloseness(0.2, distance="hierarchical").validate(plain)
    with pytest.raises(HierarchyError, match=r"needs a hierarchy for the sensitive column 's'"):
        TCloseness(0.2, distance="hierarchical").check(
            Release.build(plain, plain.X, plain.X, recoding="multidimensional"))
    ordered_h = _dataset([1, 2, 3, 4], "ordered")
    with pytest.raises(HierarchyError, match=r"needs a tree. Use distance='ordered'"):
        TCloseness(0.2, distance="hierarchical").validate(ordered_h)


def test_parameters_and_flags():
    with pytest.raises(InvalidParameterError, match=r"'t' parameter of TCloseness must be a float in the range \[0, 1\]"):
        TCloseness(1.5)
    with pytest.raises(InvalidParameterError, match=r"'distance' parameter of TCloseness must be one of"):
        TCloseness(0.2, distance="manhattan")
    m = TCloseness(0.2)
    assert m.monotone and m.needs_sensitive and m.per_class
    ok, msg = m.feasible(_dataset([1, 2, 2]))
    assert ok and "emd = 0" in msg


@settings(max_examples=100, deadline=None)
@given(
    q=st.lists(st.integers(1, 4), min_size=2, max_size=5),
    data=st.data(),
    t=st.floats(0, 1),
    distance=st.sampled_from(["equal", "ordered", "hierarchical"]),
)
def test_merging_never_breaks_t_closeness(q, data, t, distance):
    m = len(q)
    leaves = [f"v{i}" for i in range(m)]
    sens = [v for v, c in zip(leaves, q) for _ in range(c)]
    hier = Hierarchy.from_subsets(leaves, [leaves[: (m + 1) // 2]] if m > 2 else [], name="s")
    ds = _dataset(sens, hier)
    rows = st.lists(st.integers(0, 5), min_size=m, max_size=m).filter(lambda c: sum(c) > 0)
    a, b = np.array(data.draw(rows)), np.array(data.draw(rows))
    h = np.vstack([a, b, a + b])
    model = TCloseness(t, distance=distance)
    v = model.class_values(h.sum(axis=1), h, ds)
    assert v[2] <= max(v[0], v[1]) + 1e-12  # convexity of EMD in P
    ok = model.class_verdicts(h.sum(axis=1), h, ds)
    if ok[0] and ok[1]:
        assert ok[2]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(3, 30))
def test_class_emd_against_pandas_oracle(seed, n):
    """Per-class EMD of a random release, recomputed with pandas from the published table
    and the whole (skewed) table's distribution."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"q": rng.integers(0, 4, n), "s": rng.choice([10, 20, 30, 40], n, p=[0.55, 0.25, 0.15, 0.05])})
    ds = Dataset(df, quasi_identifiers=["q"], sensitive=["s"])
    cut = int(rng.integers(0, ds.domain_sizes[0]))
    lo = np.where(ds.X <= cut, 0, cut + 1)
    hi = np.where(ds.X <= cut, cut, ds.domain_sizes[0] - 1)
    rel = Release.build(ds, lo, hi, recoding="multidimensional")
    domain = ds.sensitive_values["s"]
    q = df["s"].value_counts(normalize=True).reindex(domain, fill_value=0).to_numpy()
    pub = rel.to_pandas()
    for distance, fn in (("equal", lambda p: 0.5 * np.abs(p - q).sum()),
                         ("ordered", lambda p: np.abs(np.cumsum(p - q)).sum() / max(len(q) - 1, 1))):
        expected = pub.groupby("q")["s"].transform(
            lambda s, fn=fn: fn(s.value_counts(normalize=True).reindex(domain, fill_value=0).to_numpy())).to_numpy()
        t = float(np.median(expected))
        res = TCloseness(t, distance=distance).check(rel)
        assert res.per_record.tolist() == (expected <= t + 1e-12).tolist()
        assert res.summary["max_emd"] == pytest.approx(expected.max())
