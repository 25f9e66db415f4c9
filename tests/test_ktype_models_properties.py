"""Property tests of the k-type checkers against brute force (Tassa, Mazza & Gionis, TDP 2012:
Propositions 5 and 7, the remark at the end of §4.2, Algorithm 4 and Proposition 10 of §6.2.1).

Random tiny tables (n <= 7) with random local generalizations: the type-compressed,
flow-based Algorithm 4 must agree with the enumeration of all perfect matchings
(``itertools.permutations``, tests only); posteriors and matching counts must equal the
enumerated ones; a shuffled release read without ``source`` must give identical results;
the class inclusions and monotonicity properties of the paper must hold.
"""

from __future__ import annotations

import dataclasses
import itertools
from fractions import Fraction

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from ktype import Dataset, Hierarchy
from ktype.attacks import match_posteriors
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

SETTINGS = settings(max_examples=60, deadline=None)


@st.composite
def tiny_releases(draw, suppression: bool = True):
    n = draw(st.integers(1, 7))
    r = draw(st.integers(1, 2))
    sizes = [draw(st.integers(1, 4)) for _ in range(r)]
    X = np.array([[draw(st.integers(0, m - 1)) for m in sizes] for _ in range(n)], dtype=np.int64)
    lo = np.empty_like(X)
    hi = np.empty_like(X)
    for i in range(n):
        for c in range(r):
            lo[i, c] = draw(st.integers(0, X[i, c]))
            hi[i, c] = draw(st.integers(X[i, c], sizes[c] - 1))
    sup = np.array([draw(st.booleans()) for _ in range(n)]) if suppression else np.zeros(n, dtype=bool)
    sup &= np.array([draw(st.integers(0, 3)) == 0 for _ in range(n)])  # suppression is rarer
    df = pd.DataFrame({f"c{c}": X[:, c] for c in range(r)})
    ds = Dataset(df, quasi_identifiers=list(df.columns),
                 hierarchies={f"c{c}": Hierarchy.ordered(range(sizes[c]), name=f"c{c}") for c in range(r)})
    return Release.build(ds, lo, hi, suppressed=sup)


def adjacency(rel: Release) -> np.ndarray:
    """Record-level consistency matrix (dataset order x release order), straight from the definition."""
    X = rel.dataset.X
    return ((rel.lo[None, :, :] <= X[:, None, :]) & (X[:, None, :] <= rel.hi[None, :, :])).all(axis=2)


def enumerate_matchings(adj: np.ndarray) -> list[tuple[int, ...]]:
    n = adj.shape[0]
    return [p for p in itertools.permutations(range(n)) if all(adj[i, p[i]] for i in range(n))]


