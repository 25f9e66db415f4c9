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
    sorted types (long runs) and for any order, with set columns up to 130 values wide
    (three bit words)."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    A = data.draw(st.integers(1, 40))
    C = data.draw(st.integers(1, 4))
    dom = np.array([data.draw(st.sampled_from([1, 2, 3, 4, 70, 130])) for _ in range(C)])
    xa = np.column_stack([rng.integers(0, min(m, 4), A) * (m // min(m, 4)) for m in dom]).astype(np.int32)
    if data.draw(st.booleans()):
        xa = xa[np.lexsort(xa.T[::-1])]
    S = data.draw(st.integers(1, 12))
    lo = np.column_stack([rng.integers(0, m, S) for m in dom]).astype(np.int32)
    hi = np.maximum(lo, np.column_stack([rng.integers(0, m, S) for m in dom])).astype(np.int32)
    is_set = rng.random(C) < 0.5
    member = {c: rng.random((S, int(dom[c]))) < 0.6 for c in range(C) if is_set[c]}
    woff = np.full(C, -1, dtype=np.int64)
    width = 0
    for c in member:
        woff[c] = width
        width += (int(dom[c]) + 63) // 64
    words = np.zeros((S, max(width, 1)), dtype=np.uint64)
    for c, m in member.items():
        graph_kernels.pack_set_words(m, words, woff[c])
    start = rng.integers(0, A + 1, S)
    stop = np.maximum(start, rng.integers(0, A + 1, S))
    cnt, out = graph_kernels.type_edges_sets(xa, lo, hi, words, woff, start.astype(np.int64), stop.astype(np.int64))
    want = [[a for a in range(start[s], stop[s])
             if all(lo[s, c] <= xa[a, c] <= hi[s, c] and (c not in member or member[c][s, xa[a, c]]) for c in range(C))]
            for s in range(S)]
    assert cnt.tolist() == [len(w) for w in want]
    assert out.tolist() == [a for w in want for a in w]


@pytest.mark.parametrize("collide", [False, True])
@pytest.mark.parametrize("seed", range(2))
def test_box_types_of_value_sets_are_the_distinct_boxes(monkeypatch, seed, collide):
    """Freeform rows are grouped into box types by a hash, checked row by row: equal
    (ranges, sets) rows share a type and unequal ones never do, also when every hash
    collides (the exact grouping then takes over)."""
    from ktype.algorithms import get_algorithm
    from ktype.datasets.synthetic import census_dataset
    from ktype.models.freeform import FreeformKAnonymity

    ds = census_dataset(120, rng=seed)
    rel = get_algorithm("freeform_sortgreedy").func(ds, FreeformKAnonymity(3), rng=seed, partition_size=20)
    if collide:
        monkeypatch.setattr(graph_kernels, "box_hashes", lambda lo, hi, words: np.zeros(len(lo), dtype=np.uint64))
    g = ConsistencyGraph(rel)
    lo, hi, sets = rel.cells()
    rows = np.column_stack([np.asarray(lo), np.asarray(hi)] + [np.asarray(v) for _, v in sorted(sets.items())])
    _, want = np.unique(rows, axis=0, return_inverse=True)
    same_want = want[:, None] == want[None, :]
    same_got = g.box_type[:, None] == g.box_type[None, :]
    assert (same_got == same_want).all()
    assert g.n_box_types == len(np.unique(want))
    _assert_edges_are_containment(g, rel)


def _hash_without(part: str):
    """A weak stand-in for ``box_hashes``: the rows' lo, hi and words, but for ``part``."""
    def h(lo, hi, words):
        cols = {"lo": lo, "hi": hi, "words": (words % np.uint64(1009)).astype(np.int64)}
        keep = [np.asarray(v, dtype=np.int64) for k, v in cols.items() if k != part]
        return np.column_stack(keep) @ (1 + np.arange(sum(k.shape[1] for k in keep), dtype=np.int64)) ** 3
    return lambda lo, hi, words: h(lo, hi, words).astype(np.uint64)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), collide=st.sampled_from(["none", "all", "lo", "hi", "words"]))
def test_grouping_boxes_by_hash_is_exact(data, collide):
    """``_group_boxes`` on rows that often differ only in one set word or one range end:
    the same partition as grouping the rows exactly, whether hashes collide never, always,
    or whenever the rows differ only in their lower ends, upper ends or sets."""
    from ktype.models._graph import _group_boxes

    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n = data.draw(st.integers(1, 30))
    base = rng.integers(0, 2, (n, 5))
    lo, hi = base[:, :2].astype(np.int32), base[:, 2:4].astype(np.int32)
    words = np.zeros((n, 2), dtype=np.uint64)
    words[:, data.draw(st.integers(0, 1))] = base[:, 4].astype(np.uint64) << np.uint64(data.draw(st.integers(0, 63)))
    with pytest.MonkeyPatch.context() as mp:
        if collide == "all":
            mp.setattr(graph_kernels, "box_hashes", lambda lo, hi, words: np.zeros(len(lo), dtype=np.uint64))
        elif collide != "none":
            mp.setattr(graph_kernels, "box_hashes", _hash_without(collide))
        ids, B = _group_boxes(lo, hi, words)
    rows = np.column_stack([lo, hi, words.view(np.int64)])
    _, want = np.unique(rows, axis=0, return_inverse=True)
    assert B == len(np.unique(want))
    assert ((ids[:, None] == ids[None, :]) == (want[:, None] == want[None, :])).all()
