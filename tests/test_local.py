"""Tests of the local-recoding algorithms (k-concealment pipeline, baselines, Gionis-Tassa).

Fixtures and properties from Tassa, Mazza & Gionis (Transactions on Data Privacy 5(1), 2012:
Table 1, §6-8 and Appendices A-C) and Gionis & Tassa (IEEE TKDE 21(2), 2009: §4, §6).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from ktype.algorithms import run
from ktype.algorithms.local import (
    Problem,
    agglomerative_clusters,
    all_matches,
    cluster_boxes,
    forest_clusters,
    k1_expansion,
    k_conceal,
    l_diverse_merge,
    l_diversify,
    one_k_completion,
    optimal_k1,
    p_sensitize,
    randomized_k1,
    setcover_clusters,
)
from ktype.algorithms.local._core import close_box
from ktype.algorithms.local.clustering import decompose_forest
from ktype.algorithms.local.gionis_tassa import phase2_partition
from ktype.data.dataset import Dataset
from ktype.data.hierarchy import Hierarchy
from ktype.exceptions import InfeasibleError, InvalidParameterError
from ktype.models.kanonymity import KAnonymity
from ktype.models.ktype_models import KConcealment, KKAnonymity, KOneAnonymity
from ktype.models.ldiversity import FrequencyLDiversity, PSensitivity
from ktype.release import Release


# ---------------------------------------------------------------------------- helpers
def random_dataset(seed: int, n: int = 8, r: int = 2, m: int = 6, n_sens: int = 3) -> Dataset:
    rng = np.random.default_rng(seed)
    data = {f"a{j}": rng.integers(0, m, n) for j in range(r)}
    data["s"] = rng.integers(0, n_sens, n)
    df = pd.DataFrame(data)
    hier = {}
    for j in range(r):
        if j % 2 == 0:
            hier[f"a{j}"] = Hierarchy.intervals(range(m), [2, 4], name=f"a{j}")
        else:
            hier[f"a{j}"] = Hierarchy.from_subsets(list(range(m)), [[0, 1, 2], [0, 1], [m - 2, m - 1]], name=f"a{j}")
    return Dataset(df, quasi_identifiers=[f"a{j}" for j in range(r)], sensitive=["s"], hierarchies=hier)


def consistency(X: np.ndarray, LO: np.ndarray, HI: np.ndarray) -> np.ndarray:
    """Dense adjacency cons[i, j] = R̄_j consistent with R_i (tests only, small n)."""
    return ((X[:, None, :] >= LO[None]) & (X[:, None, :] <= HI[None])).all(axis=2)


def brute_matches(adj: np.ndarray) -> np.ndarray:
    """Edges on some perfect matching, by enumerating permutations (n <= 8)."""
    n = len(adj)
    out = np.zeros_like(adj)
    for perm in itertools.permutations(range(n)):
        if all(adj[i, perm[i]] for i in range(n)):
            out[np.arange(n), perm] = True
    return out


def scc_matches(X, LO, HI) -> np.ndarray:
    comp, _ = all_matches(X, LO, HI)
    return consistency(X, LO, HI) & (comp[:, None] == comp[None, :])


def table1() -> tuple[Dataset, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Table 1 of the k-concealment paper with (b) its 2-anonymization and (c) 2-concealment."""
    df = pd.DataFrame(
        {
            "age": [30, 21, 21, 55, 47],
            "zip": ["10055", "10055", "10023", "10165", "10224"],
            "disease": ["Measles", "Flu", "Angina", "Flu", "Diabetes"],
        }
    )
    H = {
        "age": Hierarchy.from_subsets([21, 30, 47, 55], [[21, 30], [47, 55]], name="age"),
        "zip": Hierarchy.from_subsets(["10023", "10055", "10165", "10224"], [["10023", "10055"]], name="zip"),
    }
    ds = Dataset(df, quasi_identifiers=["age", "zip"], sensitive=["disease"], hierarchies=H)
    age, zp = ds.hierarchies
    a21_30 = (age.rank_of(21), age.rank_of(30))
    a47_55 = (age.rank_of(47), age.rank_of(55))
    z100 = (zp.rank_of("10023"), zp.rank_of("10055"))
    zall = (0, 3)
    a21 = age.rank_of(21)
    z55 = zp.rank_of("10055")
    rows_c = [(a21_30, (z55, z55)), ((a21, a21), z100), (a21_30, z100), (a47_55, zall), (a47_55, zall)]
    rows_b = [(a21_30, z100)] * 3 + [(a47_55, zall)] * 2
    LOc = np.array([[a[0], z[0]] for a, z in rows_c], dtype=np.int32)
    HIc = np.array([[a[1], z[1]] for a, z in rows_c], dtype=np.int32)
    LOb = np.array([[a[0], z[0]] for a, z in rows_b], dtype=np.int32)
    HIb = np.array([[a[1], z[1]] for a, z in rows_b], dtype=np.int32)
    return ds, LOb, HIb, LOc, HIc


# ---------------------------------------------------------------------------- Table 1 / Alg 4
def test_table1_matches_and_components():
    ds, LOb, HIb, LOc, HIc = table1()
    X = ds.X
    adj = consistency(X, LOc, HIc)
    expected = np.array([[1, 0, 1, 0, 0], [1, 1, 1, 0, 0], [0, 1, 1, 0, 0], [0, 0, 0, 1, 1], [0, 0, 0, 1, 1]], bool)
    assert (adj == expected).all()
    comp, counts = all_matches(X, LOc, HIc)
    assert comp[0] == comp[1] == comp[2] and comp[3] == comp[4] and comp[0] != comp[3]
    assert counts.tolist() == [2, 3, 2, 2, 2]
    _, counts_b = all_matches(X, LOb, HIb)
    assert counts_b.tolist() == [3, 3, 3, 2, 2]
    p = Problem.from_dataset(ds, "loss_metric")
    assert p.table_cost(LOc, HIc) < p.table_cost(LOb, HIb)