def brute_matches(adj: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    perms = enumerate_matchings(adj)
    cnt = np.zeros(adj.shape, dtype=np.int64)
    for p in perms:
        cnt[np.arange(adj.shape[0]), p] += 1
    return cnt > 0, cnt, len(perms)


def brute_components(adj: np.ndarray, mate: np.ndarray) -> np.ndarray:
    """Same-SCC relation of the paper's graph H (u_i -> u_j iff (u_i, v_mate[j]) is an edge)."""
    n = adj.shape[0]
    reach = adj[:, mate].copy() | np.eye(n, dtype=bool)
    for m in range(n):  # Floyd–Warshall closure (test only)
        reach |= reach[:, [m]] & reach[[m], :]
    return reach & reach.T


@SETTINGS
@given(tiny_releases())
def test_matches_equal_brute_force(rel):
    adj = adjacency(rel)
    match, cnt, total = brute_matches(adj)
    np.testing.assert_array_equal(record_matches(rel).toarray().astype(bool), match)
    np.testing.assert_array_equal(match_counts(rel), match.sum(axis=1))
    np.testing.assert_array_equal(matches_from_adjacency(adj), match)
    deg_o, deg_r = consistency_degrees(rel)
    np.testing.assert_array_equal(deg_o, adj.sum(axis=1))
    np.testing.assert_array_equal(deg_r, adj.sum(axis=0))
    # posteriors: exact fractions of enumerated matchings
    post = match_posteriors(rel, max_component=7)
    assert post.n_perfect_matchings() == total
    P = post.posterior.toarray()
    for i, j in zip(*np.nonzero(cnt)):
        assert abs(P[i, j] - float(Fraction(int(cnt[i, j]), total))) < 1e-12
    assert (P[~match] == 0).all()
    np.testing.assert_allclose(post.max_posterior, (cnt / total).max(axis=1))
    # components: record-level SCCs of H built from the released (source) matching
    mate = np.empty(rel.n, dtype=np.int64)
    mate[rel.source] = np.arange(rel.n)
    same = brute_components(adj, mate)
    labels, sizes = match_components(rel)
    np.testing.assert_array_equal(labels[:, None] == labels[None, :], same)
    np.testing.assert_array_equal(sizes[labels], same.sum(axis=1))


@SETTINGS
@given(tiny_releases(), st.randoms(use_true_random=False))
def test_shuffled_release_without_source_gives_same_results(rel, rnd):
    perm = np.array(rnd.sample(range(rel.n), rel.n), dtype=np.int64)
    shuffled = dataclasses.replace(rel, lo=rel.lo[perm], hi=rel.hi[perm], suppressed=rel.suppressed[perm], source=None)
    np.testing.assert_array_equal(match_counts(shuffled), match_counts(rel))
    np.testing.assert_array_equal(record_matches(shuffled).toarray(), record_matches(rel).toarray()[:, perm])
    d0, dr = consistency_degrees(shuffled)
    e0, er = consistency_degrees(rel)
    np.testing.assert_array_equal(d0, e0)
    np.testing.assert_array_equal(dr, er[perm])
    np.testing.assert_array_equal(match_components(shuffled)[0], match_components(rel)[0])
    for k in range(1, rel.n + 1):
        for model in (OneKAnonymity(k), KKAnonymity(k), KConcealment(k)):
            a, b = model.check(shuffled), model.check(rel)
            assert a.satisfied == b.satisfied and (a.per_record == b.per_record).all() and a.summary == b.summary
        np.testing.assert_array_equal(KOneAnonymity(k).check(shuffled).per_record, KOneAnonymity(k).check(rel).per_record[perm])
    np.testing.assert_allclose(match_posteriors(shuffled).posterior.toarray(), match_posteriors(rel).posterior.toarray()[:, perm])


@SETTINGS
@given(tiny_releases(suppression=False))
def test_class_inclusions(rel):
    """Prop. 5 and 7: A^k ⊆ (k,k) = (1,k) ∩ (k,1); A^k ⊆ C^k ⊆ (1,k); all monotone in k."""
    prev = None
    for k in range(1, rel.n + 1):
        m = {name: model(k).check(rel).satisfied for name, model in
             (("A", KAnonymity), ("1k", OneKAnonymity), ("k1", KOneAnonymity), ("kk", KKAnonymity), ("C", KConcealment))}
        if m["A"]:
            assert m["kk"] and m["C"]
        if m["C"]:
            assert m["1k"]
        assert m["kk"] == (m["1k"] and m["k1"])
        if prev is not None:
            for name in ("1k", "k1", "kk", "C"):
                assert prev[name] or not m[name]  # member at k => member at k-1
        prev = m
    if rel.n:
        assert all(model(1).check(rel).satisfied for model in (OneKAnonymity, KOneAnonymity, KKAnonymity, KConcealment))


@SETTINGS
@given(tiny_releases(), st.data())
def test_monotone_under_further_generalization(rel, data):
    """Enlarging released boxes keeps (1,k), (k,1), (k,k), C^k; matches only grow (it only adds
    edges to the consistency graph, so every perfect matching survives)."""
    sizes = rel.dataset.domain_sizes
    lo, hi = rel.lo.copy(), rel.hi.copy()
    for j in range(rel.n):
        for c in range(rel.r):
            lo[j, c] = data.draw(st.integers(0, int(lo[j, c])))
            hi[j, c] = data.draw(st.integers(int(hi[j, c]), int(sizes[c]) - 1))
    wider = dataclasses.replace(rel, lo=lo, hi=hi)
    before = record_matches(rel).toarray().astype(bool)
    after = record_matches(wider).toarray().astype(bool)
    assert (after | ~before).all()
    for k in range(1, rel.n + 1):
        for model in (OneKAnonymity(k), KOneAnonymity(k), KKAnonymity(k), KConcealment(k)):
            assert not model.check(rel).satisfied or model.check(wider).satisfied


@SETTINGS
@given(st.integers(2, 6), st.integers(1, 3), st.data())
def test_single_dimensional_global_recoding_all_models_coincide(n, k, data):
    """With a partition per attribute and R̄_i = g(R_i) (single-dimensional global recoding),
    all five classes coincide (the remark at the end of §4.2)."""
    r = data.draw(st.integers(1, 2))
    m = [data.draw(st.integers(1, 5)) for _ in range(r)]
    X = np.array([[data.draw(st.integers(0, mc - 1)) for mc in m] for _ in range(n)])
    lo, hi = np.empty_like(X), np.empty_like(X)
    for c in range(r):
        cuts = sorted(set(data.draw(st.lists(st.integers(1, max(m[c] - 1, 1)), max_size=3)))) if m[c] > 1 else []
        block = np.searchsorted(np.array(cuts, dtype=int), X[:, c], side="right")
        edges = [0, *cuts, m[c]]
        lo[:, c] = np.array(edges)[block]
        hi[:, c] = np.array(edges)[block + 1] - 1
    df = pd.DataFrame({f"c{c}": X[:, c] for c in range(r)})
    ds = Dataset(df, quasi_identifiers=list(df.columns),
                 hierarchies={f"c{c}": Hierarchy.ordered(range(m[c]), name=f"c{c}") for c in range(r)})
    rel = Release.build(ds, lo, hi)
    k = min(k, n)
    verdicts = {model(k).check(rel).satisfied for model in (KAnonymity, OneKAnonymity, KOneAnonymity, KKAnonymity, KConcealment)}
    assert len(verdicts) == 1


@SETTINGS
@given(st.integers(1, 6), st.data())
def test_matches_from_adjacency_unaligned(n, data):
    """Random square graphs containing a random (non-identity) perfect matching."""
    perm = np.array(data.draw(st.permutations(range(n))))
    adj = np.array([[data.draw(st.integers(0, 2)) == 0 for _ in range(n)] for _ in range(n)])
    adj[np.arange(n), perm] = True
    match, _, _ = brute_matches(adj)
    np.testing.assert_array_equal(matches_from_adjacency(adj), match)


def test_type_compression_is_used():
    """Duplicated records and boxes collapse to types (what makes 30k rows fast)."""
    df = pd.DataFrame({"a": [0, 0, 0, 1, 1, 2] * 5})
    ds = Dataset(df, quasi_identifiers=["a"], hierarchies={"a": Hierarchy.ordered([0, 1, 2], name="a")})
    lo = np.where(ds.X < 2, 0, 2)
    hi = np.where(ds.X < 2, 1, 2)
    rel = Release.build(ds, lo, hi)
    g = consistency_graph(rel)
    assert (g.n_orig_types, g.n_box_types, g.n_edges) == (3, 2, 3)
    np.testing.assert_array_equal(match_counts(rel), np.where(ds.X[:, 0] < 2, 25, 5))
