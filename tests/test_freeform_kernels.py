"""The SortGreedy kernels against plain references (Doka et al. §5-6).

``_weights_matrix`` fills whole rows at once (SIMD over boxes); every entry must equal the
scalar edge weight :func:`_weight` bit for bit, because SortGreedy's scan order, and so the
release, depends on exact ties.
"""

from __future__ import annotations

import numpy as np
import pytest

from ktype.algorithms.freeform import _kernels as K


def _state(rng: np.random.Generator, m: int, na: int, sizes: list[int]):
    xnum = np.round(rng.random((m, na)), 2)  # rounded: many equal values, so exact ties
    xcat = np.column_stack([rng.integers(0, s, m) for s in sizes]).astype(np.int64) if sizes else np.zeros((m, 0), np.int64)
    wcat = np.array([1.0 / (s - 1) if s > 1 else 0.0 for s in sizes])
    n_words = (max(sizes, default=1) + 63) // 64
    lo, hi, bits = K._init_state(xnum, xcat, n_words)
    post = np.empty((m, 4), dtype=np.int64)
    post[:, 0] = np.arange(m)
    for t in range(1, 4):  # grow the boxes by three random perfect matchings
        perm = rng.permutation(m)
        post[:, t] = perm
        for i in range(m):  # loop over records (test set-up only)
            K._extend(xnum, xcat, lo, hi, bits, i, perm[i])
    return xnum, xcat, wcat, lo, hi, bits, post


@pytest.mark.parametrize("seed", range(6))
def test_weights_matrix_equals_scalar_weight_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 40))
    sizes = [2, 83, 7] if seed % 2 else [5]  # two 64-bit words (83 values) and one
    xnum, xcat, wcat, lo, hi, bits, post = _state(rng, m, int(rng.integers(0, 3)), sizes)
    t = 3
    W = K._weights_matrix(xnum, xcat, wcat, lo, hi, bits, post, t)
    for i in range(m):  # loop over records: the scalar reference
        for j in range(m):
            want = np.inf if j in post[i, :t] else K._weight(xnum, xcat, wcat, lo, hi, bits, i, j)
            assert W[i, j] == want, (i, j)


def _scan_reference(W: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Alg. 2 lines 2-7 literally: every available edge by (weight, row-major index), kept
    when both ends are free."""
    ms, mt = np.full(m, -1), np.full(m, -1)
    for e in np.argsort(W, kind="stable"):  # loop over edges in scan order (reference only)
        if not W[e] < np.inf:
            break
        i, j = divmod(int(e), m)
        if ms[i] < 0 and mt[j] < 0:
            ms[i], mt[j] = j, i
    return ms, mt


@pytest.mark.parametrize("seed", range(8))
def test_sorted_greedy_equals_the_sorted_scan(seed):
    rng = np.random.default_rng(seed)
    for _ in range(150):  # loop over random weight matrices with many ties and used edges
        m = int(rng.integers(1, 35))
        W = rng.integers(0, int(rng.integers(1, 6)), size=m * m).astype(np.float64) * 0.25
        W[rng.random(m * m) < rng.random() * 0.7] = np.inf
        ms, mt = np.full(m, -1, dtype=np.int64), np.full(m, -1, dtype=np.int64)
        cnt = K._sorted_greedy(W, m, ms, mt)
        want_s, want_t = _scan_reference(W, m)
        assert np.array_equal(ms, want_s) and np.array_equal(mt, want_t) and cnt == int((want_s >= 0).sum())


@pytest.mark.parametrize("seed", range(4))
def test_sorted_greedy_compares_weights_of_any_magnitude_by_value(seed):
    """The scan compares weights by their int64 bit patterns: the same order as the values for
    every non-negative float (zero, subnormals, huge, ``inf``), ties included."""
    rng = np.random.default_rng(seed)
    for _ in range(150):  # loop over random weight matrices spanning the float range
        m = int(rng.integers(1, 30))
        pool = np.concatenate([[0.0, 5e-324, 1e-310, 1e-300, 0.1, 0.3, 1.0, 2.0, 1e300, np.finfo(float).max],
                               rng.random(4) * 10.0 ** rng.integers(-300, 300, 4)])
        W = rng.choice(pool[: int(rng.integers(1, len(pool) + 1))], size=m * m)
        W[rng.random(m * m) < rng.random() * 0.5] = np.inf
        ms, mt = np.full(m, -1, dtype=np.int64), np.full(m, -1, dtype=np.int64)
        cnt = K._sorted_greedy(W, m, ms, mt)
        want_s, want_t = _scan_reference(W, m)
        assert np.array_equal(ms, want_s) and np.array_equal(mt, want_t) and cnt == int((want_s >= 0).sum())


@pytest.mark.parametrize("include_self", [False, True])
def test_cells_from_preimages_equal_the_gathered_min_max_and_sets(include_self):
    from ktype.algorithms.freeform._prep import Problem, blocks, cells_from_preimages
    from ktype.algorithms.freeform.heuristics import build_graph
    from ktype.datasets.synthetic import census_dataset

    p = Problem.from_dataset(census_dataset(90, rng=7))
    pre, _ = build_graph(p, 4, "sortgreedy", blocks(p.n, 30))
    lo, hi, sets = cells_from_preimages(p, pre, include_self=include_self)
    idx = np.column_stack([pre, np.arange(p.n)]) if include_self else pre
    vals = p.X[idx]  # (n, k, r): the reference gathers everything
    assert np.array_equal(lo, vals.min(axis=1)) and np.array_equal(hi, vals.max(axis=1))
    assert lo.dtype == hi.dtype == np.int32
    assert sorted(sets) == [int(j) for j in np.flatnonzero(~p.is_range)]
    for j, member in sets.items():  # loop over set columns
        want = np.zeros_like(member)
        want[np.repeat(np.arange(p.n), idx.shape[1]), vals[:, :, j].ravel()] = True
        assert np.array_equal(member, want)