def test_table1_pipeline_is_2_concealed_and_cheaper_than_2_anonymity():
    ds, LOb, HIb, _, _ = table1()
    rel = run("k_concealment", ds, KConcealment(2), randomized=False)  # the paper's basic pipeline
    assert KConcealment(2).check(rel).satisfied
    p = Problem.from_dataset(ds, "loss_metric")
    X = ds.X[rel.source]
    order = np.argsort(rel.source)
    assert (X[order] == ds.X).all()
    assert p.table_cost(rel.lo, rel.hi) <= p.table_cost(LOb, HIb)


def test_figure4_unique_perfect_matching():
    """Figure 4: a 4-cycle of non-horizontal edges but only the identity is a matching."""
    adj = np.eye(4, dtype=bool)
    for u, v in [(0, 2), (1, 2), (1, 3), (0, 3)]:
        adj[u, v] = True
    bm = brute_matches(adj)
    assert (bm == np.eye(4, dtype=bool)).all()


@pytest.mark.parametrize("seed", range(12))
def test_alg4_equals_brute_force(seed):
    ds = random_dataset(seed, n=7, r=2, m=5)
    p = Problem.from_dataset(ds)
    rng = np.random.default_rng(seed)
    # random generalization: every cell lifted to a random ancestor-or-self interval
    LO, HI = p.X.copy(), p.X.copy()
    for _ in range(3):
        rows = rng.integers(0, ds.n, 3)
        others = rng.integers(0, ds.n, 3)
        for i, j in zip(rows, others):
            from ktype.algorithms.local._core import plus_box

            LO[i], HI[i] = plus_box(p.X[j], LO[i], HI[i], p.anc, p.nlo, p.nhi, p.tree)
    adj = consistency(p.X, LO, HI)
    assert (scc_matches(p.X, LO, HI) == brute_matches(adj)).all()


@pytest.mark.parametrize("seed", range(12))
def test_match_counts_equal_brute_force(seed):
    """The one-pass match counts that let Algorithm 5 skip k-concealed records equal the
    number of matches found by enumerating perfect matchings."""
    from ktype.algorithms.local._core import plus_box
    from ktype.algorithms.local._matching import MatchGraph

    ds = random_dataset(seed, n=7, r=2, m=5)
    p = Problem.from_dataset(ds)
    rng = np.random.default_rng(seed)
    LO, HI = p.X.copy(), p.X.copy()
    for i, j in zip(rng.integers(0, ds.n, 9), rng.integers(0, ds.n, 9)):
        LO[i], HI[i] = plus_box(p.X[j], LO[i], HI[i], p.anc, p.nlo, p.nhi, p.tree)
    g = MatchGraph(p.X, LO.astype(np.int32), HI.astype(np.int32))
    counts = g.match_counts(g.components())
    assert (counts == brute_matches(consistency(p.X, LO, HI)).sum(axis=1)).all()


@pytest.mark.parametrize("seed", range(4))
def test_match_graph_grown_by_upgrades_equals_a_fresh_graph(seed):
    """MatchGraph's append-only storage (groups, arcs, members) grows past its initial capacity
    as rows are upgraded to new boxes: the grown graph must answer like one built from scratch
    on the final boxes (neighbours of every record, SCCs, match counts)."""
    from ktype.algorithms.local._core import plus_box
    from ktype.algorithms.local._matching import MatchGraph

    ds = random_dataset(seed, n=40, r=3, m=12)
    p = Problem.from_dataset(ds)
    rng = np.random.default_rng(seed)
    LO, HI = p.X.copy().astype(np.int32), p.X.copy().astype(np.int32)
    g = MatchGraph(p.X, LO.copy(), HI.copy())
    cap0, groups0 = len(g.gin_idx), len(g.gin_ptr)
    for t, (i, j) in enumerate(zip(rng.integers(0, ds.n, 1000), rng.integers(0, ds.n, 1000))):
        # alternately a row's box grown by another record, and the box of the two alone (new groups)
        lo, hi = (LO[i], HI[i]) if t % 2 else (p.X[i].astype(np.int32), p.X[i].astype(np.int32))
        lo, hi = plus_box(p.X[j], lo, hi, p.anc, p.nlo, p.nhi, p.tree)
        LO[i], HI[i] = lo, hi
        g.set_row(int(i), lo, hi)
    assert len(g.gin_idx) > cap0 and len(g.gin_ptr) > groups0  # both growth paths ran (members, groups)
    # the adjacency equals scipy's from the arc list (rows: records' arcs, then groups' members)
    from scipy.sparse import csr_matrix

    n, G, E = ds.n, g.G, g.n_gin
    rows = np.concatenate([g.gin_idx[:E], g.gid + n])
    cols = np.concatenate([g.arc_g[:E] + n, np.arange(n)])
    ref = csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(n + G, n + G))
    A = g.csr()
    assert (A.indptr == ref.indptr).all() and (A.indices == ref.indices).all()
    fresh = MatchGraph(p.X, LO.copy(), HI.copy())
    adj = consistency(p.X, LO, HI)
    for i in range(ds.n):
        assert g.neighbours(i).tolist() == fresh.neighbours(i).tolist() == np.flatnonzero(adj[i]).tolist()
    lab = fresh.components()
    assert (g.components() == lab).all()
    for i in range(ds.n):  # the incremental SCC search reads the groups' member lists (gin)
        assert sorted(g.component_of(i).tolist()) == np.flatnonzero(lab == lab[i]).tolist()
    grown = g.match_counts(g.components())
    assert (grown == brute_matches(adj).sum(axis=1)).all() if ds.n <= 9 else (
        grown == fresh.match_counts(fresh.components())).all()


