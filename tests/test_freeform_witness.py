"""The freeform checker's compiled witness passes against the plain numpy definition.

:func:`ktype.models.freeform._witness_edges` decides, per box, whether its preimages are
distinct and, per edge, whether the preimage lies inside the box (every range, every value
set); it must agree with the direct gathers it replaced on genuine releases and on releases
whose boxes, sets and witnesses were damaged at random.
"""

from __future__ import annotations

import numpy as np
import pytest

from ktype.algorithms import get_algorithm
from ktype.datasets.synthetic import census_dataset
from ktype.models.freeform import FreeformKAnonymity, _witness_edges


def _reference(ds, pre, lo, hi, sets):
    """The definition: gather every edge's value per column and compare (numpy)."""
    N, d = pre.shape
    srt = np.sort(pre, axis=1)
    distinct = ~(srt[:, 1:] == srt[:, :-1]).any(axis=1) if d > 1 else np.ones(N, dtype=bool)
    inside = np.ones(pre.shape, dtype=bool)
    rows = np.arange(N)[:, None]
    for j in range(ds.r):  # loop over columns
        x = ds.X[pre, j]
        inside &= (lo[:, j, None] <= x) & (x <= hi[:, j, None])
        if j in sets:
            inside &= sets[j][rows, x]
    return distinct, inside


@pytest.mark.parametrize("seed", range(4))
def test_witness_edges_equal_the_gathered_definition(seed):
    rng = np.random.default_rng(seed)
    ds = census_dataset(int(rng.integers(30, 120)), rng=seed)
    k = int(rng.integers(2, 6))
    rel = get_algorithm("freeform_sortgreedy").func(ds, FreeformKAnonymity(k), rng=seed, partition_size=30)
    lo0, hi0, sets0 = rel.cells()
    pre0 = np.asarray(rel.preimages)
    for trial in range(25):  # loop over damaged copies (the first one intact)
        pre, lo, hi = pre0.copy(), lo0.copy(), hi0.copy()
        sets = {j: s.copy() for j, s in sets0.items()}
        if trial:
            cells = rng.random(lo.shape) < 0.05
            lo[cells] += rng.integers(0, 3, int(cells.sum())).astype(lo.dtype)
            hi[cells] -= rng.integers(0, 3, int(cells.sum())).astype(hi.dtype)
            for s in sets.values():  # loop over set columns
                s[rng.random(s.shape) < 0.05] = False
            dup = rng.random(len(pre)) < 0.1
            pre[dup, 0] = pre[dup, -1]
            moved = rng.random(pre.shape) < 0.05
            pre[moved] = rng.integers(0, ds.n, int(moved.sum()))
        got_d, got_i = _witness_edges(ds, pre, lo, hi, sets)
        want_d, want_i = _reference(ds, pre, lo, hi, sets)
        assert np.array_equal(got_d, want_d) and np.array_equal(got_i, want_i)
        if trial == 0:
            assert got_d.all() and got_i.all()
        got_r = _witness_edges(ds, pre, lo, hi, {})  # ranges only (no set column)
        assert all(np.array_equal(g, w) for g, w in zip(got_r, _reference(ds, pre, lo, hi, {})))


def test_witness_pass_reads_any_integer_type():
    """The records' ranks are handed to the pass in the narrowest type; wider ones agree."""
    from ktype.models._witness_kernels import edges_inside

    ds = census_dataset(60, rng=2)
    rel = get_algorithm("freeform_sortgreedy").func(ds, FreeformKAnonymity(3), rng=1)
    lo, hi, sets = rel.cells()
    pre = np.array(rel.preimages)
    pre[::4, 0] = pre[1::4, 0][: len(pre[::4])]  # some edges outside
    want = _reference(ds, pre, lo, hi, sets)[1]
    cols = sorted(sets)
    widths = [ds.hierarchies[j].size for j in cols]
    offsets = np.cumsum([0, *widths])[:-1].astype(np.int64)
    members = np.concatenate([sets[j] for j in cols], axis=1)
    assert not want.all()
    for dt in (np.uint8, np.uint16, np.int32, np.int64):  # loop over integer types
        got = np.zeros(pre.shape, dtype=bool)
        edges_inside(np.asarray(ds.X, dtype=dt), pre, lo, hi, np.asarray(cols, dtype=np.int64), offsets, members, got)
        assert np.array_equal(got, want)


def test_witness_distinct_rows_long_rows():
    """Rows longer than the pairwise limit are checked through a sort."""
    from ktype.models._witness_kernels import distinct_rows

    rng = np.random.default_rng(0)
    pre = np.array([rng.permutation(100)[:d] for d in [40] * 50])
    pre[::3, 5] = pre[::3, 30]
    want = np.array([len(set(r)) == len(r) for r in pre.tolist()])
    assert np.array_equal(distinct_rows(pre), want) and not want.all() and want.any()
