"""The agglomerative clustering kernel (``agglomerative_clusters``) against the frozen copy of
the implementation before #13 item 6 (``_agglo_reference.py``): same labels, hence the same
releases, with and without Algorithm 8.

The rewrite prunes distance evaluations with a bound that is exact in floating point and
replaces the scan for the closest pair by a heap with the scan's tie rule, so every merge --
ties included -- must be the same. Tie-heavy tables (few values, flat and subset
hierarchies), both measures (EM is not monotone: distances can be negative), the fallback
without the closure-cost table, and Adult samples.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ktype.algorithms.local import Problem, agglomerative_clusters, l_diverse_merge
from ktype.algorithms.local.clustering import _agglo, _compact

from ._agglo_reference import reference_agglo
from .test_local import random_dataset
from .test_local_alg2 import tie_heavy_dataset


def reference_clusters(p: Problem, k: int, ctab: np.ndarray | None = None) -> np.ndarray:
    ctab = p.closure_cost_table() if ctab is None else ctab
    return _compact(reference_agglo(p.X, int(k), *p.args, ctab))


def assert_same_as_reference(p: Problem, k: int) -> None:
    lab = agglomerative_clusters(p, k)
    ref = reference_clusters(p, k)
    assert np.array_equal(lab, ref)
    assert np.bincount(lab).min() >= min(k, p.n)


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(2, 60),
    r=st.integers(1, 4),
    m=st.integers(3, 9),
    measure=st.sampled_from(["loss_metric", "entropy"]),
    data=st.data(),
)
def test_agglomerative_equals_reference_on_random_tables(seed, n, r, m, measure, data):
    k = data.draw(st.integers(1, min(n, 12)))
    ds = tie_heavy_dataset(seed, n, r, m) if seed % 2 else random_dataset(seed, n=n, r=r, m=max(m, 5))
    assert_same_as_reference(Problem.from_dataset(ds, measure), k)


@pytest.mark.parametrize("measure", ["loss_metric", "entropy"])
@pytest.mark.parametrize("seed", range(3))
def test_agglomerative_without_cost_table_equals_reference(seed, measure):
    """The fallback for huge domains (no closure-cost table: ancestor walks)."""
    p = Problem.from_dataset(tie_heavy_dataset(seed, 70, 3, 6), measure)
    empty = np.zeros((p.r, 0, 0))
    for k in (2, 5):
        lab = _compact(_agglo(p.X, k, *p.args, empty))
        assert np.array_equal(lab, reference_clusters(p, k, empty))
        assert np.array_equal(lab, agglomerative_clusters(p, k))  # the table changes nothing


ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "experiments" / "kconcealment"))
from kc_data import adult  # noqa: E402  (experiments/kconcealment: UCI Adult from data/adult_uci)


@pytest.mark.parametrize("measure", ["loss_metric", "entropy"])
@pytest.mark.parametrize(("n", "k", "seed"), [(600, 5, 0), (900, 30, 1), (1500, 10, 2)])
def test_agglomerative_equals_reference_on_adult_samples(n, k, seed, measure):
    assert_same_as_reference(Problem.from_dataset(adult(n=n, seed=seed), measure), k)


def test_alg8_release_equals_reference_on_adult_sample():
    """agglomerative + Algorithm 8 (the Fig. 10 baseline): same clusters after ℓ-diverse merging."""
    ds = adult(n=1200, seed=4)
    p = Problem.from_dataset(ds, "loss_metric")
    col = ds.sensitive_column(None)
    s = np.asarray(ds.sensitive_codes[col], dtype=np.int64)
    for k in (5, 20):
        lab = l_diverse_merge(p, agglomerative_clusters(p, k), s, 1.1)
        ref = l_diverse_merge(p, reference_clusters(p, k), s, 1.1)
        assert np.array_equal(lab, ref)
