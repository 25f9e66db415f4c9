"""k-anonymity by cell suppression (survey §3 and §5, _CS; Aggarwal et al., ICDT 2005): the forest
approximation against a brute-force optimum, its bounds, and the survey's Fig. 9 table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ktype
from ktype.algorithms import run
from ktype.algorithms.cell_suppression import forest_clusters
from ktype.measures import suppressed_cells
from ktype.models.kanonymity import KAnonymity
from tests._survey_fixtures import FIG1


def _partitions(items):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for p in _partitions(rest):
        yield [[first]] + p
        for i in range(len(p)):
            yield p[:i] + [[first] + p[i]] + p[i + 1:]


def _cost(X, blocks):
    return sum(len(b) * int((X[b].min(axis=0) != X[b].max(axis=0)).sum()) for b in blocks)


def brute_force_optimum(X: np.ndarray, k: int) -> int:
    """Fewest suppressed cells over every partition into blocks of at least k rows."""
    return min(_cost(X, p) for p in _partitions(list(range(len(X)))) if all(len(b) >= k for b in p))


def _dataset(X: np.ndarray) -> ktype.Dataset:
    df = pd.DataFrame(X, columns=[f"a{j}" for j in range(X.shape[1])]).astype(str)
    return ktype.Dataset(df, quasi_identifiers=list(df.columns))


def test_survey_fig9_table():
    """Fig. 9(a) on {Race, DOB, Sex, ZIP}, k = 2: the survey's _CS solution (Fig. 9(h)) suppresses
    14 cells, so the optimum is at most 14; the forest's release is 2-anonymous and within its bound."""
    qi = ["Race", "DOB", "Sex", "ZIP"]
    ds = ktype.Dataset(FIG1, quasi_identifiers=qi, sensitive=["Disease"], insensitive=["Marital status"])
    rel = run("cell_suppression", ds, KAnonymity(2))
    assert KAnonymity(2).check(rel).satisfied
    opt = brute_force_optimum(ds.X.astype(np.int64), 2)
    assert opt <= 14
    cost = int(suppressed_cells(rel))
    assert cost == rel.provenance["objective"]
    info = rel.provenance["cell_suppression"]
    assert info["forest_weight"] <= opt <= cost <= info["bound"] <= info["largest_cluster"] * opt
    assert (opt, cost, info["forest_weight"]) == (12, 12, 8)  # the forest finds an optimum here
    pub = rel.to_pandas()
    assert set(pub.columns) == set(FIG1.columns)  # every record stays; only cells are suppressed
    assert len(pub) == 9


@st.composite
def tables(draw):
    n = draw(st.integers(1, 8))
    r = draw(st.integers(1, 4))
    k = draw(st.integers(1, min(n, 4)))
    seed = draw(st.integers(0, 2**32 - 1))
    X = np.random.default_rng(seed).integers(0, draw(st.integers(2, 3)), size=(n, r))
    return X, k


@settings(max_examples=80, deadline=None)
@given(tables())
def test_forest_approximation_bounds(case):
    X, k = case
    ds = _dataset(X)
    rel = run("cell_suppression", ds, KAnonymity(k))
    opt = brute_force_optimum(ds.X.astype(np.int64), k)
    cost = int(suppressed_cells(rel))
    assert cost == int((rel.to_pandas()[ds.quasi_identifiers] == "*").to_numpy().sum())  # the measure, by labels
    info = rel.provenance["cell_suppression"]
    # Aggarwal et al.: the forest weighs at most the optimum; each cluster costs at most its size
    # times the weight of a tree spanning it
    assert info["forest_weight"] <= opt <= cost <= info["largest_cluster"] * info["forest_weight"]
    # clusters: at least k rows (the release is k-anonymous), at most max(2k-1, 3k-5) when splittable
    assert KAnonymity(k).check(rel).satisfied
    # a published cell is either the original value or *
    Xs = ds.X[rel.source]
    star = (rel.lo == 0) & (rel.hi == ds.domain_sizes - 1)
    assert ((rel.lo == Xs) & (rel.hi == Xs) | star).all()


