"""Top-down specialization (Fung, Wang & Yu, ICDE 2005; survey §4.4): the score, the cut, validity
and maximality, checked by code independent of ktype.algorithms.tds."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ktype
from ktype.algorithms import run
from ktype.algorithms.tds import info_gain
from ktype.data.hierarchy import Hierarchy
from ktype.exceptions import DataError
from ktype.models.kanonymity import KAnonymity

JOB = Hierarchy.from_table([["eng", "tech", "ANY"], ["dev", "tech", "ANY"], ["law", "prof", "ANY"],
                            ["doc", "prof", "ANY"]], name="job")


def _entropy(labels) -> float:
    c = Counter(labels)
    n = len(labels)
    return -sum(v / n * math.log2(v / n) for v in c.values())


def test_info_gain_equals_the_formula():
    rng = np.random.default_rng(0)
    for _ in range(20):
        y = rng.integers(0, 3, 40)
        child = rng.integers(0, 4, 40)
        want = _entropy(y.tolist()) - sum((child == c).sum() / 40 * _entropy(y[child == c].tolist())
                                          for c in set(child.tolist()))
        assert info_gain(y, child, 3) == pytest.approx(want)


def _dataset(rows) -> ktype.Dataset:
    df = pd.DataFrame(rows, columns=["job", "age", "cls"])
    return ktype.Dataset(df, quasi_identifiers=["job", "age"], sensitive=["cls"], hierarchies={"job": JOB})


def test_first_specialization_is_the_highest_score():
    # job separates the class perfectly (tech -> Y, prof -> N); age does not
    rows = [("eng", 30, "Y"), ("dev", 31, "Y"), ("eng", 40, "Y"), ("dev", 41, "Y"),
            ("law", 30, "N"), ("doc", 31, "N"), ("law", 40, "N"), ("doc", 41, "N")]
    rel = run("tds", _dataset(rows), KAnonymity(4), zero_gain=False)
    pub = rel.to_pandas()
    assert sorted(set(pub["job"])) == ["prof", "tech"]  # ANY -> {tech, prof}: gain 1 bit, no loss beyond 4
    assert set(pub["age"]) == {"*"}  # [30-41], the whole domain: a split of age would leave classes of 2 < 4
    assert rel.provenance["tds"]["information_gain"] == pytest.approx(1.0)
    # with k = 2 both attributes can be specialized; ties of score are broken by QI order
    rel2 = run("tds", _dataset(rows), KAnonymity(2), zero_gain=False)
    assert KAnonymity(2).check(rel2).satisfied and rel2.provenance["tds"]["specializations"] >= 1


def test_no_class_attribute_is_refused():
    df = pd.DataFrame({"job": ["eng", "dev"], "age": [1, 2]})
    ds = ktype.Dataset(df, quasi_identifiers=["job", "age"], hierarchies={"job": JOB})
    with pytest.raises(DataError, match="class attribute"):
        run("tds", ds, KAnonymity(1))


def _min_class(cells: pd.DataFrame) -> int:
    return int(cells.value_counts().min())


def _specializations(pub_lo, pub_hi, X, hs):
    """Every one-value specialization of a release's cut (independent of tds.py): yields the
    new (lo, hi) matrices. Tree values go to their children; ordered intervals are split at
    every threshold between present values (and a one-value interval is tightened)."""
    n, r = X.shape
    for j, h in enumerate(hs):
        for a, b in sorted(set(zip(pub_lo[:, j].tolist(), pub_hi[:, j].tolist()))):
            if a == b:
                continue
            rows = (pub_lo[:, j] == a) & (pub_hi[:, j] == b)
            x = X[rows, j]
            if h.is_tree:
                node = int(h.node_of(np.array([a]), np.array([b]))[0])
                kids = [c for c in range(len(h.node_parent)) if h.node_parent[c] == node]
                if not kids:
                    continue
                lo2, hi2 = pub_lo.copy(), pub_hi.copy()
                for c in kids:
                    inside = rows & (X[:, j] >= h.node_lo[c]) & (X[:, j] <= h.node_hi[c])
                    lo2[inside, j], hi2[inside, j] = h.node_lo[c], h.node_hi[c]
                yield lo2, hi2
            else:
                vals = sorted(set(x.tolist()))
                cuts = [(vals[: i + 1], vals[i + 1:]) for i in range(len(vals) - 1)] or [(vals, [])]
                for left, right in cuts:
                    lo2, hi2 = pub_lo.copy(), pub_hi.copy()
                    for part in (left, right):
                        if part:
                            inside = rows & np.isin(X[:, j], part)
                            lo2[inside, j], hi2[inside, j] = min(part), max(part)
                    yield lo2, hi2


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["eng", "dev", "law", "doc"]), st.integers(20, 26),
                          st.sampled_from(["Y", "N"])), min_size=2, max_size=24),
       st.integers(1, 4))
def test_release_is_a_k_anonymous_maximal_cut(rows, k):
    ds = _dataset(rows)
    k = min(k, ds.n)
    rel = run("tds", ds, KAnonymity(k))
    X = ds.X[rel.source]
    # k-anonymous, recomputed with pandas
    cells = pd.DataFrame(np.hstack([rel.lo, rel.hi]))
    assert _min_class(cells) >= k
    # a global recoding: each original value has one published value per attribute
    for j in range(ds.r):
        pairs = set(zip(X[:, j].tolist(), rel.lo[:, j].tolist(), rel.hi[:, j].tolist()))
        assert len({p[0] for p in pairs}) == len(pairs)
    # maximal (zero_gain=True): every further specialization of one value breaks k-anonymity
    for lo2, hi2 in _specializations(rel.lo.astype(np.int64), rel.hi.astype(np.int64), X, ds.hierarchies):
        assert _min_class(pd.DataFrame(np.hstack([lo2, hi2]))) < k


def test_k1_returns_the_original_values():
    rows = [("eng", 20, "Y"), ("dev", 21, "N"), ("law", 22, "Y"), ("law", 22, "N")]
    ds = _dataset(rows)
    rel = run("tds", ds, KAnonymity(1))
    X = ds.X[rel.source]
    assert np.array_equal(rel.lo, X) and np.array_equal(rel.hi, X)


def _options(lo, hi, X, y, hs, k):
    """Every valid specialization of the current cut, recomputed with pandas and Counter:
    (j, (a, b), gain, A_v, lo2, hi2); tree values split into their children, ordered values at
    the valid threshold of highest gain (ties: the lowest)."""
    out = []
    cur = pd.DataFrame(np.hstack([lo, hi]))
    A = _min_class(cur)
    for j in range(len(hs)):
        by_value: dict = {}
        for lo2, hi2 in _specializations(lo, hi, X, hs):
            changed = np.flatnonzero((lo2 != lo).any(axis=1) | (hi2 != hi).any(axis=1))
            if len(changed) == 0:
                continue
            jj = int(np.flatnonzero((lo2[changed] != lo[changed]).any(axis=0) | (hi2[changed] != hi[changed]).any(axis=0))[0])
            if jj != j:
                continue
            v = (int(lo[changed[0], j]), int(hi[changed[0], j]))
            rows = np.flatnonzero((lo[:, j] == v[0]) & (hi[:, j] == v[1]))
            parts = [tuple(c) for c in np.column_stack([lo2[rows, j], hi2[rows, j]]).tolist()]
            gain = _entropy(y[rows].tolist()) - sum(
                parts.count(p) / len(rows) * _entropy([y[r] for r, q in zip(rows, parts) if q == p]) for p in set(parts))
            gain = 0.0 if gain <= 1e-12 else gain
            A_v = _min_class(pd.DataFrame(np.hstack([lo2, hi2])))
            if A_v >= k:
                by_value.setdefault(v, []).append((gain, A_v, lo2, hi2))
        for v, opts in by_value.items():
            gain, A_v, lo2, hi2 = opts[0] if hs[j].is_tree else max(opts, key=lambda o: round(o[0], 12))  # first max (equal up to rounding): lowest threshold
            out.append((j, v, gain, A_v, A, lo2, hi2))
    return out


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["eng", "dev", "law", "doc"]), st.integers(20, 25),
                          st.sampled_from(["Y", "N", "M"])), min_size=2, max_size=20),
       st.integers(1, 3))
def test_every_step_is_the_best_score_replayed_independently(rows, k):
    """Replay the recorded sequence: each step is a valid specialization of highest
    InfoGain/(AnonyLoss+1), with the recorded gain and anonymity."""
    ds = _dataset(rows)
    k = min(k, ds.n)
    rel = run("tds", ds, KAnonymity(k))
    X = ds.X.astype(np.int64)
    y = np.array(ds.data["cls"].tolist())
    lo = np.zeros_like(X)
    hi = np.tile(ds.domain_sizes - 1, (ds.n, 1)).astype(np.int64)
    for step in rel.provenance["tds"]["sequence"]:
        opts = _options(lo, hi, X, y, ds.hierarchies, k)
        scores = [g / (A - A_v + 1) for (_, _, g, A_v, A, _, _) in opts]
        assert step["score"] == pytest.approx(max(scores), abs=1e-9)
        j = ds.quasi_identifiers.index(step["attribute"])
        match = [o for o in opts if o[0] == j and ds.hierarchies[j].label_interval(*o[1]) == step["value"]]
        assert len(match) == 1
        _, _, g, A_v, A, lo, hi = match[0]
        assert step["info_gain"] == pytest.approx(g, abs=1e-9) and step["anonymity_after"] == A_v
    assert not [o for o in _options(lo, hi, X, y, ds.hierarchies, k)]  # maximal
    order = np.argsort(rel.source)
    assert np.array_equal(rel.lo[order], lo) and np.array_equal(rel.hi[order], hi)
