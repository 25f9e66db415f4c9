"""The compiled kernels' one hash table (``ktype.algorithms._hashtab``) against plain Python.

Each grouping kernel built on it must give exactly what a ``dict`` keyed by the group gives:
the groups in first-appearance order, their summed counts, and every row's group — for any
keys, including keys chosen to share a home slot (long probe runs) and the extreme int64
values.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ktype._jit import njit
from ktype.algorithms._hashtab import EMPTY, ROW_SEED, capacity, find_or_insert, home_slot, row_hash
from ktype.algorithms.fulldomain._kernels import _merge_keys, _rollup_kernel


@njit(cache=False)
def _group(keys):  # pragma: no cover - compiled
    """Group ids by first appearance, through the table alone."""
    size, shift = capacity(keys.shape[0])
    skey = np.full(size, EMPTY, dtype=np.int64)
    gid = np.full(size, -1, dtype=np.int64)
    out = np.empty(keys.shape[0], dtype=np.int64)
    g = 0
    for i in range(keys.shape[0]):
        s, new = find_or_insert(skey, keys[i], shift)
        if new:
            gid[s] = g
            g += 1
        out[i] = gid[s]
    return out


@njit(cache=False)
def _row_slots(rows, n):  # pragma: no cover - compiled
    _, shift = capacity(n)
    out = np.empty(rows.shape[0], dtype=np.int64)
    for i in range(rows.shape[0]):
        h = ROW_SEED
        for j in range(rows.shape[1]):
            h = row_hash(h, rows[i, j])
        out[i] = home_slot(h, shift)
    return out


@njit(cache=False)
def _slots(keys, n):  # pragma: no cover - compiled
    _, shift = capacity(n)
    out = np.empty(keys.shape[0], dtype=np.int64)
    for i in range(keys.shape[0]):
        out[i] = home_slot(keys[i], shift)
    return out


def _first_appearance(keys: list) -> tuple[list, list]:
    ids: dict = {}
    return [ids.setdefault(k, len(ids)) for k in keys], list(ids)


def _colliding_keys(n: int, count: int) -> np.ndarray:
    """``count`` distinct non-negative keys that all share one home slot in a table for ``n``."""
    cand = np.arange(0, 200_000, dtype=np.int64)
    home = _slots(cand, n)
    keys = cand[home == home[0]][:count]
    assert len(keys) == count
    return keys


keys_st = st.lists(st.one_of(st.integers(0, 40), st.integers(0, 2**63 - 1)), max_size=300)


@settings(max_examples=150, deadline=None)
@given(keys_st)
def test_the_table_groups_like_a_dict(keys):
    got = _group(np.asarray(keys, dtype=np.int64)).tolist()
    assert got == _first_appearance(keys)[0]


@settings(max_examples=100, deadline=None)
@given(keys_st, st.data())
def test_merge_keys_sums_counts_by_first_appearance(keys, data):
    cnt = data.draw(st.lists(st.integers(1, 9), min_size=len(keys), max_size=len(keys)))
    a = np.asarray(keys, dtype=np.int64)
    rep, out_cnt, inv = _merge_keys(a, np.asarray(cnt, dtype=np.int64), True)
    ids, distinct = _first_appearance(keys)
    assert [keys[i] for i in rep] == distinct
    assert inv.tolist() == ids
    sums = [0] * len(distinct)
    for i, c in zip(ids, cnt):
        sums[i] += c
    assert out_cnt.tolist() == sums


def test_keys_sharing_a_home_slot_stay_apart():
    """Probe runs: 40 distinct keys with one home slot, each seen three times."""
    keys = _colliding_keys(120, 40)
    stream = np.concatenate([keys, keys[::-1], keys])
    ids = _group(stream)
    assert ids.tolist() == _first_appearance(stream.tolist())[0]
    rep, out_cnt, _ = _merge_keys(stream, np.ones(len(stream), dtype=np.int64), False)
    assert stream[rep].tolist() == keys.tolist() and (out_cnt == 3).all()


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 4), st.data())
def test_rollup_merges_mapped_rows_like_a_dict(r, data):
    d = data.draw(st.integers(0, 120))
    tab = np.asarray(data.draw(st.lists(st.lists(st.integers(0, 5), min_size=r, max_size=r), min_size=d, max_size=d)),
                     dtype=np.int32).reshape(d, r)
    maps_per_col = [np.asarray(data.draw(st.lists(st.integers(0, 3), min_size=6, max_size=6)), dtype=np.int32) for _ in range(r)]
    offs = np.arange(r, dtype=np.int64) * 6
    cnt = np.asarray(data.draw(st.lists(st.integers(1, 5), min_size=d, max_size=d)), dtype=np.int64)
    out_tab, out_cnt, inv = _rollup_kernel(tab, cnt, np.concatenate(maps_per_col), offs)
    mapped = [tuple(int(maps_per_col[j][tab[i, j]]) for j in range(r)) for i in range(d)]
    ids, distinct = _first_appearance(mapped)
    assert [tuple(row) for row in out_tab.tolist()] == distinct
    assert inv.tolist() == ids
    sums = [0] * len(distinct)
    for i, c in zip(ids, cnt.tolist()):
        sums[i] += c
    assert out_cnt.tolist() == sums


@given(st.integers(1, 3), st.integers(0, 5))
@settings(max_examples=30, deadline=None)
def test_rollup_keeps_rows_that_share_a_home_slot_and_differ_in_one_column(r, col):
    """Two rows equal but in one column whose hashes pick the same home slot: the second
    probes the first's slot, compares whole rows, and must not merge with it."""
    col = col % r
    cand = np.zeros((64, r), dtype=np.int32)
    cand[:, col] = np.arange(64)
    home = _row_slots(cand, 2)  # the table of a two-row roll-up
    pair = np.flatnonzero(home == home[0])[:2]
    assert len(pair) == 2
    tab = cand[pair]
    ident = np.arange(64, dtype=np.int32)
    out_tab, out_cnt, inv = _rollup_kernel(tab, np.ones(2, dtype=np.int64), np.tile(ident, r),
                                           np.arange(r, dtype=np.int64) * 64)
    assert out_tab.tolist() == tab.tolist() and inv.tolist() == [0, 1] and out_cnt.tolist() == [1, 1]
