"""``group_rows`` groups the first row of each run of equal consecutive rows (fast on a
release in canonical order) and must give exactly ``group_ids``'s labels on any row order;
the verification's interval check per distinct interval equals the check per row."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ktype import Hierarchy, _grouping
from ktype.algorithms._registry import _all_allowed


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 300), st.integers(1, 3), st.integers(1, 5), st.sampled_from(["random", "sorted", "sorted+swap"]),
       st.integers(0, 2**32 - 1))
def test_group_rows_by_runs_equals_group_ids(n, r, dom, layout, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, dom, (n, r)).astype(np.int32)
    b = rng.integers(0, dom, (n, r)).astype(np.int32)
    if layout != "random":
        o = np.lexsort([a[:, j] for j in range(r)][::-1])
        a, b = a[o], a[o].copy()
        if layout == "sorted+swap" and n > 2:  # the same key in two separate runs
            a[[0, -1]] = a[[-1, 0]]
    want, g = _grouping.group_ids([a[:, j] for j in range(r)] + [b[:, j] for j in range(r)])
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_grouping, "_RUNS_MIN_ROWS", 0)  # always take the run path
        got, g2 = _grouping.group_rows(a, b)
    assert g2 == g
    np.testing.assert_array_equal(got, want)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 200), st.integers(0, 2**32 - 1), st.booleans())
def test_interval_check_per_distinct_interval_equals_per_row(n, seed, tree):
    rng = np.random.default_rng(seed)
    h = Hierarchy.intervals(range(6), [2, 4], name="x") if tree else Hierarchy.ordered(range(6), name="x")
    lo = rng.integers(-1, 7, n)
    hi = rng.integers(-1, 7, n)
    assert _all_allowed(h, lo, hi) == bool(h.is_allowed(lo, hi).all())  # n > 36: the per-interval path


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 60), st.integers(1, 5), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_unique_rows_is_numpys_unique_along_rows(n, r, m, seed):
    """unique_rows answers np.unique(axis=0, return_index/inverse/counts) exactly: the same
    rows in the same order, first occurrences, inverse and counts."""
    M = np.random.default_rng(seed).integers(0, m, (n, r))
    want = np.unique(M, axis=0, return_index=True, return_inverse=True, return_counts=True)
    got = _grouping.unique_rows(M)
    assert np.array_equal(got[0], want[0])
    for g, w in zip(got[1:], want[1:]):
        assert np.array_equal(g, np.asarray(w).reshape(-1))
