"""The consistency graph's type edges (the k-type checkers' input) against direct containment
tests: every (original type, box type) pair whose box holds the type, once, sorted by original
type then box type, for interval boxes and for freeform value sets. The scan runs in blocks of
candidates; tiny blocks (one scan row per block, rows larger than the block) must give the same
edges as one block."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ktype.models._graph_kernels as graph_kernels
from ktype.data.dataset import Dataset
from ktype.models._graph import ConsistencyGraph
from ktype.release import Release


def _release(seed: int, n: int = 80) -> Release:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({c: rng.integers(0, m, n) for c, m in (("a", 9), ("b", 4), ("c", 6))})
    ds = Dataset(df, quasi_identifiers=["a", "b", "c"], hierarchies={c: "ordered" for c in "abc"})
    X, m = ds.X, np.asarray(ds.domain_sizes)
    lo = rng.integers(0, X + 1)
    hi = X + rng.integers(0, m - X)
    narrow = rng.random(X.shape) < 0.5  # many boxes exact on a column: varied scan orders
    lo[narrow], hi[narrow] = X[narrow], X[narrow]
    return Release.build(ds, lo.astype(np.int32), hi.astype(np.int32), recoding="local")


@pytest.mark.parametrize("block", [1, 7, 1 << 22])
@pytest.mark.parametrize("seed", range(3))
def test_type_edges_equal_containment_for_any_block(monkeypatch, seed, block):
    rel = _release(seed)
    monkeypatch.setattr(graph_kernels, "SCAN_BLOCK", block)
    g = ConsistencyGraph(rel)
    _assert_edges_are_containment(g, rel)


@pytest.mark.parametrize("block", [1, 7, 1 << 22])
@pytest.mark.parametrize("seed", range(2))
def test_type_edges_over_value_sets_equal_containment_for_any_block(monkeypatch, seed, block):
    from ktype.algorithms import get_algorithm
    from ktype.datasets.synthetic import census_dataset
    from ktype.models.freeform import FreeformKAnonymity

    ds = census_dataset(90, rng=seed)
    rel = get_algorithm("freeform_sortgreedy").func(ds, FreeformKAnonymity(3), rng=seed, partition_size=20)
    lo, hi, sets = rel.cells()
    assert sets  # value-set columns: the freeform scan
    monkeypatch.setattr(graph_kernels, "SCAN_BLOCK", block)
    _assert_edges_are_containment(ConsistencyGraph(rel), rel)


def _assert_edges_are_containment(g: ConsistencyGraph, rel) -> None:
    X = rel.dataset.X
    lo, hi, sets = rel.cells()
    lo, hi = np.asarray(lo), np.asarray(hi)
    inside = ((X[:, None, :] >= lo[None]) & (X[:, None, :] <= hi[None])).all(axis=2)  # (original, released)
    for j, member in sets.items():  # value-set columns: X[i, j] must be in row t's set
        inside &= np.asarray(member)[:, X[:, j]].T
    i, t = np.nonzero(inside)
    want = np.unique(np.stack([g.orig_type[i], g.box_type[t]], axis=1), axis=0)
    got = np.stack([g.edge_orig, g.edge_box], axis=1)
    assert got.tolist() == want.tolist()  # np.unique sorts rows: by original type, then box type


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_skip_scan_over_value_sets_equals_testing_every_candidate(data):
    """``type_edges_sets`` jumps past runs of types sharing the columns up to the first one
    that fails; it must list exactly the candidates a test of each one finds, in order, for
    sorted types (long runs) and for any order."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    A = data.draw(st.integers(1, 40))
    C = data.draw(st.integers(2, 5))
    dom = rng.integers(1, 5, C)
    dom[0] = 1  # the graph's leading column of zeros
    xa = np.column_stack([rng.integers(0, m, A) for m in dom]).astype(np.int32)
    if data.draw(st.booleans()):
        xa = xa[np.lexsort(xa.T[::-1])]
    S = data.draw(st.integers(1, 12))
    lo = np.column_stack([rng.integers(0, m, S) for m in dom]).astype(np.int32)
    hi = np.maximum(lo, np.column_stack([rng.integers(0, m, S) for m in dom])).astype(np.int32)
    is_set = rng.random(C) < 0.5
    is_set[0] = False
    member = rng.random((S, C, 64)) < 0.6
    bits = np.packbits(member, axis=2, bitorder="little").view("<u8")
    start = rng.integers(0, A + 1, S)
    stop = np.maximum(start, rng.integers(0, A + 1, S))
    cnt, out = graph_kernels.type_edges_sets(xa, lo, hi, bits, is_set, start.astype(np.int64), stop.astype(np.int64))
    want = [[a for a in range(start[s], stop[s])
             if all(lo[s, c] <= xa[a, c] <= hi[s, c] and (not is_set[c] or member[s, c, xa[a, c]]) for c in range(1, C))]
            for s in range(S)]
    assert cnt.tolist() == [len(w) for w in want]
    assert out.tolist() == [a for w in want for a in w]