def _grown_boxes(seed: int, n: int, m: int, upgrades: int) -> tuple[Dataset, Problem, np.ndarray, np.ndarray]:
    """A random 3-attribute table whose rows' boxes grew by ``upgrades`` random merges."""
    from ktype.algorithms.local._core import plus_box

    ds = random_dataset(seed, n=n, r=3, m=m)
    p = Problem.from_dataset(ds)
    rng = np.random.default_rng(seed)
    LO, HI = p.X.copy().astype(np.int32), p.X.copy().astype(np.int32)
    for i, j in zip(rng.integers(0, n, upgrades), rng.integers(0, n, upgrades)):  # test setup
        LO[i], HI[i] = plus_box(p.X[j], LO[i], HI[i], p.anc, p.nlo, p.nhi, p.tree)
    return ds, p, LO, HI


@pytest.mark.parametrize("seed", range(4))
def test_match_graph_storage_equals_brute_force(seed):
    """A fresh MatchGraph's storage: each group's records (gin) exactly the records inside
    its box, each once; each record's arc list in ascending group order, exactly the
    groups whose box holds it."""
    from ktype.algorithms.local._matching import MatchGraph

    ds, p, LO, HI = _grown_boxes(seed, n=60, m=6, upgrades=200)
    g = MatchGraph(p.X, LO, HI)
    boxes = []
    for b in range(g.G):
        lo, hi = LO[g.gid == b][0], HI[g.gid == b][0]
        boxes.append(np.flatnonzero(((p.X >= lo) & (p.X <= hi)).all(axis=1)))
        assert sorted(g.gin_idx[g.gin_ptr[b] : g.gin_ptr[b + 1]].tolist()) == boxes[b].tolist()
    for y in range(ds.n):
        arcs, e = [], g.out_head[y]
        while e >= 0:
            arcs.append(int(g.arc_g[e]))
            e = g.arc_next[e]
        assert arcs == [b for b in range(g.G) if y in set(boxes[b].tolist())]


@pytest.mark.parametrize("block", [1, 5, 40, 1 << 22])
def test_box_members_csr_in_blocks_equals_brute_force(block):
    """Each box's records from the blocked scan (blocks of one box, of a few, of all; a box
    larger than the block; the distinct-record buffer growing) are exactly those inside it,
    each once, with their box in ``grp``."""
    from ktype.algorithms.local._core import unique_boxes
    from ktype.algorithms.local._kernels import box_members_csr, scan_index

    _, p, LO, HI = _grown_boxes(7, n=150, m=5, upgrades=300)
    glo, ghi, _, _ = unique_boxes(LO, HI)
    ptr, idx, grp = box_members_csr(*scan_index(p.X), glo, ghi, 2, block)
    assert len(idx) == 2 * ptr[-1] + 16
    for b in range(len(glo)):
        seg = idx[ptr[b] : ptr[b + 1]]
        assert sorted(seg.tolist()) == np.flatnonzero(((p.X >= glo[b]) & (p.X <= ghi[b])).all(axis=1)).tolist()
        assert (grp[ptr[b] : ptr[b + 1]] == b).all()


@pytest.mark.parametrize("seed", range(3))
def test_degrees_indexed_equals_brute_force(seed):
    """Algorithm 3's starting degrees: for each record, the number of rows whose box holds it
    (boxes scanned in parallel chunks, so more boxes than chunks)."""
    from ktype.algorithms.local._core import unique_boxes
    from ktype.algorithms.local._kernels import degrees_indexed, scan_index

    _, p, LO, HI = _grown_boxes(seed, n=120, m=9, upgrades=150)
    glo, ghi, _, cnt = unique_boxes(LO, HI)
    assert len(glo) > 16
    deg = degrees_indexed(*scan_index(p.X), glo, ghi, cnt)
    assert (deg == consistency(p.X, LO, HI).sum(axis=1)).all()


# ---------------------------------------------------------------------------- Alg 1 / Alg 2
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [2, 3])
def test_alg1_optimal_and_alg2_ratio(seed, k):
    ds = random_dataset(seed, n=7, r=2, m=6)
    p = Problem.from_dataset(ds, "loss_metric")
    LO1, HI1 = optimal_k1(p, k)
    # brute force, independently through Problem.d over index sets
    for i in range(ds.n):
        best = min(p.d([i, *T]) for T in itertools.combinations([j for j in range(ds.n) if j != i], k - 1))
        assert math.isclose(p.record_costs(LO1[i : i + 1], HI1[i : i + 1])[0], best, abs_tol=1e-12)
    LO2, HI2, S = k1_expansion(p, k, return_sets=True)
    adj = consistency(p.X, LO2, HI2)
    assert (adj.sum(axis=0) >= k).all()  # (k,1)
    for i in range(ds.n):
        assert S[i, 0] == i and len(set(S[i].tolist())) == k
        lo, hi = p.closure_of(S[i])
        assert (lo == LO2[i]).all() and (hi == HI2[i]).all()
    assert p.table_cost(LO2, HI2) <= (k - 1) * p.table_cost(LO1, HI1) + 1e-12  # Prop. 13 (LM)


def test_alg1_refuses_big_inputs():
    ds = random_dataset(0, n=60, r=2)
    with pytest.raises(InvalidParameterError, match="exhaustive"):
        optimal_k1(Problem.from_dataset(ds), 5)


