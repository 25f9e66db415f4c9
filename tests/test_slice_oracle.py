"""The compiled Slice against a plain re-implementation (tests/_slice_reference.py) on random
buckets: the same groups with the same ids. Slice decides who shares a published group, so a
wrong cut changes the release even when every group stays ℓ-diverse."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ktype.algorithms.transparent._kernels import _slice_bucket

from ._slice_reference import slice_reference


@settings(max_examples=120, deadline=None)
@given(alpha=st.integers(1, 9), beta=st.integers(2, 4), d=st.integers(1, 3), dom=st.integers(1, 5),
       seed=st.integers(0, 2**32 - 1))
def test_slice_kernel_equals_plain_slice(alpha, beta, d, dom, seed):
    rng = np.random.default_rng(seed)
    n = alpha * beta + int(rng.integers(0, 5))  # some rows of the table are not in the bucket
    X = rng.integers(0, dom, (n, d)).astype(np.int32)
    W = np.vstack([np.sort(rng.integers(0, 50, dom)) for _ in range(d)]).astype(np.int64)
    M = rng.integers(0, 4, d).astype(np.int64)
    key = rng.permutation(n).astype(np.int64)
    rows = rng.permutation(n)[:alpha * beta].astype(np.int64)
    off = int(rng.integers(0, 3))
    bbuf = np.concatenate([np.full(off, -1, dtype=np.int64), rows])
    group = np.full(n, -1, dtype=np.int64)
    g0 = int(rng.integers(0, 4))
    g = _slice_bucket(bbuf, off, alpha, beta, X, W, M, key, group, g0)
    want = slice_reference([list(rows[c * alpha:(c + 1) * alpha]) for c in range(beta)], X, W, M, key, g0)
    assert g == g0 + alpha
    assert {int(r): int(group[r]) for r in rows} == want
    assert (group[np.setdiff1d(np.arange(n), rows)] == -1).all()
