"""Algorithm 2 by expansions and a trie search (``expand_row_greedy``) against the previous
implementation (``k1_expansion(..., reference=True)``) and a brute-force greedy.

The two must give the same boxes (the release of every pipeline built on Algorithm 2);
the index sets may differ only in which records inside the final closure were taken.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ktype.algorithms.local import Problem, k1_expansion
from ktype.data.dataset import Dataset
from ktype.data.hierarchy import Hierarchy

from .test_local import random_dataset


def tie_heavy_dataset(seed: int, n: int, r: int, m: int) -> Dataset:
    """Few values per attribute (many duplicates and equal scores) and mixed hierarchies:
    interval trees, unbalanced subset trees and flat ones."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({f"a{j}": rng.integers(0, m, n) for j in range(r)})
    df["s"] = rng.integers(0, 2, n)
    hier = {}
    for j in range(r):
        if j % 3 == 0:
            hier[f"a{j}"] = Hierarchy.intervals(range(m), [2] if m > 2 else [], name=f"a{j}")
        elif j % 3 == 1:
            hier[f"a{j}"] = Hierarchy.from_subsets(list(range(m)), [[0, 1]], name=f"a{j}")
        else:
            hier[f"a{j}"] = Hierarchy.flat(list(range(m)), name=f"a{j}")
    return Dataset(df, quasi_identifiers=[f"a{j}" for j in range(r)], sensitive=["s"], hierarchies=hier)


def assert_same_as_reference(p: Problem, k: int) -> None:
    """k1_expansion (the greedy once per distinct record) gives the boxes of the greedy run on
    every row and of the reference implementation, and index sets that close to them."""
    LO, HI, S = k1_expansion(p, k, return_sets=True)
    LOr, HIr, _ = k1_expansion(p, k, return_sets=True, reference=True)
    assert (LO == LOr).all() and (HI == HIr).all()
    LOe, HIe, _ = _alg2_every_row(p, k)
    assert (LO == LOe).all() and (HI == HIe).all()
    for i in range(p.n):  # S_i: i and k-1 distinct others, whose closure is the box
        assert S[i, 0] == i and len(set(S[i].tolist())) == k
        lo, hi = p.closure_of(S[i])
        assert (lo == LO[i]).all() and (hi == HI[i]).all()


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(2, 40),
    r=st.integers(1, 4),
    m=st.integers(3, 9),
    measure=st.sampled_from(["loss_metric", "entropy"]),
    data=st.data(),
)
def test_alg2_equals_reference_on_random_tables(seed, n, r, m, measure, data):
    k = data.draw(st.integers(1, min(n, 8)))
    ds = tie_heavy_dataset(seed, n, r, m) if seed % 2 else random_dataset(seed, n=n, r=r, m=max(m, 5))
    assert_same_as_reference(Problem.from_dataset(ds, measure), k)


@pytest.mark.parametrize("measure", ["loss_metric", "entropy"])
@pytest.mark.parametrize("seed", range(4))
def test_alg2_steps_are_greedy(seed, measure):
    """Brute force: every added record increases d(S) least among the records not in S."""
    ds = random_dataset(seed, n=16, r=3, m=7)
    p = Problem.from_dataset(ds, measure)
    k = 5
    _, _, S = k1_expansion(p, k, return_sets=True)
    for i in range(p.n):
        chosen = [int(S[i, 0])]
        for t in range(1, k):
            base = p.d(chosen)
            deltas = {j: p.d(chosen + [j]) - base for j in range(p.n) if j not in chosen}
            j = int(S[i, t])
            assert deltas[j] <= min(deltas.values()) + 1e-9
            chosen.append(j)


ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "experiments" / "kconcealment"))
from kc_data import adult  # noqa: E402  (experiments/kconcealment: UCI Adult from data/adult_uci)


@pytest.mark.parametrize("measure", ["loss_metric", "entropy"])
@pytest.mark.parametrize(("n", "k", "seed"), [(800, 5, 0), (800, 30, 1), (1500, 10, 2)])
def test_alg2_equals_reference_on_adult_samples(n, k, seed, measure):
    p = Problem.from_dataset(adult(n=n, seed=seed), measure)
    assert_same_as_reference(p, k)


def assert_same_knn(p: Problem, q: int) -> None:
    from ktype.algorithms.local._kernels import pair_knn, pair_knn_distinct, pair_knn_trie, trie_order

    idx_r, w_r = pair_knn(p.X, q, *p.args)
    for search in (pair_knn_trie, pair_knn_distinct):  # per record; once per distinct record
        idx, w = search(p.X, q, *p.args, *trie_order(p.X))
        assert (idx == idx_r).all() and (w == w_r).all(), search.__name__


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(2, 40),
    r=st.integers(1, 4),
    m=st.integers(3, 9),
    measure=st.sampled_from(["loss_metric", "entropy"]),
    data=st.data(),
)
def test_pair_knn_trie_equals_scan_on_random_tables(seed, n, r, m, measure, data):
    q = data.draw(st.integers(1, n - 1)) if n > 1 else 1
    ds = tie_heavy_dataset(seed, n, r, m) if seed % 2 else random_dataset(seed, n=n, r=r, m=max(m, 5))
    if n > 1:
        assert_same_knn(Problem.from_dataset(ds, measure), q)


@pytest.mark.parametrize("measure", ["loss_metric", "entropy"])
def test_pair_knn_trie_equals_scan_on_adult_sample(measure):
    p = Problem.from_dataset(adult(n=1500, seed=3), measure)
    for q in (1, 18, 98):
        assert_same_knn(p, q)


def _alg2_every_row(p: Problem, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The greedy kernel on every row, no sharing between identical records."""
    from ktype.algorithms.local._kernels import alg2_all, trie_order

    lexorder = np.lexsort(p.X.T[::-1]).astype(np.int64)
    lexpos = np.empty_like(lexorder)
    lexpos[lexorder] = np.arange(len(lexorder))
    rows = np.arange(p.n, dtype=np.int64)
    LO, HI, S, _ = alg2_all(p.X, int(k), *p.args, lexorder, lexpos, *trie_order(p.X), rows, False)
    return LO, HI, S


def test_alg2_rows_of_a_flagged_record_run_one_by_one(monkeypatch):
    """A record whose greedy met an exact zero-score tie has its duplicates run on their own."""
    import ktype.algorithms.local.kconcealment as kc
    from ktype.algorithms.local._kernels import alg2_all

    calls: list[np.ndarray] = []

    def flag_all(*args):
        LO, HI, S, tie = alg2_all(*args)
        calls.append(np.asarray(args[-2]).copy())
        return LO, HI, S, np.ones_like(tie)

    p = Problem.from_dataset(tie_heavy_dataset(7, 40, 2, 3), "entropy")
    first = np.unique(p.X, axis=0, return_index=True)[1]
    monkeypatch.setattr(kc, "alg2_all", flag_all)
    LO, HI, S = k1_expansion(p, 4, return_sets=True)
    assert len(calls) == 2
    assert sorted(calls[0].tolist()) == sorted(first.tolist())
    assert sorted(calls[1].tolist()) == sorted(set(range(p.n)) - set(first.tolist()))
    LOe, HIe, Se = _alg2_every_row(p, 4)
    assert (LO == LOe).all() and (HI == HIe).all() and (S[calls[1]] == Se[calls[1]]).all()