# ---------------------------------------------------------------------------- Alg 3 / Alg 5
@pytest.mark.parametrize("seed", range(8))
def test_alg3_and_alg5_properties(seed):
    ds = random_dataset(seed, n=8, r=2, m=6)
    p = Problem.from_dataset(ds, "loss_metric")
    k = 3
    LO2, HI2 = k1_expansion(p, k)
    order = np.random.default_rng(seed).permutation(ds.n)
    LO3, HI3 = one_k_completion(p, LO2, HI2, k, order=order)
    assert (LO3 <= LO2).all() and (HI3 >= HI2).all()
    adj = consistency(p.X, LO3, HI3)
    assert (adj.sum(axis=1) >= k).all() and (adj.sum(axis=0) >= k).all()  # (k,k)
    LO5, HI5, st = k_conceal(p, LO3, HI3, k, return_state=True)
    LOf, HIf = k_conceal(p, LO3, HI3, k, scc_update="full")
    assert (LO5 == LOf).all() and (HI5 == HIf).all()  # incremental == full recomputation
    # the graph's own SCC search after the incremental updates (which used their stamps): its
    # scratch marks must not be taken for this search's
    full = st.graph.components()
    for i in range(ds.n):
        assert st.graph.component_of(i).tolist() == np.flatnonzero(full == full[i]).tolist()
    assert (LO5 <= LO3).all() and (HI5 >= HI3).all()
    bm = brute_matches(consistency(p.X, LO5, HI5))
    assert (bm.sum(axis=1) >= k).all()  # k-concealed (brute force)
    adj5 = consistency(p.X, LO5, HI5)
    assert (adj5.sum(axis=0) >= k).all() and (adj5.sum(axis=1) >= k).all()
    # each changed row took at least one upgrade, and no row more than k - 1 (Lemma: n(k-1) in all)
    moved = int((~((LO5 == LO3).all(axis=1) & (HI5 == HI3).all(axis=1))).sum())
    assert moved <= st.upgrades <= ds.n * (k - 1)
    # rows with >= k matches before Algorithm 5 are untouched... only when they are visited
    # first; the first visited row changes iff it had fewer than k matches
    first = 0
    had = brute_matches(consistency(p.X, LO3, HI3))[first].sum()
    changed = not ((LO5[first] == LO3[first]).all() and (HI5[first] == HI3[first]).all())
    if had >= k:
        assert not changed


@pytest.mark.parametrize("seed", [0, 1, 3, 6])
def test_alg5_counts_its_upgrades(seed):
    """On 20 records (where Algorithm 5 changes rows; on the 8 above it has nothing to do),
    every changed row took at least one upgrade and there are at most n(k - 1) in all."""
    ds = random_dataset(seed, n=20, r=2, m=6)
    p = Problem.from_dataset(ds, "loss_metric")
    k = 3
    LO2, HI2 = k1_expansion(p, k)
    LO3, HI3 = one_k_completion(p, LO2, HI2, k, order=np.random.default_rng(seed).permutation(ds.n))
    LO5, HI5, st = k_conceal(p, LO3, HI3, k, return_state=True)
    moved = int((~((LO5 == LO3).all(axis=1) & (HI5 == HI3).all(axis=1))).sum())
    assert 2 <= moved <= st.upgrades <= ds.n * (k - 1)


def test_alg5_incremental_equals_full_on_larger_table():
    ds = random_dataset(3, n=120, r=3, m=12, n_sens=4)
    p = Problem.from_dataset(ds, "entropy")
    k = 4
    LO, HI = one_k_completion(p, *k1_expansion(p, k), k)
    order = np.random.default_rng(1).permutation(ds.n)
    a = k_conceal(p, LO, HI, k, order=order)
    b = k_conceal(p, LO, HI, k, order=order, scc_update="full")
    assert (a[0] == b[0]).all() and (a[1] == b[1]).all()
    _, counts = all_matches(p.X, *a)
    assert counts.min() >= k


def test_alg5_needs_one_k():
    ds = random_dataset(0, n=8)
    p = Problem.from_dataset(ds)
    with pytest.raises(InfeasibleError, match="Algorithm 3"):
        k_conceal(p, p.X, p.X, 3)


# ---------------------------------------------------------------------------- Alg 6
def test_alg6_seeded_and_k1():
    ds = random_dataset(1, n=30, r=2, m=6)
    p = Problem.from_dataset(ds)
    k = 3
    LO, HI, _ = randomized_k1(p, k, rng=np.random.default_rng(5))
    LO2, HI2, _ = randomized_k1(p, k, rng=np.random.default_rng(5))
    assert (LO == LO2).all() and (HI == HI2).all()
    assert (consistency(p.X, LO, HI).sum(axis=0) >= k).all()
    LO0, HI0 = k1_expansion(p, k)
    assert not ((LO == LO0).all() and (HI == HI0).all())  # randomization did something


def test_alg6_terminates_on_duplicates():
    df = pd.DataFrame({"a": [3] * 12, "b": [1] * 12, "s": [0, 1] * 6})
    ds = Dataset(
        df,
        quasi_identifiers=["a", "b"],
        sensitive=["s"],
        hierarchies={"a": Hierarchy.intervals(range(6), [2]), "b": Hierarchy.flat([0, 1, 2])},
    )
    p = Problem.from_dataset(ds)
    LO, HI, stats = randomized_k1(p, 3, q=4, rng=np.random.default_rng(0), max_trials=5)
    assert stats["fallback_rows"] == 12  # every R̃_1 equals R̃_0: documented fallback used
    assert (consistency(p.X, LO, HI).sum(axis=0) >= 3).all()
    LO1, HI1, _ = randomized_k1(p, 1, rng=np.random.default_rng(0))
    assert (LO1 == p.X).all() and (HI1 == p.X).all()


# ---------------------------------------------------------------------------- Alg 7 / l-variant
def _match_sets(p, LO, HI):
    return scc_matches(p.X, LO, HI)


