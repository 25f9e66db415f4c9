"""SUDA: minimal sample uniques against brute-force enumeration of every attribute subset."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ktype
from ktype.exceptions import InvalidParameterError
from ktype.risk import MAX_SUDA_SIZE, suda


def _bruteforce_msus(df: pd.DataFrame, cols: list[str], max_size: int) -> dict[tuple, list[int]]:
    """Record i has MSU S iff unique on S and on no proper non-empty subset of S."""
    n = len(df)
    unique = {}
    for k in range(1, len(cols) + 1):
        for S in itertools.combinations(cols, k):
            size = df.groupby(list(S), dropna=False)[S[0]].transform("size").to_numpy() if n else np.zeros(0)
            unique[S] = size == 1
    out: dict[tuple, list[int]] = {}
    for k in range(1, min(max_size, len(cols)) + 1):
        for S in itertools.combinations(cols, k):
            rows = []
            for i in range(n):
                if not unique[S][i]:
                    continue
                proper = [T for m in range(1, k) for T in itertools.combinations(S, m)]
                if not any(unique[T][i] for T in proper):
                    rows.append(i)
            if rows:
                out[S] = rows
    return out


table_st = st.integers(1, 25).flatmap(lambda n: st.lists(
    st.tuples(st.integers(0, 2), st.sampled_from("ab"), st.integers(0, 3), st.sampled_from(["u", "v", "w"])),
    min_size=n, max_size=n))


@settings(max_examples=60, deadline=None)
@given(table_st, st.integers(1, 4))
def test_msus_equal_bruteforce(rows, max_size):
    cols = ["p", "q", "r", "s"]
    df = pd.DataFrame(rows, columns=cols)
    res = suda(df, quasi_identifiers=cols, max_size=max_size)
    expect = _bruteforce_msus(df, cols, max_size)
    assert {k: v.tolist() for k, v in res.msus.items()} == expect
    # scores from the definition: MSU of size k scores prod_{i=k}^{min(M, ATT-1)} (ATT - i)
    att = len(cols)
    score = np.zeros(len(df))
    contrib = dict.fromkeys(cols, 0.0)
    for S, recs in expect.items():
        top = min(max_size, att - 1)
        w = math.prod(att - i for i in range(len(S), top + 1))
        score[recs] += w
        for a in S:
            contrib[a] += w * len(recs)
    assert np.allclose(res.score, score)
    total = score.sum()
    for a in cols:
        assert res.contribution[a] == pytest.approx(100 * contrib[a] / total if total else 0.0)
    counts = np.zeros((len(df), res.max_size), dtype=int)
    for S, recs in expect.items():
        counts[recs, len(S) - 1] += 1
    assert (res.msu_count == counts).all()


def test_small_example_scores():
    # Elliot-style toy: ATT = 3, M = 2
    df = pd.DataFrame({"a": [1, 1, 1, 2], "b": ["x", "x", "y", "y"], "c": [0, 1, 0, 0]})
    res = suda(df, quasi_identifiers=["a", "b", "c"], max_size=2)
    # record 3 is unique on a alone (size 1: (3-1)(3-2) = 2); record 2 unique on (a,b)? no: (1,y) unique -> size 2: 1
    assert res.msus[("a",)].tolist() == [3]
    assert res.score[3] == 2.0
    assert res.min_msu_size.tolist()[3] == 1


def test_refuses_large_max_size():
    df = pd.DataFrame({"a": [1, 2]})
    with pytest.raises(InvalidParameterError, match="refused"):
        suda(df, quasi_identifiers=["a"], max_size=MAX_SUDA_SIZE + 1)
    with pytest.raises(InvalidParameterError, match="'max_size' parameter"):
        suda(df, quasi_identifiers=["a"], max_size=0)


def test_adult_runs_and_release_lowers_scores():
    ds = ktype.load_adult(n=3000)
    before = suda(ds, max_size=3)
    rel = ktype.anonymize(ds, k=5, algorithm="mondrian")
    after = suda(rel, max_size=3)
    assert after.score.sum() < before.score.sum()
    assert before.summary()["records_with_msu"] == int((before.score > 0).sum())