def test_large_trees_are_split():
    # 40 equal rows and k = 3: one tree of 40 vertices with weight 0, split into parts of 3..5
    X = np.zeros((40, 2), dtype=np.int64)
    label, g, weight, limit = forest_clusters(X, 3)
    sizes = np.bincount(label)
    assert weight == 0 and limit == 5 and sizes.min() >= 3 and sizes.max() <= 5
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, size=(300, 3))
    for k in (2, 3, 5):
        label, g, _, limit = forest_clusters(X, k)
        sizes = np.bincount(label)
        assert sizes.min() >= k and sizes.max() <= 3 * k  # the decomposition succeeded here


@pytest.mark.parametrize("k", [1, 2])
def test_identity_when_nothing_needs_suppressing(k):
    X = np.array([[0, 1], [0, 1], [2, 2], [2, 2]])
    rel = run("cell_suppression", _dataset(X), KAnonymity(k))
    assert rel.provenance["objective"] == 0


def test_decomposition_keeps_k_on_both_sides():
    """A tree of 8 vertices, k = 4 (limit 7): root 0 with child subtrees of 3, 3 and 1 vertices.
    Grouping the largest subtrees first (3 + 3) would leave 2 < k with the root; the smallest
    first (1 + 3) leaves 4: parts of 4 and 4."""
    from ktype.algorithms.cell_suppression import _decompose

    eu = np.array([0, 1, 1, 0, 4, 4, 0])
    ev = np.array([1, 2, 3, 4, 5, 6, 7])
    label, g = _decompose(8, eu, ev, 4, 7)
    assert g == 2 and sorted(np.bincount(label).tolist()) == [4, 4]


# ---------------------------------------------------------------- k = 2: cycle cover (clustering="cycle_cover")
@st.composite
def pair_tables(draw):
    n = draw(st.integers(2, 9))
    r = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    X = np.random.default_rng(seed).integers(0, draw(st.integers(2, 4)), size=(n, r))
    return X


@settings(max_examples=120, deadline=None)
@given(pair_tables())
def test_cycle_cover_within_8_5_of_the_brute_force_optimum(X):
    """k = 2: the cycle cover weighs at most the optimum, and the release suppresses at most 8/5
    of the cover's weight (so at most 8/5 of the optimum), in clusters of 2 or 3 records."""
    ds = _dataset(X)
    rel = run("cell_suppression", ds, KAnonymity(2), clustering="cycle_cover")
    opt = brute_force_optimum(ds.X.astype(np.int64), 2)
    cost = int(suppressed_cells(rel))
    info = rel.provenance["cell_suppression"]
    assert cost == rel.provenance["objective"]
    assert info["lower_bound"] <= opt <= cost
    assert 5 * cost <= 8 * info["lower_bound"]  # hence 5 * cost <= 8 * opt
    assert 2 <= info["largest_cluster"] <= 3
    assert KAnonymity(2).check(rel).satisfied


def test_cycle_cover_splits_long_cycles():
    """Many rows: every cluster has 2 or 3 records and the certificate holds (8/5 of W)."""
    from ktype.algorithms.cell_suppression import cycle_cover_clusters

    X = np.random.default_rng(5).integers(0, 3, size=(400, 4))
    label, g, weight = cycle_cover_clusters(X)
    sizes = np.bincount(label)
    assert sizes.min() >= 2 and sizes.max() <= 3 and len(sizes) == g
    cost = sum(len(b) * int((X[b].min(axis=0) != X[b].max(axis=0)).sum()) for b in (np.flatnonzero(label == c) for c in range(g)))
    assert weight <= cost and 5 * cost <= 8 * weight


def test_cycle_cover_refuses_k3_and_large_tables(monkeypatch):
    from ktype.algorithms import cell_suppression as cs
    from ktype.exceptions import InvalidParameterError

    ds = _dataset(np.random.default_rng(0).integers(0, 3, size=(12, 3)))
    with pytest.raises(InvalidParameterError, match="k = 2.*clustering='forest'"):
        run("cell_suppression", ds, KAnonymity(3), clustering="cycle_cover")
    monkeypatch.setattr(cs, "CYCLE_COVER_MAX_ROWS", 10)
    with pytest.raises(InvalidParameterError, match="at most 10 rows; the table has 12"):
        run("cell_suppression", ds, KAnonymity(2), clustering="cycle_cover")
    rel = run("cell_suppression", ds, KAnonymity(1), clustering="cycle_cover")
    assert rel.provenance["objective"] == 0