@pytest.mark.parametrize("seed", range(5))
def test_alg7_p_sensitivity(seed):
    ds = random_dataset(seed, n=8, r=2, m=6, n_sens=3)
    p = Problem.from_dataset(ds)
    s = ds.sensitive_codes["s"]
    k = 2
    LO, HI = k_conceal(p, *one_k_completion(p, *k1_expansion(p, k), k), k)
    nd = len(np.unique(s))
    LO7, HI7 = p_sensitize(p, LO, HI, s, nd)
    M = _match_sets(p, LO7, HI7)
    assert (M.sum(axis=1) >= k).all()
    for i in range(ds.n):
        assert len(np.unique(s[M[i]])) >= nd
    assert (LO7 <= LO).all() and (HI7 >= HI).all()
    with pytest.raises(InfeasibleError, match="distinct sensitive values"):
        p_sensitize(p, LO, HI, s, nd + 1)


@pytest.mark.parametrize("seed", range(5))
def test_l_variant_fixed_point(seed):
    ds = random_dataset(seed, n=8, r=2, m=6, n_sens=3)
    p = Problem.from_dataset(ds)
    s = ds.sensitive_codes["s"]
    k = 2
    LO, HI = k_conceal(p, *one_k_completion(p, *k1_expansion(p, k), k), k)
    counts = np.bincount(s)
    ell = min(2.0, ds.n / counts.max())
    LOl, HIl = l_diversify(p, LO, HI, s, ell)
    M = _match_sets(p, LOl, HIl)
    for i in range(ds.n):
        h = np.bincount(s[M[i]])
        assert M[i].sum() / h.max() >= ell - 1e-12
    rel = Release.build(ds, LOl, HIl)
    assert FrequencyLDiversity(ell, scope="matches").check(rel).satisfied
    with pytest.raises(InfeasibleError, match="diversity of the whole table"):
        l_diversify(p, LO, HI, s, ds.n / counts.max() + 0.01)


# ---------------------------------------------------------------------------- Alg 8 / baselines
@pytest.mark.parametrize("seed", range(4))
def test_alg8_properties(seed):
    ds = random_dataset(seed, n=40, r=2, m=8, n_sens=3)
    p = Problem.from_dataset(ds)
    s = ds.sensitive_codes["s"]
    k = 3
    lab = agglomerative_clusters(p, k)
    counts = np.bincount(s)
    ell = min(1.8, ds.n / counts.max())
    lab8 = l_diverse_merge(p, lab, s, ell)
    # a coarsening: each old cluster inside one new cluster
    pairs = pd.DataFrame({"o": lab, "n": lab8}).drop_duplicates()
    assert not pairs["o"].duplicated().any()
    for c in np.unique(lab8):
        members = lab8 == c
        assert members.sum() >= k
        assert members.sum() / np.bincount(s[members]).max() >= ell - 1e-12
    with pytest.raises(InfeasibleError):
        l_diverse_merge(p, lab, s, ds.n / counts.max() + 0.01)


def _alg8_reference(p: Problem, labels: np.ndarray, s: np.ndarray, ell: float, w: float = 0.15) -> set:
    """Algorithm 8 as its text reads, cluster by cluster: merge the least diverse cluster (lowest
    index on ties) with the one minimizing w·cost_I + (1-w)·cost_D (first on ties)."""
    clusters = {c: np.flatnonzero(labels == c).tolist() for c in np.unique(labels)}

    def div(idx: list) -> float:
        return len(idx) / np.bincount(s[idx]).max()

    while any(div(m) < ell for m in clusters.values()):
        cm = min(clusters, key=lambda c: (div(clusters[c]), c))
        best = None
        for c in sorted(clusters):
            if c == cm:
                continue
            u = clusters[c] + clusters[cm]
            cost_i = (len(u) * p.d(u) - len(clusters[c]) * p.d(clusters[c]) - len(clusters[cm]) * p.d(clusters[cm])) / p.n
            tot = w * cost_i + (1 - w) * max(ell - div(u), 0.0)
            if best is None or tot < best[0]:
                best = (tot, c)
        clusters[best[1]] += clusters.pop(cm)
    return {frozenset(m) for m in clusters.values()}


@pytest.mark.parametrize("seed", range(6))
def test_alg8_equals_its_text(seed):
    """The vectorized merge against the reference above: the same final clusters."""
    ds = random_dataset(seed, n=40, r=2, m=8, n_sens=3)
    p = Problem.from_dataset(ds)
    s = ds.sensitive_codes["s"]
    lab = agglomerative_clusters(p, 2)
    ell = min(1.7, ds.n / np.bincount(s).max()) - 1e-9
    got = l_diverse_merge(p, lab, s, ell)
    assert {frozenset(np.flatnonzero(got == c).tolist()) for c in np.unique(got)} == _alg8_reference(p, lab, s, ell)


def test_mediant_bound():
    rng = np.random.default_rng(0)
    for _ in range(50):
        a = rng.integers(0, 5, 3) + np.array([1, 0, 0])
        b = rng.integers(0, 5, 3) + np.array([0, 1, 0])
        div = lambda h: h.sum() / h.max()  # noqa: E731
        assert div(a + b) >= min(div(a), div(b)) - 1e-12


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [2, 3, 5])
def test_baselines_k_anonymous(seed, k):
    ds = random_dataset(seed, n=30, r=3, m=7)
    p = Problem.from_dataset(ds)
    for lab in (agglomerative_clusters(p, k), forest_clusters(p, k)):
        assert np.bincount(lab).min() >= k
        LO, HI = cluster_boxes(p, lab)
        assert KAnonymity(k).check(Release.build(ds, LO, HI)).satisfied
    sizes = np.bincount(forest_clusters(p, k))
    assert sizes.max() <= max(2 * k - 1, 3 * k - 3)


