"""The compiled row gather of a release's reordering equals numpy's ``a[order]``."""

from __future__ import annotations

import numpy as np
import pytest

from ktype._take_rows import take_rows


@pytest.mark.parametrize("dtype", [bool, np.int32, np.int64, np.uint8])
def test_take_rows_equals_numpy_fancy_indexing(dtype):
    rng = np.random.default_rng(0)
    for n, w in [(0, 3), (5, 0), (1, 1), (37, 5), (1000, 83)]:  # loop over shapes, empty ones included
        a = (rng.integers(0, 2 if dtype is bool else 100, (n, w))).astype(dtype)
        for order in (rng.permutation(n), rng.integers(0, max(n, 1), n) if n else np.zeros(0, int)):
            got = take_rows(a, order)
            want = a[order]
            assert got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)
            assert got.flags.c_contiguous and not np.shares_memory(got, a)
    v = np.arange(10)
    assert np.array_equal(take_rows(v, v[::-1]), v[::-1])  # 1-D: numpy's gather
