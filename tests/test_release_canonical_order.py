"""The canonical row order of a release is a function of its published content.

``Release.build(classes=...)`` takes a hint from algorithms that publish whole groups with
one box; it only speeds up the sort. Rows of different classes with equal boxes (every
suppressed class; two clusters generalized alike) must interleave by their other columns
exactly as without the hint, or the order would show which published rows came from one
class of the algorithm's, information the release does not otherwise contain.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st


@pytest.mark.parametrize("seed", [2, 3, 4])  # seeds 0 and 1 happen to have no class ties
def test_the_class_hint_never_changes_the_canonical_row_order(seed):
    """``Release.build(classes=...)`` only speeds up the sort: the rows, in order, are those
    built without the hint (random boxes shared by classes of random sizes, some suppressed)."""
    from ktype.datasets.synthetic import census_dataset
    from ktype.release import Release

    rng = np.random.default_rng(seed)
    ds = census_dataset(40, rng=seed)
    g = int(rng.integers(2, 9))
    cls = rng.integers(0, g, ds.n)
    top = (ds.domain_sizes - 1).astype(np.int32)
    blo = (rng.random((g, ds.r)) * (top + 1) / 2).astype(np.int32)
    bhi = np.minimum(blo + (rng.random((g, ds.r)) * (top + 1) / 2).astype(np.int32), top)
    sup = rng.random(g) < 0.2
    args = (ds, blo[cls], bhi[cls])
    plain = Release.build(*args, suppressed=sup[cls], recoding="local")
    for hint in (cls, cls + 5, (cls * 7) % 11):  # dense ids, shifted ids (not dense), another labelling
        hinted = Release.build(*args, suppressed=sup[cls], recoding="local", classes=hint)
        for a in ("lo", "hi", "suppressed", "source"):
            assert np.array_equal(getattr(hinted, a), getattr(plain, a)), (a, hint[:5])


@pytest.mark.parametrize("seed", range(5))
def test_the_class_hint_keeps_the_order_when_every_class_has_its_own_box(seed):
    """The part of the property that holds today: no suppression, all class boxes distinct."""
    from ktype.datasets.synthetic import census_dataset
    from ktype.release import Release

    rng = np.random.default_rng(seed)
    ds = census_dataset(40, rng=seed)
    g = int(rng.integers(2, 9))
    cls = rng.integers(0, g, ds.n)
    top = (ds.domain_sizes - 1).astype(np.int32)
    blo = np.zeros((g, ds.r), dtype=np.int32)
    blo[:, 0] = np.arange(g) % (top[0] + 1)  # distinct first cells: distinct boxes
    bhi = np.tile(top, (g, 1))
    assert len({tuple(b) for b in blo}) == g
    plain = Release.build(ds, blo[cls], bhi[cls], recoding="local")
    for hint in (cls, cls + 5, (cls * 7) % 11):
        hinted = Release.build(ds, blo[cls], bhi[cls], recoding="local", classes=hint)
        for a in ("lo", "hi", "suppressed", "source"):
            assert np.array_equal(getattr(hinted, a), getattr(plain, a)), (a, hint[:5])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-5, 40), max_size=80), st.sampled_from(["int64", "int32", "uint8", "bool"]))
def test_sort_codes_rank_values_like_a_sorted_factorization(values, dtype):
    """The codes that order insensitive and identifier columns in a release: ranks among the
    distinct values, as pandas' sorted factorization gives them (the integer fast path)."""
    import pandas as pd

    from ktype.release import _sort_codes

    v = np.abs(np.array(values, dtype=np.int64)).astype(dtype) if dtype in ("uint8", "bool") else np.array(values, dtype=dtype)
    want = pd.factorize(v, sort=True)[0]
    assert np.array_equal(_sort_codes(v), want)