def _block_cost(X, b):
    return len(b) * int((X[b].min(axis=0) != X[b].max(axis=0)).sum())


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 14))
def test_cycles_are_cut_at_their_cheapest_split(seed, n):
    """Any permutation without fixed points: each cycle is cut as documented — a 2- or 3-cycle
    whole, an even cycle by its lighter perfect matching, an odd one (m >= 5) as one triple and
    pairs at the cheapest of its m rotations (oracle: every rotation enumerated here), and the
    cost stays within (m + 3)/m of the cycle's weight."""
    from ktype.algorithms.cell_suppression import _split_cycles

    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, 3))
    while True:
        perm = rng.permutation(n)
        if (perm != np.arange(n)).all():
            break
    D = (X[:, None, :] != X[None, :, :]).sum(axis=2)
    label, g = _split_cycles(X.astype(np.int64), perm.astype(np.int64), D.astype(np.int64))
    got = sum(_block_cost(X, np.flatnonzero(label == c)) for c in range(g))
    seen, want = set(), 0
    for s in range(n):
        if s in seen:
            continue
        cyc = [s]
        while perm[cyc[-1]] != s:
            cyc.append(int(perm[cyc[-1]]))
        seen.update(cyc)
        m = len(cyc)
        weight = sum(D[cyc[t], cyc[(t + 1) % m]] for t in range(m))
        if m <= 3:
            best = _block_cost(X, cyc)
        else:
            splits = []
            for rot in range(m):
                c = cyc[rot:] + cyc[:rot]
                head = [c[:3]] if m % 2 else []
                rest = c[3:] if m % 2 else c
                splits.append(head + [rest[t:t + 2] for t in range(0, len(rest), 2)])
            best = min(sum(_block_cost(X, b) for b in p) for p in splits)
        assert m * best <= (m + 3) * weight or m <= 3
        want += best
    assert got == want


# ---------------------------------------------------------------- Meyerson & Williams (set cover)
@settings(max_examples=80, deadline=None)
@given(tables(), st.sampled_from(["subsets", "boxes"]))
def test_meyerson_williams_within_its_factor_of_the_brute_force_optimum(case, method):
    """Suppressed cells at most 2(1 + ln 2k) times the brute-force optimum; clusters of k..2k-1."""
    import math

    X, k = case
    ds = _dataset(X)
    rel = run("meyerson_williams", ds, KAnonymity(k), method=method)
    opt = brute_force_optimum(ds.X.astype(np.int64), k)
    cost = int(suppressed_cells(rel))
    assert cost == rel.provenance["objective"]
    assert opt <= cost <= 2 * (1 + math.log(2 * k)) * opt + 1e-9
    info = rel.provenance["cell_suppression"]
    if len(X) >= k:
        assert info["largest_cluster"] <= max(2 * k - 1, 1)
    assert KAnonymity(k).check(rel).satisfied


def test_meyerson_williams_refuses_inputs_too_large(monkeypatch):
    from ktype.algorithms.local import gionis_tassa
    from ktype.exceptions import InvalidParameterError

    monkeypatch.setattr(gionis_tassa, "MAX_SUBSETS", 10)
    monkeypatch.setattr(gionis_tassa, "MAX_BOXES", 10)
    ds = _dataset(np.random.default_rng(0).integers(0, 3, size=(12, 3)))
    with pytest.raises(InvalidParameterError, match=r"meyerson_williams.*limit 10.*cell_suppression"):
        run("meyerson_williams", ds, KAnonymity(2))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_cycle_cover_reports_its_certified_factor(seed):
    """The certificate the release carries: suppressed cells over the cover's weight W (a lower
    bound on the optimum), at most 8/5; 1 when W is 0 (equal rows, nothing suppressed)."""
    X = np.random.default_rng(seed).integers(0, 3, size=(14, 3))
    rel = run("cell_suppression", _dataset(X), KAnonymity(2), clustering="cycle_cover")
    info = rel.provenance["cell_suppression"]
    cost = int(suppressed_cells(rel))
    assert info["lower_bound"] > 0
    assert info["certified_factor"] == pytest.approx(cost / info["lower_bound"])
    assert 1.0 <= info["certified_factor"] <= 1.6
    same = run("cell_suppression", _dataset(np.zeros((6, 2), dtype=int)), KAnonymity(2), clustering="cycle_cover")
    assert same.provenance["cell_suppression"]["certified_factor"] == 1.0