def test_decompose_long_path():
    n, k = 50, 4
    out = np.arange(1, n + 1)
    out[-1] = -1  # a path 0 -> 1 -> ... -> 49
    lab = decompose_forest(out, k)
    sizes = np.bincount(lab)
    assert sizes.min() >= k and sizes.max() <= 3 * k - 3


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [2, 3, 5])
def test_decompose_random_trees_into_numbered_clusters_of_k_to_3k_minus_3(seed, k):
    """Random trees of 60 records (each points to an earlier one; FOREST's trees have at least
    k), bushy ones included: clusters of k to max(2k - 1, 3k - 3) records, numbered 0, 1, ...
    without gaps."""
    rng = np.random.default_rng(seed)
    n = 60
    out = np.array([-1] + [int(rng.integers(0, max(1, i // (1 + seed % 3)))) for i in range(1, n)])
    lab = decompose_forest(out, k)
    sizes = np.bincount(lab)
    assert sizes.min() >= k and sizes.max() <= max(2 * k - 1, 3 * k - 3)
    assert set(lab.tolist()) == set(range(len(sizes)))


# ---------------------------------------------------------------------------- Gionis-Tassa
def _brute_opt(p: Problem, k: int) -> float:
    """min over partitions into blocks of size >= k of Σ |B| d(B) / n (tiny n)."""
    n = p.n
    best = math.inf

    def rec(rest: tuple, acc: float):
        nonlocal best
        if acc >= best:
            return
        if not rest:
            best = acc
            return
        first, others = rest[0], rest[1:]
        for size in range(k - 1, len(others) + 1):
            for comb in itertools.combinations(others, size):
                left = tuple(x for x in others if x not in comb)
                if 0 < len(left) < k:
                    continue
                block = (first, *comb)
                rec(left, acc + len(block) * p.d(list(block)))

    rec(tuple(range(n)), 0.0)
    return best / n


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("k", [2, 3])
def test_gt_approximation_factors(seed, k):
    ds = random_dataset(seed, n=8, r=2, m=6)
    p = Problem.from_dataset(ds, "loss_metric")
    opt = _brute_opt(p, k)
    lab = setcover_clusters(p, k)
    sizes = np.bincount(lab)
    assert sizes.min() >= k and sizes.max() <= 2 * k - 1
    cost_a = p.table_cost(*cluster_boxes(p, lab))
    assert cost_a <= 2 * (1 + math.log(2 * k)) * opt + 1e-12
    labb = setcover_clusters(p, k, method="boxes")
    assert np.bincount(labb).min() >= k
    assert p.table_cost(*cluster_boxes(p, labb)) <= 2 * (1 + math.log(2 * k)) * opt + 1e-12
    labf = forest_clusters(p, k)
    cost_b = p.table_cost(*cluster_boxes(p, labf))
    assert cost_b <= max(2 * k - 1, 3 * k - 3) * opt + 1e-12


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [2, 3])
def test_gt_set_cover_with_an_ordered_attribute(seed, k):
    """An ordered attribute (no hierarchy tree: every interval is a generalized value) in
    Algorithm A's box form: clusters within [k, 2k-1] and the 2(1 + ln 2k) bound against the
    brute-force optimum, as for taxonomies."""
    ds = random_dataset(seed, n=8, r=2, m=6)
    ds = Dataset(ds.data, quasi_identifiers=["a0", "a1"], sensitive=["s"],
                 hierarchies={"a0": Hierarchy.ordered(range(6), name="a0"), "a1": ds.hierarchies[1]})
    p = Problem.from_dataset(ds, "loss_metric")
    assert not p.tree[0]
    opt = _brute_opt(p, k)
    for method in ("boxes", "subsets"):
        lab = setcover_clusters(p, k, method=method)
        sizes = np.bincount(lab)
        assert sizes.min() >= k and sizes.max() <= 2 * k - 1
        assert p.table_cost(*cluster_boxes(p, lab)) <= 2 * (1 + math.log(2 * k)) * opt + 1e-12


def test_phase2_partition_sizes():
    cover = [{0, 1, 2}, {2, 3, 4}, {4, 5, 6, 7}, {7, 8, 0}]
    parts = phase2_partition(cover, 3)
    flat = sorted(x for S in parts for x in S)
    assert flat == list(range(9))
    assert all(3 <= len(S) <= 5 for S in parts)


def test_gt_setcover_refuses_large():
    ds = random_dataset(0, n=400, r=3, m=60)
    with pytest.raises(InvalidParameterError, match="gt_forest"):
        setcover_clusters(Problem.from_dataset(ds), 5)


# ---------------------------------------------------------------------------- measures
def test_lm_and_em_basics():
    ds = random_dataset(2, n=20, r=2, m=6)
    for meas in ("loss_metric", "entropy"):
        p = Problem.from_dataset(ds, meas)
        assert p.table_cost(p.X, p.X) == 0.0
        top = np.tile(p.m - 1, (ds.n, 1)).astype(np.int32)
        full = p.table_cost(np.zeros_like(p.X), top)
        if meas == "loss_metric":
            assert full == 1.0
        else:
            H = []
            for j in range(ds.r):
                c = np.bincount(p.X[:, j]) / ds.n
                c = c[c > 0]
                H.append(-(c * np.log2(c)).sum())
            assert math.isclose(full, np.mean(H))


def test_em_of_intervals_holding_values_no_record_has():
    """The entropy measure of a box is the entropy of the records' values inside it (Gionis &
    Tassa, TKDE 2009, §4.2.2); hierarchy values that no record holds (a domain wider than the
    data) add nothing. Against a direct count for every interval of a 6-value domain of which
    3 values occur."""
    df = pd.DataFrame({"x": [0, 0, 2, 2, 2, 5]})
    ds = Dataset(df, quasi_identifiers=["x"], hierarchies={"x": Hierarchy.ordered(range(6), name="x")})
    p = Problem.from_dataset(ds, "entropy")
    x = df["x"].to_numpy()
    for lo in range(6):
        for hi in range(lo, 6):
            inside = x[(x >= lo) & (x <= hi)]
            if len(inside) == 0:
                continue
            q = np.unique(inside, return_counts=True)[1] / len(inside)
            want = float(-(q * np.log2(q)).sum())
            got = p.record_costs(np.array([[lo]], np.int32), np.array([[hi]], np.int32))[0]
            assert math.isclose(got, want, abs_tol=1e-12), (lo, hi, got, want)


def test_em_not_monotone():
    """EM is not monotone (Gionis & Tassa, TKDE 2009, §4.2.2): Pr = (0.01, 0.01, 0.98) gives
    H({a,b}) = 1 bit > H({a,b,c})."""
    df = pd.DataFrame({"x": [0] + [1] + [2] * 98})
    ds = Dataset(df, quasi_identifiers=["x"], hierarchies={"x": Hierarchy.from_subsets([0, 1, 2], [[0, 1]], name="x")})
    p = Problem.from_dataset(ds, "entropy")
    ab = p.record_costs(np.array([[0]], np.int32), np.array([[1]], np.int32))[0]
    abc = p.record_costs(np.array([[0]], np.int32), np.array([[2]], np.int32))[0]
    assert math.isclose(ab, 1.0) and abc < 0.2


# ---------------------------------------------------------------------------- registry
@pytest.mark.parametrize(
    "name, models, opts",
    [
        ("k1_anonymity", KOneAnonymity(3), {}),
        ("kk_anonymity", KKAnonymity(3), {"measure": "entropy"}),
        ("k_concealment", KConcealment(3), {"randomized": False}),
        ("k_concealment", KConcealment(3), {"randomized": True, "rng": 4, "q": 6}),
        ("k_concealment", [KConcealment(3), PSensitivity(2)], {"randomized": True, "rng": 1}),
        ("k_concealment", [KConcealment(3), FrequencyLDiversity(1.5)], {"measure": "entropy"}),
        ("agglomerative", KAnonymity(3), {"l": 1.5}),
        ("forest", KAnonymity(3), {}),
        ("gt_forest", KAnonymity(3), {}),
        ("gt_setcover", KAnonymity(2), {}),
    ],
)
def test_registered_pipelines_pass_checkers(name, models, opts):
    ds = random_dataset(5, n=40 if name != "gt_setcover" else 12, r=3, m=8, n_sens=3)
    rel = run(name, ds, models, **opts)
    assert rel.provenance["verified"]
    if name == "agglomerative":
        assert FrequencyLDiversity(1.5, scope="class").check(rel).satisfied


def test_k_concealment_loses_less_than_k_anonymity():
    ds = random_dataset(11, n=150, r=3, m=12)
    kc = run("k_concealment", ds, KConcealment(5), randomized=False)  # the basic pipeline (deterministic)
    ag = run("agglomerative", ds, KAnonymity(5))
    p = Problem.from_dataset(ds)
    assert p.table_cost(kc.lo, kc.hi) < p.table_cost(ag.lo, ag.hi)


def test_scope_mismatch_is_refused():
    from ktype.exceptions import UnsupportedModelError

    ds = random_dataset(5, n=20)
    with pytest.raises(UnsupportedModelError, match="scope"):
        run("k_concealment", ds, [KConcealment(2), FrequencyLDiversity(1.2, scope="class")])


def test_packed_closure_equals_hierarchy_closure():
    """The numba closure (R + R̄) agrees with the core ``Hierarchy.closure``."""
    from ktype.algorithms.local._core import close_box

    ds = random_dataset(4, n=30, r=3, m=9)
    p = Problem.from_dataset(ds)
    rng = np.random.default_rng(0)
    for _ in range(200):
        a, b = np.sort(rng.integers(0, 9, (2, ds.r)), axis=0).astype(np.int32)
        lo, hi = a.copy(), b.copy()
        close_box(lo, hi, p.anc, p.nlo, p.nhi, p.tree)
        for j, h in enumerate(ds.hierarchies):
            elo, ehi = h.closure(np.array([a[j]]), np.array([b[j]]))
            assert (lo[j], hi[j]) == (int(elo[0]), int(ehi[0]))


def test_alg6_rejects_small_q():
    ds = random_dataset(1, n=20)
    with pytest.raises(InvalidParameterError, match="q >= k-1"):
        randomized_k1(Problem.from_dataset(ds), 5, q=2, rng=np.random.default_rng(0))


@pytest.mark.parametrize("tight", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_dynamic_scc_invariants_after_every_upgrade(seed, tight, monkeypatch):
    """After each upgrade of Algorithms 5/7 the incremental labels equal a full SCC
    recomputation and the maintained positions are a topological order of the condensation.
    ``tight`` starts from consecutive positions (no gaps), so every reordering has to
    renumber the positions first."""
    from ktype.algorithms.local import kconcealment as kc

    if tight:
        orig_init = kc._Concealer.__init__

        def tight_init(self, *args, **kwargs):
            orig_init(self, *args, **kwargs)
            if self.scc_update == "incremental":
                live = np.flatnonzero(self.size > 0)
                self.pos[live] = np.argsort(np.argsort(self.pos[live])) + 1

        monkeypatch.setattr(kc._Concealer, "__init__", tight_init)

    ds = random_dataset(seed, n=60, r=3, m=8, n_sens=3)
    p = Problem.from_dataset(ds)
    k = 3
    LO, HI = one_k_completion(p, *k1_expansion(p, k), k)
    calls = {"n": 0}
    orig = kc._Concealer.upgrade

    def checked(self, i, x):
        orig(self, i, x)
        if self.scc_update == "incremental":
            self.check_order()
            calls["n"] += 1

    monkeypatch.setattr(kc._Concealer, "upgrade", checked)
    order = np.random.default_rng(seed).permutation(ds.n)
    LO5, HI5 = k_conceal(p, LO, HI, k, order=order)
    s = ds.sensitive_codes[ds.sensitive[0]]
    kc.p_sensitize(p, LO5, HI5, s, min(3, len(np.unique(s))), order=order)
    assert calls["n"] > 0


@pytest.mark.parametrize("measure", ["loss_metric", "entropy"])
@pytest.mark.parametrize("seed,k", [(0, 4), (1, 9), (2, 15)])
def test_alg2_every_pick_is_a_greedy_argmin(seed, k, measure):
    """Replay Algorithm 2: every chosen record minimizes d(S ∪ {R_j}) - d(S) over all
    records not yet in S (whichever fast path -- window, box scan, full pass -- chose it)."""
    ds = random_dataset(seed, n=150, r=4, m=7)
    p = Problem.from_dataset(ds, measure)
    LO, HI, S = k1_expansion(p, k, return_sets=True)
    for i in range(0, ds.n, 7):
        chosen = [int(S[i, 0])]
        assert chosen[0] == i
        for t in range(1, k):
            lo, hi = p.closure_of(np.array(chosen))
            rest = np.setdiff1d(np.arange(ds.n), chosen)
            clo, chi = zip(*(p.closure_of(np.array(chosen + [int(j)])) for j in rest), strict=True)
            deltas = p.record_costs(np.array(clo), np.array(chi)) - p.record_costs(lo[None], hi[None])[0]
            pick = int(S[i, t])
            assert pick in rest
            assert deltas[np.searchsorted(rest, pick)] <= deltas.min() + 1e-12
            chosen.append(pick)
        lo, hi = p.closure_of(np.array(chosen))
        assert (LO[i] == lo).all() and (HI[i] == hi).all()


@pytest.mark.parametrize("measure", ["loss_metric", "entropy"])
def test_closure_cost_table_matches_record_costs(measure):
    ds = random_dataset(5, n=40, r=3, m=9)
    p = Problem.from_dataset(ds, measure)
    T = p.closure_cost_table()
    rng = np.random.default_rng(0)
    lo = rng.integers(0, 9, (200, 3))
    hi = np.maximum(lo, rng.integers(0, 9, (200, 3)))
    ref = []
    for a, b in zip(lo, hi, strict=True):
        l2, h2 = a.astype(np.int32).copy(), b.astype(np.int32).copy()
        close_box(l2, h2, p.anc, p.nlo, p.nhi, p.tree)
        ref.append(p.record_costs(l2[None], h2[None])[0])
    got = T[np.arange(3)[None, :], lo, hi].sum(axis=1) / 3
    assert np.allclose(got, ref)


@pytest.mark.parametrize("seed", range(3))
def test_the_parent_of_every_node_is_the_smallest_node_strictly_containing_it(seed):
    """Algorithm 6's fallback lifts a tree attribute to its parent node: for every node but the
    root, the smallest node of the hierarchy that strictly contains it (brute force over the
    nodes)."""
    from ktype.algorithms.local.kconcealment import _parent_interval

    ds = random_dataset(seed, n=20, r=2, m=8 + seed)
    p = Problem.from_dataset(ds)
    for a, h in enumerate(ds.hierarchies):
        nodes = sorted(set(zip(h.node_lo.tolist(), h.node_hi.tolist())))
        inner = [(lo, hi) for lo, hi in nodes if (lo, hi) != (0, h.size - 1)]
        got_lo, got_hi = _parent_interval(p, a, np.array([lo for lo, _ in inner]), np.array([hi for _, hi in inner]))
        for (lo, hi), glo, ghi in zip(inner, got_lo.tolist(), got_hi.tolist()):
            over = [(b - a_, (a_, b)) for a_, b in nodes if a_ <= lo and b >= hi and (a_, b) != (lo, hi)]
            assert (glo, ghi) == min(over)[1], (a, lo, hi)


def test_lifting_an_attribute_without_a_tree_widens_it_by_one_leaf_each_side():
    """Algorithm 6's fallback on an ordered attribute without a tree: the interval grows by one
    leaf on each side, within the domain."""
    from ktype.algorithms.local.kconcealment import _lift_random_attribute

    ds = Dataset(pd.DataFrame({"a": np.arange(6)}), quasi_identifiers=["a"], hierarchies={"a": "ordered"})
    p = Problem.from_dataset(ds)
    assert not p.tree[0]
    LO = np.array([[0], [2], [3], [5], [0]], dtype=np.int32)
    HI = np.array([[0], [2], [4], [5], [5]], dtype=np.int32)
    rows = np.arange(5)
    _lift_random_attribute(p, LO, HI, rows, np.random.default_rng(0))
    assert LO.ravel().tolist() == [0, 1, 2, 4, 0] and HI.ravel().tolist() == [1, 3, 5, 5, 5]


def test_gt_setcover_counts_the_hierarchy_boxes_exactly_and_refuses_beyond_its_limit(monkeypatch):
    """The boxes method runs up to MAX_BOXES boxes (the product of each attribute's allowed
    intervals) and refuses beyond, naming the count; a product past 10^12 stops counting and
    is refused as well."""
    from ktype.algorithms.local import gionis_tassa as gt

    p = Problem.from_dataset(random_dataset(0, n=6, r=2, m=6))
    n_box = int(np.prod([len(gt._allowed_values(p, a)[0]) for a in range(p.r)]))
    monkeypatch.setattr(gt, "MAX_BOXES", n_box)
    lab = gt.setcover_clusters(p, 2, method="boxes")  # exactly at the limit: it runs
    assert np.bincount(lab).min() >= 2
    monkeypatch.setattr(gt, "MAX_BOXES", n_box - 1)
    with pytest.raises(InvalidParameterError, match=rf"\b{n_box:,} hierarchy boxes"):
        gt.setcover_clusters(p, 2, method="boxes")
    big = Problem.from_dataset(random_dataset(0, n=6, r=14, m=8))
    with pytest.raises(InvalidParameterError, match="hierarchy boxes"):
        gt.setcover_clusters(big, 2, method="boxes")
