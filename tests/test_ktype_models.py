"""Fixtures of the k-concealment paper (Tassa, Mazza & Gionis 2012) for the k-type checkers.

Table 1 (§1.1), the Appendix A separation fixtures of Proposition 5 and 7 (with the
``g_(k,k)`` indices corrected: the printed row ``i`` = ``F \\ {i}`` does not contain ``R_i``),
Figures 2–4 (§5.1, §6.2.1), an overlapping multidimensional counter-example to the remark at
the end of §4.2, and the suppression convention of ``_graph``.

How the fixtures' generalized *sets* become released *boxes*: single-attribute fixtures use
an ``ordered`` domain whose order makes every needed set an interval (e.g. Ω4 orders the
domain ``a_{k+1}, …, a_1, b_1, …, b_k``; Fig. 4 orders it ``3, 1, 2, 4``). The corrected
``g_(k,k)`` needs the sets ``F \\ {x}`` for interior ``x``, which are intervals of no linear
order; it is built with a *one-hot* encoding (one binary QI per domain value; the set ``S``
is the box ``[0,1]`` on the columns of ``S`` and ``[0,0]`` elsewhere, which contains the
one-hot point of ``v`` iff ``v ∈ S``) and, independently, through
:func:`matches_from_adjacency` on the explicit boolean graph.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Sequence

import numpy as np
import pandas as pd
import pytest

from ktype import Dataset, Hierarchy
from ktype.attacks import match_posteriors
from ktype.exceptions import DataError, InvalidParameterError
from ktype.models._graph import (
    consistency_degrees,
    consistency_graph,
    match_components,
    match_counts,
    matches_from_adjacency,
    record_matches,
)
from ktype.models.kanonymity import KAnonymity
from ktype.models.ktype_models import KConcealment, KKAnonymity, KOneAnonymity, OneKAnonymity
from ktype.release import Release


# ------------------------------------------------------------------------------- helpers
def interval_release(values: Sequence, sets: Sequence[Sequence], order: Sequence) -> Release:
    """One ordered QI whose domain is ``order``; row i releases ``sets[i]`` (must be an interval)."""
    pos = {v: p for p, v in enumerate(order)}
    df = pd.DataFrame({"q": [pos[v] for v in values]})
    ds = Dataset(df, quasi_identifiers=["q"], hierarchies={"q": Hierarchy.ordered(range(len(order)), name="q")})
    lo = np.empty((len(values), 1), dtype=np.int32)
    hi = np.empty((len(values), 1), dtype=np.int32)
    for i, s in enumerate(sets):  # fixture-sized loop
        p = sorted(pos[v] for v in s)
        assert p == list(range(p[0], p[-1] + 1)), f"set {s} is not an interval of {order}"
        lo[i, 0], hi[i, 0] = p[0], p[-1]
    return Release.build(ds, lo, hi)


def onehot_release(values: Sequence, sets: Sequence[Sequence]) -> Release:
    """One binary QI per distinct value; any non-empty set of values is a box."""
    dom = sorted(set(values), key=str)
    df = pd.DataFrame({f"is_{v}": [int(x == v) for x in values] for v in dom})
    ds = Dataset(df, quasi_identifiers=list(df.columns), hierarchies={c: Hierarchy.ordered([0, 1], name=c) for c in df.columns})
    lo = np.zeros((len(values), len(dom)), dtype=np.int32)
    hi = np.array([[int(v in set(s)) for v in dom] for s in sets], dtype=np.int32)
    return Release.build(ds, lo, hi)


def set_adjacency(values: Sequence, sets: Sequence[Sequence]) -> np.ndarray:
    return np.array([[v in set(s) for s in sets] for v in values], dtype=bool)


def by_input(release: Release, per_released: np.ndarray) -> np.ndarray:
    """Re-index a per-released-row array by the input row it generalizes."""
    out = np.empty_like(per_released)
    out[release.source] = per_released
    return out


def memberships(release: Release, k: int) -> dict[str, bool]:
    return {
        "A": KAnonymity(k).check(release).satisfied,
        "1k": OneKAnonymity(k).check(release).satisfied,
        "k1": KOneAnonymity(k).check(release).satisfied,
        "kk": KKAnonymity(k).check(release).satisfied,
        "C": KConcealment(k).check(release).satisfied,
    }


def brute_matchings(adj: np.ndarray) -> list[tuple[int, ...]]:
    n = adj.shape[0]
    return [p for p in itertools.permutations(range(n)) if all(adj[i, p[i]] for i in range(n))]


# ------------------------------------------------------------------------------- Table 1
AGES = [30, 21, 21, 55, 47]
ZIPS = ["10055", "10055", "10023", "10165", "10224"]
TABLE1_C = [((21, 30), ("10055", "10055")), ((21, 21), ("10023", "10055")), ((21, 30), ("10023", "10055")),
            ((47, 55), ("10023", "10224")), ((47, 55), ("10023", "10224"))]
TABLE1_B = [((21, 30), ("10023", "10055"))] * 3 + [((47, 55), ("10023", "10224"))] * 2


def table1(rows) -> Release:
    """Table 1 with ordered age and zip domains: 21-30, 47-55, 100** = {10023, 10055} and
    10*** (the whole zip domain) are intervals."""
    df = pd.DataFrame({"name": ["Alice", "Bob", "Carol", "David", "Eve"], "age": AGES, "zip": ZIPS,
                       "disease": ["Measles", "Flu", "Angina", "Flu", "Diabetes"]})
    ds = Dataset(df, quasi_identifiers=["age", "zip"], sensitive=["disease"], identifiers=["name"],
                 hierarchies={"age": "ordered", "zip": "ordered"})
    ha, hz = ds.hierarchies
    lo = np.array([[ha.rank_of(a[0]), hz.rank_of(z[0])] for a, z in rows])
    hi = np.array([[ha.rank_of(a[1]), hz.rank_of(z[1])] for a, z in rows])
    return Release.build(ds, lo, hi)


def test_table1_c_graph_matches_and_posteriors():
    rel = table1(TABLE1_C)
    adj = record_matches(rel)  # shape check below; first the consistency graph
    g = consistency_graph(rel)
    A = by_input(rel, g.record_adjacency().toarray().T).T  # columns re-indexed by input row
    expected_adj = np.array([[1, 0, 1, 0, 0], [1, 1, 1, 0, 0], [0, 1, 1, 0, 0], [0, 0, 0, 1, 1], [0, 0, 0, 1, 1]])
    np.testing.assert_array_equal(A, expected_adj)
    assert adj.shape == (5, 5)
    labels, sizes = match_components(rel)
    assert labels[0] == labels[1] == labels[2] and labels[3] == labels[4] and labels[0] != labels[3]
    assert sorted(sizes.tolist()) == [2, 3]
    np.testing.assert_array_equal(match_counts(rel), [2, 3, 2, 2, 2])
    m = memberships(rel, 2)
    assert m == {"A": False, "1k": True, "k1": True, "kk": True, "C": True}
    post = match_posteriors(rel)
    assert post.n_perfect_matchings() == 6
    assert len(brute_matchings(expected_adj.astype(bool))) == 6
    P = by_input(rel, post.posterior.toarray().T).T
    assert P[0, 0] == pytest.approx(4 / 6) and P[0, 2] == pytest.approx(2 / 6)
    assert P[0].sum() == pytest.approx(1.0)
    np.testing.assert_allclose(post.max_posterior, [4 / 6, 1 / 3, 4 / 6, 1 / 2, 1 / 2])
    s = post.summary()
    assert s["components"] == 2 and s["too_large_components"] == 0 and s["max_posterior"] == pytest.approx(2 / 3)
    small = match_posteriors(rel, max_component=2)  # {Alice, Bob, Carol} is now too large
    assert np.isnan(small.max_posterior[:3]).all() and small.max_posterior[3:].tolist() == [0.5, 0.5]
    assert small.n_perfect_matchings() is None and small.posterior[:3].nnz == 0
    s = small.summary()
    assert s["too_large_components"] == 1 and s["records_in_too_large_components"] == 3
    assert "too large for exact posteriors" in s["note"]


def test_table1_b_is_2_anonymous():
    rel = table1(TABLE1_B)
    np.testing.assert_array_equal(match_counts(rel), [3, 3, 3, 2, 2])
    assert all(memberships(rel, 2).values())
    assert not KAnonymity(3).check(rel).satisfied and not KConcealment(3).check(rel).satisfied


# ------------------------------------------------------------------------------- Appendix A
def _F(k):
    return list(range(1, k + 2))


@pytest.mark.parametrize("k", [2, 3, 4])
def test_appendix_a_g_k_in_every_class(k):
    rel = interval_release(_F(k), [_F(k)] * (k + 1), _F(k))
    assert all(memberships(rel, k).values())


@pytest.mark.parametrize("k", [2, 3, 4])
def test_appendix_a_g_1k_region_omega1(k):
    F = _F(k)
    rel = interval_release(F, [[1]] + [F] * (k - 1) + [F[1:]], F)
    assert memberships(rel, k) == {"A": False, "1k": True, "k1": False, "kk": False, "C": False}
    assert match_counts(rel)[0] == 1


@pytest.mark.parametrize("k", [2, 3, 4])
def test_appendix_a_g_k1_and_figure2(k):
    F = _F(k)
    rel = interval_release(F, [F[:-1]] + [F[1:]] * k, F)
    assert memberships(rel, k) == {"A": False, "1k": False, "k1": True, "kk": False, "C": False}
    deg_o, _ = consistency_degrees(rel)
    assert deg_o[0] == 1  # Figure 2: R_1 is consistent with exactly one released row


def _gkk_sets(k):
    F = _F(k)
    return [[v for v in F if v != (i % (k + 1)) + 1] for i in range(1, k + 2)]  # corrected row i = F \ {(i mod (k+1)) + 1}


@pytest.mark.parametrize("k", [2, 3, 4])
def test_appendix_a_g_kk_fixed_region_omega2(k):
    F, sets = _F(k), _gkk_sets(k)
    rel = onehot_release(F, sets)  # F \ {x} is not an interval: one-hot boxes
    assert memberships(rel, k) == {"A": False, "1k": True, "k1": True, "kk": True, "C": True}
    np.testing.assert_array_equal(match_counts(rel), [k] * (k + 1))
    M = matches_from_adjacency(set_adjacency(F, sets))  # the explicit graph, independently
    np.testing.assert_array_equal(M.sum(axis=1), [k] * (k + 1))
    np.testing.assert_array_equal(by_input(rel, record_matches(rel).toarray().T).T.astype(bool), M)


@pytest.mark.parametrize("k", [3, 4])
def test_appendix_a_omega3(k):
    F = _F(k)
    rel = interval_release(F, [F[: k - 1]] + [F] * k, F)
    assert memberships(rel, k) == {"A": False, "1k": True, "k1": False, "kk": False, "C": True}
    np.testing.assert_array_equal(match_counts(rel), [k + 1] * (k - 1) + [k, k])


def test_appendix_a_omega3_fails_for_k2():
    F = _F(2)
    rel = interval_release(F, [F[:1]] + [F] * 2, F)  # Appendix A's example at k = 2: it needs k >= 3
    assert match_counts(rel)[0] == 1 and not KConcealment(2).check(rel).satisfied


@pytest.mark.parametrize("k", [2, 3, 4])
def test_appendix_a_omega4(k):
    a = [f"a{i}" for i in range(1, k + 2)]
    b = [f"b{i}" for i in range(1, k + 1)]
    sets = [[a[0]] + b[: k - 1]] + [a] * (k - 1) + [a[1:]] + [b] * k
    rel = interval_release(a + b, sets, a[::-1] + b)
    assert memberships(rel, k) == {"A": False, "1k": True, "k1": True, "kk": True, "C": False}
    cnt = match_counts(rel)
    assert cnt[0] == 1
    M = matches_from_adjacency(set_adjacency(a + b, sets))
    np.testing.assert_array_equal(M.sum(axis=1), cnt)


@pytest.mark.parametrize("k", [2, 3])
def test_appendix_a_fixtures_match_brute_force(k):
    """Every Appendix A graph: Algorithm 4 (type level) == enumeration of perfect matchings."""
    F = _F(k)
    fixtures = [(F, [F[:-1]] + [F[1:]] * k), (F, [[1]] + [F] * (k - 1) + [F[1:]]), (F, _gkk_sets(k))]
    for values, sets in fixtures:
        adj = set_adjacency(values, sets)
        brute = np.zeros_like(adj)
        for p in brute_matchings(adj):
            brute[np.arange(len(p)), p] = True
        np.testing.assert_array_equal(matches_from_adjacency(adj), brute)
        rel = onehot_release(values, sets)
        np.testing.assert_array_equal(by_input(rel, record_matches(rel).toarray().T).T.astype(bool), brute)


# ------------------------------------------------------------------------------- Figures 3, 4
@pytest.mark.parametrize("flag_suppressed", [False, True])
def test_figure3_one_k_attack(flag_suppressed):
    vals = [1, 2, 3, 4, 5]
    df = pd.DataFrame({"q": vals})
    ds = Dataset(df, quasi_identifiers=["q"], hierarchies={"q": Hierarchy.ordered(vals, name="q")})
    lo = np.array([[0], [1], [2], [0], [0]])
    hi = np.array([[0], [1], [2], [4], [4]])
    sup = np.array([False, False, False, True, True]) if flag_suppressed else None
    rel = Release.build(ds, lo, hi, suppressed=sup)
    m = memberships(rel, 2)
    assert m["1k"] and not m["k1"] and not m["C"] and not m["kk"]
    np.testing.assert_array_equal(match_counts(rel), [1, 1, 1, 2, 2])
    res = KConcealment(2).check(rel)
    np.testing.assert_array_equal(res.per_record, [False, False, False, True, True])
    assert res.summary["per"] == "original record" and res.summary["failing_records"] == 3
    k1 = KOneAnonymity(2).check(rel)
    assert k1.summary["per"] == "released row" and len(k1.per_record) == rel.n
    np.testing.assert_array_equal(by_input(rel, k1.per_record), [False, False, False, True, True])
    post = match_posteriors(rel)
    np.testing.assert_allclose(post.max_posterior, [1, 1, 1, 0.5, 0.5])
    assert post.summary()["records_reidentified"] == 3


def test_figure4_four_cycle_but_unique_matching():
    sets = [[1], [2], [1, 2, 3], [1, 2, 4]]
    rel = interval_release([1, 2, 3, 4], sets, [3, 1, 2, 4])
    np.testing.assert_array_equal(match_counts(rel), [1, 1, 1, 1])
    deg_o, _ = consistency_degrees(rel)
    np.testing.assert_array_equal(deg_o, [3, 3, 1, 1])
    M = by_input(rel, record_matches(rel).toarray().T).T
    np.testing.assert_array_equal(M, np.eye(4))
    post = match_posteriors(rel)
    assert post.n_perfect_matchings() == 1 and len(brute_matchings(set_adjacency([1, 2, 3, 4], sets))) == 1
    np.testing.assert_array_equal(post.component_sizes, [1, 1, 1, 1])


def test_overlapping_multidimensional_counterexample():
    """Overlapping multidimensional global recoding, where the k-type models do not coincide
    with k-anonymity (contrary to the remark at the end of §4.2): D = [1, 1, 2],
    g = [{1,2}, {1,2}, {2}], k = 2 (ktype's fixture, not the paper's)."""
    rel = interval_release([1, 1, 2], [[1, 2], [1, 2], [2]], [1, 2])
    assert memberships(rel, 2) == {"A": False, "1k": True, "k1": False, "kk": False, "C": False}
    np.testing.assert_array_equal(match_counts(rel), [2, 2, 1])


# ------------------------------------------------------------------------------- suppression
def _q_dataset(vals, domain):
    return Dataset(pd.DataFrame({"q": vals}), quasi_identifiers=["q"], hierarchies={"q": Hierarchy.ordered(domain, name="q")})


def test_suppressed_rows_are_whole_domain_boxes_and_hidden_rows_equivalent():
    """A suppressed row counts as one candidate for everybody; dropping it from the published
    table (source=None, fewer rows) gives the same matches among published rows."""
    ds = _q_dataset([1, 1, 2, 2, 3, 4], [1, 2, 3, 4])
    lo = np.array([[0], [0], [1], [1], [0], [0]])
    hi = np.array([[0], [0], [1], [1], [3], [3]])
    sup = np.array([0, 0, 0, 0, 1, 1], dtype=bool)
    rel = Release.build(ds, lo, hi, suppressed=sup)
    assert KAnonymity(2).check(rel).satisfied
    deg_o, deg_r = consistency_degrees(rel)
    np.testing.assert_array_equal(deg_o, [4, 4, 4, 4, 2, 2])
    np.testing.assert_array_equal(by_input(rel, deg_r), [2, 2, 2, 2, 6, 6])
    # records 0-3 cannot move to a suppressed row: nobody else fits their boxes
    np.testing.assert_array_equal(match_counts(rel), [2, 2, 2, 2, 2, 2])
    assert KConcealment(2).check(rel).satisfied and KKAnonymity(2).check(rel).satisfied
    pub = ~rel.suppressed
    hidden = dataclasses.replace(rel, lo=rel.lo[pub], hi=rel.hi[pub], suppressed=rel.suppressed[pub], source=None)
    np.testing.assert_array_equal(match_counts(hidden), match_counts(rel))
    np.testing.assert_array_equal(consistency_degrees(hidden)[0], deg_o)
    np.testing.assert_array_equal(record_matches(hidden).toarray(), record_matches(rel).toarray()[:, pub])
    post = match_posteriors(hidden)
    np.testing.assert_allclose(post.hidden, [0, 0, 0, 0, 1, 1])
    np.testing.assert_allclose(post.posterior.toarray().sum(axis=1) + post.hidden, 1.0)
    # a release that omits record 5 altogether (source given, 5 rows): record 5 is hidden
    rel2 = Release.build(ds, lo[:5], hi[:5], suppressed=sup[:5], source=np.arange(5))
    assert KAnonymity(2).check(rel2).satisfied
    np.testing.assert_array_equal(match_counts(rel2), [2, 2, 2, 2, 2, 2])
    assert KConcealment(2).check(rel2).satisfied


def test_fewer_than_k_suppressed_rows_caveat():
    """0 < s < k: a suppressed record outside every published box has only s candidates, so
    the release is k-anonymous in the 'suppressed rows removed' sense but not (1,k)."""
    ds = _q_dataset([1, 1, 2, 2, 3], [1, 2, 3])
    lo = np.array([[0], [0], [1], [1], [0]])
    hi = np.array([[0], [0], [1], [1], [2]])
    rel = Release.build(ds, lo, hi, suppressed=np.array([0, 0, 0, 0, 1], dtype=bool))
    assert KAnonymity(2).check(rel).satisfied
    np.testing.assert_array_equal(match_counts(rel), [2, 2, 2, 2, 1])
    assert not OneKAnonymity(2).check(rel).satisfied and not KConcealment(2).check(rel).satisfied


# ------------------------------------------------------------------------------- errors, flags
def test_not_a_generalization_is_reported():
    vals = [1, 2, 3]
    df = pd.DataFrame({"q": vals})
    ds = Dataset(df, quasi_identifiers=["q"], hierarchies={"q": Hierarchy.ordered(vals, name="q")})
    rel = Release.build(ds, np.array([[0], [0], [0]]), np.array([[0], [1], [2]]))
    bad = dataclasses.replace(rel, hi=np.array([[0], [0], [1]], dtype=np.int32))
    with pytest.raises(DataError, match=r"does not cover its source record .*column 'q': leaf rank 1 outside \[0, 0\]"):
        KConcealment(1).check(bad)
    with pytest.raises(DataError, match="not a generalization"):
        KConcealment(1).check(dataclasses.replace(bad, source=None))
    # degrees need no perfect matching: record 2 is covered by no released row
    res = OneKAnonymity(1).check(bad)
    assert not res.satisfied and res.summary["min_degree"] == 0
    with pytest.raises(DataError, match="only 3"):
        consistency_graph(dataclasses.replace(rel, lo=np.zeros((4, 1), np.int32), hi=np.full((4, 1), 2, np.int32),
                                              suppressed=np.zeros(4, bool), source=None))
    with pytest.raises(DataError, match="no perfect matching"):
        matches_from_adjacency(np.array([[1, 1], [0, 0]], dtype=bool))


def test_parameters_and_flags():
    with pytest.raises(InvalidParameterError, match="The 'k' parameter of KConcealment must be an int in the range"):
        KConcealment(0)
    with pytest.raises(InvalidParameterError, match="max_component"):
        match_posteriors(table1(TABLE1_C), max_component=21)
    for cls in (OneKAnonymity, KOneAnonymity, KKAnonymity, KConcealment):
        assert cls.monotone and cls.monotone_in_k and not cls.per_class and not cls.needs_sensitive
    assert KOneAnonymity.per == "released row" and KConcealment.per == "original record"
    assert str(KKAnonymity(3)) == "KKAnonymity(k=3)"


# ------------------------------------------------------------------------------- scale
def test_adult_30k_release_checks_in_seconds(capsys):
    """A 30,162-row Adult release, full-domain levels (0,1,1,1,1,1,1,1) with classes < 5
    suppressed: 5-anonymous, hence (5,5) and 5-concealed. Times are printed, not asserted."""
    import ktype

    ds = ktype.load_adult()
    lev = [0, 1, 1, 1, 1, 1, 1, 1]
    lo = np.empty_like(ds.X)
    hi = np.empty_like(ds.X)
    for j, (h, lv) in enumerate(zip(ds.hierarchies, lev)):
        llo, lhi = h.level_intervals(lv)
        lo[:, j], hi[:, j] = llo[ds.X[:, j]], lhi[ds.X[:, j]]
    from ktype._grouping import group_rows

    ids, _ = group_rows(lo, hi)
    sup = np.bincount(ids)[ids] < 5
    rel = Release.build(ds, lo, hi, suppressed=sup, recoding="full-domain", levels=np.array(lev))
    assert KAnonymity(5).check(rel).satisfied and sup.sum() >= 5
    times = {}
    for model in (KConcealment(5), KKAnonymity(5)):
        t0 = time.perf_counter()
        res = model.check(rel)
        times[str(model)] = time.perf_counter() - t0
        assert res.satisfied
    shuffled = dataclasses.replace(rel, source=None)
    t0 = time.perf_counter()
    cnt_none = match_counts(shuffled)
    times["match_counts(source=None)"] = time.perf_counter() - t0
    np.testing.assert_array_equal(cnt_none, match_counts(rel))
    t0 = time.perf_counter()
    post = match_posteriors(rel)
    times["match_posteriors"] = time.perf_counter() - t0
    assert post.summary()["records"] == ds.n
    with capsys.disabled():
        print(f"\n[scale] Adult n={ds.n}, suppressed={int(sup.sum())}: " + ", ".join(f"{k} {v:.2f}s" for k, v in times.items()))
