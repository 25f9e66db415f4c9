"""Freeform generalization (Doka et al. 2015): cell model, checker, heuristics, MIP, randomization.

Fixtures: the paper's Table 1 (§1) with the t4 row corrected (printed: matches t'2, t'4, t'6;
but t4 = (41, 20) lies outside t'2 = [28-39] x [41-59], and the boxes give t'3, t'4, t'6),
values computed on it, and the properties the paper states (§2.2, §3, §5-8).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ktype import Dataset
from ktype.algorithms import get_algorithm
from ktype.algorithms.freeform._prep import Problem, blocks, random_decomposition
from ktype.algorithms.freeform.heuristics import build_graph
from ktype.algorithms.freeform.mip import solve_mip, solve_sets
from ktype.data.hierarchy import Hierarchy
from ktype.exceptions import InvalidParameterError
from ktype.freeform_release import FreeformRelease, range_columns
from ktype.measures import gcp
from ktype.models._graph import consistency_degrees, match_counts, matches_from_adjacency
from ktype.models.freeform import FreeformKAnonymity
from ktype.models.ktype_models import KConcealment

HEURISTICS = ["freeform_greedy", "freeform_sortgreedy", "freeform_hungarian"]

# ---------------------------------------------------------------------------- Table 1 (§1.7)
AGE = [59, 57, 39, 28, 41, 37, 40, 53]
SALARY = [25, 27, 47, 41, 20, 59, 35, 34]
#: pre-images of t'0..t'7 ("Anon/zed matches" column)
TABLE1_PRE = [[0, 1, 7], [0, 1, 7], [2, 3, 5], [3, 4, 5], [0, 4, 6], [2, 3, 5], [2, 4, 6], [1, 6, 7]]
TABLE1_BOXES = [
    ((53, 59), (25, 34)), ((53, 59), (25, 34)), ((28, 39), (41, 59)), ((28, 41), (20, 59)),
    ((40, 59), (20, 35)), ((28, 39), (41, 59)), ((39, 41), (20, 47)), ((40, 57), (27, 35)),
]
#: matches of each original (t4 corrected: t'3, t'4, t'6; the paper prints t'2, t'4, t'6)
TABLE1_ORIGINAL_MATCHES = [{0, 1, 4}, {0, 1, 7}, {2, 5, 6}, {2, 3, 5}, {3, 4, 6}, {2, 3, 5}, {4, 6, 7}, {0, 1, 7}]


def table1() -> Dataset:
    df = pd.DataFrame({"Age": AGE, "Salary": SALARY, "Disease": list("abcdefgh")})
    return Dataset(
        df,
        quasi_identifiers=["Age", "Salary"],
        sensitive=["Disease"],
        hierarchies={"Age": Hierarchy.ordered(df.Age), "Salary": Hierarchy.ordered(df.Salary)},
    )


def release_from_pre(ds: Dataset, pre, source=None) -> FreeformRelease:
    """A release built directly from a graph: box ``t`` covers the input rows ``pre[t]``
    tightly and carries the non-QI values of ``source[t]`` (default ``t``)."""
    pre = np.asarray(pre, dtype=np.int64)
    n, k = pre.shape
    vals = ds.X[pre]
    sets = {}
    for j in np.flatnonzero(~range_columns(ds)):
        member = np.zeros((n, ds.hierarchies[j].size), dtype=bool)
        member[np.repeat(np.arange(n), k), vals[:, :, j].ravel()] = True
        sets[int(j)] = member
    src = np.arange(n) if source is None else np.asarray(source)
    return FreeformRelease.from_cells(ds, vals.min(axis=1), vals.max(axis=1), sets, source=src, preimages=pre)


def test_table1_boxes_gcp_and_checker():
    ds = table1()
    rel = release_from_pre(ds, TABLE1_PRE)
    h_age, h_sal = ds.hierarchies
    # boxes are tight covers of their preimages and equal the printed ones
    for t in range(8):
        r = int(np.flatnonzero(rel.source == t)[0])
        a = (h_age.leaves[rel.cell_lo[r, 0]], h_age.leaves[rel.cell_hi[r, 0]])
        s = (h_sal.leaves[rel.cell_lo[r, 1]], h_sal.leaves[rel.cell_hi[r, 1]])
        assert (a, s) == TABLE1_BOXES[t]
        assert sorted(rel.preimages[r]) == TABLE1_PRE[t]
    assert math.isclose(gcp(rel), 0.4005376344, abs_tol=1e-10)
    res = FreeformKAnonymity(3).check(rel)
    assert res.satisfied and res.summary["regular"] and res.summary["graph_degree"] == 3
    assert not FreeformKAnonymity(4).check(rel).satisfied
    # containment adds candidates beyond the graph: t1, t2, t6, t7 see 4 boxes, the others 3
    deg, _ = consistency_degrees(rel)
    assert deg.tolist() == [3, 4, 4, 3, 3, 3, 4, 4]
    # each original's graph matches (corrected t4 row)
    for i in range(8):
        boxes = {int(rel.source[r]) for r in range(8) if i in rel.preimages[r]}
        assert boxes == TABLE1_ORIGINAL_MATCHES[i]
    assert rel.to_pandas()["Age"].tolist().count("[53-59]") == 2


def test_table1_printed_erratum_fails_the_checker():
    """The printed t4 row (t'2 instead of t'3) makes t'2's pre-images {t2, t4, t5}: t4 lies
    outside t'2's printed box and the in-degrees become 4 (t4) and 2 (t3)."""
    rel = release_from_pre(table1(), TABLE1_PRE)
    r2 = int(np.flatnonzero(rel.source == 2)[0])
    pre = rel.preimages.copy()
    pre[r2] = [2, 4, 5]
    res = FreeformKAnonymity(3).check(dataclasses.replace(rel, preimages=pre))
    assert not res.satisfied and res.summary["edges_outside_box"] == 1 and not res.summary["regular"]


def test_table1_lexicographic_order():
    assert Problem.from_dataset(table1()).order.tolist() == [3, 5, 2, 6, 4, 7, 1, 0]


@pytest.mark.parametrize(
    "name, k, expected",
    [
        ("freeform_mip", 2, 0.207196),
        ("freeform_mip", 3, 0.357217),
        ("freeform_hungarian", 2, 0.207196),
        ("freeform_hungarian", 3, 0.357217),
        ("freeform_sortgreedy", 3, 0.434915),
        ("freeform_greedy", 3, 0.496847),
    ],
)
def test_table1_algorithm_values(name, k, expected):
    """Values computed on Table 1, not printed in the paper (the heuristics' with lexicographic
    Age-then-Salary order and ties by lowest index, as here)."""
    rel = get_algorithm(name).func(table1(), FreeformKAnonymity(k), rng=0)
    assert round(gcp(rel), 6) == expected


def test_mip_paper_formulation_equals_set_formulation_and_identity_is_free():
    ds = table1()
    p = Problem.from_dataset(ds)
    for k in (2, 3):
        a = solve_mip(p, k)[1]
        b = solve_sets(p, k)[1]
        c = solve_sets(p, k, fix_identity=True)[1]
        assert math.isclose(a, b, rel_tol=1e-7) and math.isclose(b, c, rel_tol=1e-7)


def test_mip_refuses_large_tables():
    df = pd.DataFrame({"a": np.arange(31)})
    ds = Dataset(df, quasi_identifiers=["a"], hierarchies={"a": Hierarchy.ordered(df.a)})
    with pytest.raises(InvalidParameterError, match="at most 30 rows"):
        get_algorithm("freeform_mip").func(ds, FreeformKAnonymity(2), rng=0)


# ---------------------------------------------------------------------------- random tables
@st.composite
def tables(draw, min_n=4, max_n=12):
    n = draw(st.integers(min_n, max_n))
    n_num = draw(st.integers(0, 2))
    n_cat = draw(st.integers(0 if n_num else 1, 2))
    seed = draw(st.integers(0, 2**31 - 1))
    g = np.random.default_rng(seed)
    cols, hier = {}, {}
    for a in range(n_num):
        cols[f"n{a}"] = g.integers(0, draw(st.integers(1, 9)), n)
        hier[f"n{a}"] = Hierarchy.ordered(sorted(set(cols[f"n{a}"].tolist())))
    for c in range(n_cat):
        m = draw(st.integers(1, 6))
        dom = [f"v{i}" for i in range(m)]
        cols[f"c{c}"] = np.asarray(dom, dtype=object)[g.integers(0, m, n)]
        hier[f"c{c}"] = Hierarchy.from_subsets(dom, [], name=f"c{c}")
    cols["s"] = g.integers(0, 3, n)
    df = pd.DataFrame(cols)
    qis = [c for c in df.columns if c != "s"]
    return Dataset(df, quasi_identifiers=qis, sensitive=["s"], hierarchies=hier)


def _adjacency(rel: FreeformRelease) -> np.ndarray:
    """Brute-force consistency matrix (original i, released row t), sets exact."""
    ds = rel.dataset
    X = ds.X
    lo, hi, sets = rel.cells()
    adj = np.ones((ds.n, rel.n), dtype=bool)
    for j in range(ds.r):
        adj &= (lo[None, :, j] <= X[:, j, None]) & (X[:, j, None] <= hi[None, :, j])
        if j in sets:
            adj &= sets[j][:, X[:, j]].T
    return adj


_SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(ds=tables(), data=st.data())
def test_heuristics_properties(ds, data):
    """§3 and §5: k-regular graph with self-edges (the identity is iteration 1), tight boxes
    that contain their pre-images, truthful rows, GCP = Σ iteration costs / (d n)."""
    name = data.draw(st.sampled_from(HEURISTICS))
    kmax = (ds.n + 2) // 2
    k = data.draw(st.integers(1, kmax))
    rel = get_algorithm(name).func(ds, FreeformKAnonymity(k), rng=data.draw(st.integers(0, 100)))
    pre = rel.preimages
    n = ds.n
    assert pre.shape == (n, k)
    assert (np.sort(pre, axis=1)[:, 1:] != np.sort(pre, axis=1)[:, :-1]).all()  # distinct per box
    assert (np.bincount(pre.ravel(), minlength=n) == k).all()  # in-degree k
    # self-edges: each box was seeded by one record (iteration 1 = identity); the boxes'
    # seeds form a permutation: every original seeds exactly one box
    adj = _adjacency(rel)
    rows = np.arange(n)[:, None]
    assert adj[pre, rows].all()  # every pre-image lies in its box
    assert adj[rel.source, np.arange(n)].all()  # the published row's box contains its record
    assert (adj.sum(axis=1) >= k).all()  # Def. 1 count check
    # tightness: the box is exactly the cover of its pre-images
    p = Problem.from_dataset(ds)
    pos = np.empty(n, dtype=np.int64)
    pos[p.order] = np.arange(n)
    for j in range(ds.r):
        x = ds.X[pre, j]
        assert (rel.cell_lo[:, j] == x.min(axis=1)).all() and (rel.cell_hi[:, j] == x.max(axis=1)).all()
        if j in rel.value_sets:
            want = np.zeros_like(rel.value_sets[j])
            want[np.repeat(np.arange(n), k), x.ravel()] = True
            assert (rel.value_sets[j] == want).all()
    g = gcp(rel)
    assert 0.0 <= g <= 1.0
    assert math.isclose(g, rel.provenance["freeform"]["gcp"], rel_tol=1e-9, abs_tol=1e-12)
    if k == 1:
        assert g == 0.0
    # set-aware consistency graph equals brute force
    deg_o, deg_r = consistency_degrees(rel)
    assert (deg_o == adj.sum(axis=1)).all() and (deg_r == adj.sum(axis=0)).all()
    assert (match_counts(rel) == matches_from_adjacency(adj).sum(axis=1)).all()
    assert FreeformKAnonymity(k).check(rel).satisfied and KConcealment(k).check(rel).satisfied


@_SETTINGS
@given(ds=tables(min_n=4, max_n=7), data=st.data())
def test_heuristics_never_beat_the_mip(ds, data):
    """§4 and §7: MIP <= every heuristic; Hungarian is optimal for k = 2 (one iteration that
    matters, solved exactly); per iteration (from the same state) Hungarian's weight sum is
    <= Greedy's and SortGreedy's."""
    k = data.draw(st.integers(2, (ds.n + 2) // 2))
    opt = get_algorithm("freeform_mip").func(ds, FreeformKAnonymity(k), rng=0)
    g_opt = gcp(opt)
    assert math.isclose(g_opt, opt.provenance["freeform"]["objective"], rel_tol=1e-7, abs_tol=1e-9)
    first = {}
    for name in HEURISTICS:
        rel = get_algorithm(name).func(ds, FreeformKAnonymity(k), rng=0)
        assert gcp(rel) >= g_opt - 1e-9
        first[name] = rel.provenance["freeform"]["iteration_costs"][1]
        if k == 2 and name == "freeform_hungarian":
            assert math.isclose(gcp(rel), g_opt, rel_tol=1e-7, abs_tol=1e-9)
    assert first["freeform_hungarian"] <= min(first["freeform_greedy"], first["freeform_sortgreedy"]) + 1e-9


def _stable_scan(W: np.ndarray) -> np.ndarray:
    """Oracle for Alg. 2 lines 2-7: sort every edge by weight (stable: row-major index
    breaks ties), keep an edge when both ends are free; a plain loop, small inputs only."""
    m = W.shape[0]
    match = np.full(m, -1)
    taken = np.zeros(m, dtype=bool)
    for e in np.argsort(W.ravel(), kind="stable"):
        i, j = divmod(int(e), m)
        if not np.isfinite(W[i, j]):
            break
        if match[i] < 0 and not taken[j]:
            match[i] = j
            taken[j] = True
    return match


@settings(max_examples=300, deadline=None)
@given(m=st.integers(1, 40), levels=st.integers(1, 6), p_inf=st.sampled_from([0.0, 0.1, 0.5, 0.95]), seed=st.integers(0, 2**32 - 1))
def test_sortgreedy_scan_is_the_stable_sorted_greedy(m, levels, p_inf, seed):
    """The round-based scan of ``_sorted_greedy`` keeps exactly the edges a stable sort of all
    m² edges would: few distinct weights (huge tie groups, as in late iterations where many
    boxes already cover a record), used edges (inf) anywhere, fractional and integer weights."""
    from ktype.algorithms.freeform._kernels import _sorted_greedy

    r = np.random.default_rng(seed)
    W = r.integers(0, levels, size=(m, m)).astype(float) / r.choice([1.0, 3.0])
    W[r.random((m, m)) < p_inf] = np.inf
    matchS = np.full(m, -1, dtype=np.int64)
    matchT = np.full(m, -1, dtype=np.int64)
    cnt = _sorted_greedy(W.ravel(), m, matchS, matchT)
    expected = _stable_scan(W)
    np.testing.assert_array_equal(matchS, expected)
    assert cnt == int((expected >= 0).sum())
    assert all(matchT[j] == i for i, j in enumerate(matchS) if j >= 0)


# ---------------------------------------------------------------------------- randomization (§3.5)
def _regular_graph(n: int, k: int, seed: int) -> np.ndarray:
    ds = _census(n, seed)
    p = Problem.from_dataset(ds)
    pre, _ = build_graph(p, k, "sortgreedy", blocks(n, None))
    return pre


def _census(n: int, seed: int) -> Dataset:
    from ktype.datasets.synthetic import census_dataset

    return census_dataset(n, rng=seed)


@pytest.mark.parametrize("n, k", [(10, 2), (30, 5), (41, 7)])
def test_decomposition_is_k_disjoint_perfect_matchings(n, k):
    pre = _regular_graph(n, k, seed=n)
    M = random_decomposition(pre, np.random.default_rng(1))
    E = {(int(i), j) for j in range(n) for i in pre[j]}
    got = set()
    for t in range(k):
        assert sorted(M[t].tolist()) == list(range(n))  # perfect: a permutation
        pairs = {(i, int(M[t, i])) for i in range(n)}
        assert pairs <= E and not (pairs & got)  # inside E, disjoint from the others
        got |= pairs
    assert got == E  # the union is E
    M2 = random_decomposition(pre, np.random.default_rng(2))
    if k > 2:  # another seed gives another decomposition (with high probability)
        assert {tuple(m) for m in M.tolist()} != {tuple(m) for m in M2.tolist()}


def test_true_assignment_marginal_is_one_over_k():
    """§2.2: over the secret randomness, each edge of E is the published one
    with probability 1/k (fixed seed, 4000 draws, 5-sigma tolerance)."""
    from ktype.algorithms.freeform._prep import publish

    n, k, runs = 12, 4, 4000
    ds = _census(n, 5)
    p = Problem.from_dataset(ds)
    pre, _ = build_graph(p, k, "hungarian", blocks(n, None))
    counts = np.zeros((n, n))
    rng = np.random.default_rng(12345)
    for _ in range(runs):
        M = random_decomposition(pre, rng)
        alpha = M[int(rng.integers(k))]
        counts[np.arange(n), alpha] += 1
    E = np.zeros((n, n), dtype=bool)
    E[pre.ravel(), np.repeat(np.arange(n), k)] = True
    freq = counts / runs
    assert (freq[~E] == 0).all()
    sigma = math.sqrt((1 / k) * (1 - 1 / k) / runs)
    assert np.abs(freq[E] - 1 / k).max() < 5 * sigma
    # and the release itself: each box carries one of its pre-images, a permutation overall
    rel = publish(p, pre, rng, {})
    assert (rel.preimages == rel.source[:, None]).any(axis=1).all()


def test_seeded_runs_are_deterministic_and_seeds_differ():
    from ktype.datasets.synthetic import census_dataset

    ds = census_dataset(60, rng=1, sensitive=["Occupation"])
    a = get_algorithm("freeform_sortgreedy").func(ds, FreeformKAnonymity(5), rng=3)
    b = get_algorithm("freeform_sortgreedy").func(ds, FreeformKAnonymity(5), rng=3)
    c = get_algorithm("freeform_sortgreedy").func(ds, FreeformKAnonymity(5), rng=4)
    pd.testing.assert_frame_equal(a.to_pandas(), b.to_pandas())
    assert not a.to_pandas().equals(c.to_pandas())  # same boxes, another true assignment
    qi = ds.quasi_identifiers
    assert sorted(map(tuple, a.to_pandas()[qi].to_numpy())) == sorted(map(tuple, c.to_pandas()[qi].to_numpy()))


@_SETTINGS
@given(ds=tables(min_n=6, max_n=12), seed=st.integers(0, 50), perm_seed=st.integers(0, 1000))
def test_output_independent_of_input_order(ds, seed, perm_seed):
    perm = np.random.default_rng(perm_seed).permutation(ds.n)
    k = min(3, (ds.n + 2) // 2)
    for name in ("freeform_greedy", "freeform_sortgreedy"):
        a = get_algorithm(name).func(ds, FreeformKAnonymity(k), rng=seed).to_pandas()
        b = get_algorithm(name).func(ds.subset(perm), FreeformKAnonymity(k), rng=seed).to_pandas()
        pd.testing.assert_frame_equal(a, b)


# ---------------------------------------------------------------------------- partitions (§3.6)
@pytest.mark.parametrize("name", HEURISTICS)
def test_partitioned_release_is_checked_as_one(name):
    n, k, P = 230, 4, 50
    ds = _census(n, 9)
    rel = get_algorithm(name).func(ds, FreeformKAnonymity(k), rng=0, partition_size=P)
    info = rel.provenance["freeform"]
    starts = blocks(n, P)
    assert info["blocks"] == len(starts) - 1 == 4 and (np.diff(starts) >= P).all()
    p = Problem.from_dataset(ds)
    pos = np.empty(n, dtype=np.int64)
    pos[p.order] = np.arange(n)
    block_of = np.searchsorted(starts, pos, side="right") - 1  # per input row
    box_block = block_of[rel.preimages[:, 0]]
    assert (block_of[rel.preimages] == box_block[:, None]).all()  # no edge crosses partitions
    assert (np.bincount(rel.preimages.ravel(), minlength=n) == k).all()
    assert FreeformKAnonymity(k).check(rel).satisfied
    whole = get_algorithm(name).func(ds, FreeformKAnonymity(k), rng=0)
    assert gcp(whole) <= gcp(rel) + 0.05  # partitions lose a little utility, not much


def test_greedy_refuses_k_beyond_theorem_5_2():
    ds = _census(40, 2)
    with pytest.raises(InvalidParameterError, match="Theorem 5.2"):
        get_algorithm("freeform_greedy").func(ds, FreeformKAnonymity(7), rng=0, partition_size=9)
    rel = get_algorithm("freeform_hungarian").func(ds, FreeformKAnonymity(7), rng=0, partition_size=9)
    assert FreeformKAnonymity(7).check(rel).satisfied


def test_candidate_window_keeps_the_guarantee():
    ds = _census(300, 4)
    exact = get_algorithm("freeform_greedy").func(ds, FreeformKAnonymity(6), rng=0)
    pruned = get_algorithm("freeform_greedy").func(ds, FreeformKAnonymity(6), rng=0, candidates=20)
    assert FreeformKAnonymity(6).check(pruned).satisfied
    assert gcp(pruned) >= gcp(exact) - 0.05 and gcp(pruned) <= gcp(exact) + 0.1


# ---------------------------------------------------------------------------- checker catches bugs
def test_checker_rejects_planted_bugs():
    ds = _census(40, 6)
    rel = get_algorithm("freeform_sortgreedy").func(ds, FreeformKAnonymity(4), rng=0)
    model = FreeformKAnonymity(4)
    assert model.check(rel).satisfied
    # 1. the true record is not among the box's pre-images (alpha outside E)
    r = int(np.flatnonzero((rel.preimages != rel.source[:, None]).all(axis=1) | True)[0])
    others = [int(x) for x in range(ds.n) if x not in rel.preimages[r]]
    source = rel.source.copy()
    j = int(np.flatnonzero(source == others[0])[0])
    source[[r, j]] = source[[j, r]]
    res = model.check(dataclasses.replace(rel, source=source))
    assert not res.satisfied and res.summary["untruthful_rows"] >= 1
    # 2. a box shrunk so that one pre-image falls outside
    c = int(np.flatnonzero(~range_columns(ds))[0])
    r = int(np.flatnonzero(rel.value_sets[c].sum(axis=1) > 1)[0])
    v = int(ds.X[rel.preimages[r, 0], c])
    keep = rel.value_sets[c][r].copy()
    if keep.sum() > 1 and not (ds.X[rel.preimages[r], c] == v).all():
        shrunk = rel.value_sets[c].copy()
        shrunk[r, v] = False
        res = model.check(dataclasses.replace(rel, value_sets={**rel.value_sets, c: shrunk}))
        assert not res.satisfied and res.summary["edges_outside_box"] >= 1
    # 3. a graph that is not regular (one original twice in a box)
    pre = rel.preimages.copy()
    pre[0, 1] = pre[0, 0]
    assert not model.check(dataclasses.replace(rel, preimages=pre)).satisfied


def test_value_set_labels_and_cells():
    df = pd.DataFrame({"Age": [30, 35, 39, 31], "Marital": ["Married", "Divorced", "Married", "Widowed"]})
    ds = Dataset(
        df,
        quasi_identifiers=["Age", "Marital"],
        hierarchies={"Age": Hierarchy.ordered(df.Age), "Marital": Hierarchy.from_subsets(["Married", "Divorced", "Widowed"], [])},
    )
    rel = release_from_pre(ds, [[0, 1], [1, 2], [2, 3], [3, 0]])
    out = rel.to_pandas()
    assert set(out["Marital"]) == {"{Married,Divorced}", "{Married,Widowed}"}
    assert set(out["Age"]) == {"[30-35]", "[35-39]", "[31-39]", "[30-31]"}
    # the hierarchy view (lo/hi) is the closure: the root of a flat hierarchy
    assert (rel.lo[:, 1] == 0).all() and (rel.hi[:, 1] == 2).all()
    assert math.isclose(gcp(rel), ((5 + 4 + 8 + 1) / 9 + 4 * (1 / 2)) / 8)


# ---------------------------------------------------------------------------- baselines
def test_nh_ring_is_k_regular_on_k_to_2k_minus_1_segments():
    from ktype.algorithms.freeform.baselines import ring_graph

    for n, k in [(10, 3), (17, 4), (9, 9), (25, 5)]:
        pre = ring_graph(n, k)
        assert (np.bincount(pre.ravel(), minlength=n) == k).all()
        assert (np.sort(pre, axis=1)[:, 1:] != np.sort(pre, axis=1)[:, :-1]).all()
        seg = blocks(n, k)
        size = np.diff(seg)
        assert (size >= k).all() and (size <= 2 * k - 1).all()
        block_of = np.searchsorted(seg, np.arange(n), side="right") - 1
        assert (block_of[pre] == block_of[:, None]).all()


@_SETTINGS
@given(ds=tables(min_n=4, max_n=7))
def test_mincostflow_is_optimal_at_k2_and_never_beats_the_mip(ds):
    """§8.2: at k = 2, GCP(Hungarian) = GCP(minCostFlow) = the optimum with the
    identity; for k = 3 minCostFlow is a valid, not better-than-optimal, release."""
    mcf = get_algorithm("freeform_mincostflow")
    opt = gcp(get_algorithm("freeform_mip").func(ds, FreeformKAnonymity(2), rng=0))
    assert math.isclose(gcp(mcf.func(ds, FreeformKAnonymity(2), rng=0)), opt, rel_tol=1e-7, abs_tol=1e-9)
    if ds.n >= 4:
        rel = mcf.func(ds, FreeformKAnonymity(3), rng=0)
        assert FreeformKAnonymity(3).check(rel).satisfied
        assert gcp(rel) >= gcp(get_algorithm("freeform_mip").func(ds, FreeformKAnonymity(3), rng=0)) - 1e-9


def test_cli_freeform_sortgreedy_with_partitions(tmp_path):
    from typer.testing import CliRunner

    from ktype.cli import app
    from ktype.datasets.synthetic import census

    path = tmp_path / "census.csv"
    census(400, rng=0).to_csv(path, index=False)
    out = tmp_path / "out.csv"
    res = CliRunner().invoke(
        app,
        ["anonymize", str(path), "--qi", "Age,Gender,Marital Status,Country", "--sensitive", "Occupation", "-H", "Age=ordered",
         "--identifier", "Education Level,Race,Work Class",
         "--k", "5", "--model", "freeform", "--algorithm", "freeform_sortgreedy", "-o", "partition_size=150", "--output", str(out)],
    )
    assert res.exit_code == 0, res.output
    df = pd.read_csv(out)
    assert len(df) == 400 and df["Age"].str.match(r"^(\[\d+-\d+\]|\d+)$").all()
    assert df["Country"].str.startswith("{").any()  # value sets


@pytest.mark.parametrize("n, k, seed", [(300, 8, 0), (500, 15, 1), (64, 20, 2)])
def test_greedy_pruning_is_exact(n, k, seed):
    """Greedy's lower-bound pruning returns exactly the full scan's graph."""
    from ktype.algorithms.freeform import _kernels as K

    p = Problem.from_dataset(_census(n, seed))
    starts = blocks(n, None)
    pruned, c_pruned = build_graph(p, k, "greedy", starts)
    full = np.empty((n, k), dtype=np.int64)
    costs = np.zeros((1, k))
    assert (K.run_blocks(p.xnum, p.xcat, p.wcat, p.n_words, k, 0, 0, starts, full, costs) == 0).all()
    assert np.array_equal(pruned, full) and np.allclose(c_pruned, costs[0])


@pytest.mark.parametrize("n, P, k, workers", [(1000, 100, 6, 2), (437, 40, 5, 3), (250, 100, 4, 4)])
def test_parallel_hungarian_equals_sequential(n, P, k, workers):
    """Hungarian's partitions in threads give exactly the sequential graph and costs, the
    released boxes and assignment are identical for the same rng (issue 10: in parallel
    where it pays)."""
    import numba

    p = Problem.from_dataset(_census(n, 7))
    starts = blocks(n, P)
    seq, c_seq = build_graph(p, k, "hungarian", starts, workers=1)
    par, c_par = build_graph(p, k, "hungarian", starts, workers=workers)
    assert np.array_equal(seq, par) and np.array_equal(c_seq, c_par)
    for b in range(len(starts) - 1):  # every block built, inside its own partition
        a, e = starts[b], starts[b + 1]
        assert ((seq[a:e] >= a) & (seq[a:e] < e)).all()
        assert (np.sort(seq[a:e, 1]) == np.arange(a, e)).all()
    ds = _census(n, 7)
    algo = get_algorithm("freeform_hungarian")
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        r1 = algo.func(ds, FreeformKAnonymity(k), rng=5, partition_size=P)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        r2 = algo.func(ds, FreeformKAnonymity(k), rng=5, partition_size=P)
    finally:
        numba.set_num_threads(old)
    assert np.array_equal(r1.preimages, r2.preimages) and np.array_equal(r1.source, r2.source)
    assert r1.to_pandas().equals(r2.to_pandas())


@pytest.mark.parametrize("name", HEURISTICS)
def test_the_symmetric_variant_is_not_an_option(name):
    """The reciprocal variant (§2.2, without details) is not offered: asking for it is an
    unknown option naming the ones there are, not a silently non-symmetric release."""
    ds = _census(30, 3)
    with pytest.raises(InvalidParameterError, match="symmetric"):
        get_algorithm(name).func(ds, FreeformKAnonymity(3), rng=0, symmetric=True)
    rel = get_algorithm(name).func(ds, FreeformKAnonymity(3), rng=0)
    assert FreeformKAnonymity(3).check(rel).satisfied


def test_audit_builds_and_solves_the_matching_once_with_the_checkers_verdicts(tmp_path, monkeypatch):
    """The audit of a freeform file lends its consistency graph (and maximum flow) to the
    model checks: one graph, one maximum flow when the k-factor exists (else the k-factor's and
    the matching's), and the same verdicts and numbers as checking the in-memory release
    without its witness, for a passing and a failing model."""
    import dataclasses

    from ktype.audit import audit
    from ktype.datasets import census_dataset
    from ktype.models import _graph, _maxflow

    ds = census_dataset(400, rng=5)
    rel = get_algorithm("freeform_sortgreedy").func(ds, FreeformKAnonymity(4), rng=1, partition_size=50)
    path = rel.save(tmp_path / "ff.csv")
    bare = dataclasses.replace(rel, preimages=None)
    built, flows = [], []
    init, flow = _graph.ConsistencyGraph.__init__, _maxflow.max_flow

    def counting_init(self, release):
        built.append(release)
        init(self, release)

    def counting_flow(*a, **kw):
        flows.append(1)
        return flow(*a, **kw)

    monkeypatch.setattr(_graph.ConsistencyGraph, "__init__", counting_init)
    monkeypatch.setattr(_maxflow, "max_flow", counting_flow)  # the graph imports it from there when it solves
    # scipy: a failed k-factor flow is then not solved a second time for its short records
    monkeypatch.setattr(_maxflow, "BACKEND", "scipy")
    fewest = FreeformKAnonymity(4).check(bare).summary["min_matches"]
    for k in (4, fewest + 1):  # the second fails, with the in-memory numbers
        model = FreeformKAnonymity(k)
        truth = model.check(bare)
        built.clear(), flows.clear()
        rep = audit(ds, path, model)
        # one graph; one flow when the k-factor exists (it proves the matching and serves the
        # match counts), else the k-factor's and the matching's (lent to the checker)
        solved = 1 if truth.summary["k_regular_subgraph"] else 2
        assert len(built) == 1 and len(flows) == solved, (len(built), len(flows))
        assert not rep.findings and rep.passed == truth.satisfied == (k == 4)
        assert rep.results[0].summary == truth.summary
        # the file's row order is the release's: per-record verdicts line up
        assert np.array_equal(rep.results[0].per_record, truth.per_record)
    # the loan ends with the audit: the release read back gets a graph of its own afterwards
    built.clear()
    _graph.consistency_graph(rep.release)
    assert len(built) == 1
    with pytest.raises(InvalidParameterError, match="another release"):
        with _graph.shared_graph(bare, _graph.ConsistencyGraph(rel)):
            pass
