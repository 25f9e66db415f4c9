"""Row grouping, sorting, recoding plans and the algorithm catalog against independent oracles.

Grouping decides which records form an equivalence class, so a wrong grouping misreports k.
Each function is compared here with a plain-Python answer (tuples in a dict, ``sorted`` with a
tuple key, ``np.unique(axis=0)``), on random integer tables, including columns too wide to
pack into one int64 key and tables long enough for the run-based path of ``group_rows``.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from ktype import Dataset, Hierarchy
from ktype._grouping import group_ids, group_rows, lexsort_rows, pack_keys, run_starts, sort_order, unique_rows
from ktype.algorithms import _catalog
from ktype.algorithms._order import content_order
from ktype.exceptions import InvalidParameterError
from ktype.plan import BoxPlan, FullDomainPlan, qi_labels

pytestmark = pytest.mark.timeout(120)


def _table(rng: np.random.Generator, n: int, r: int, wide: bool) -> np.ndarray:
    highs = [rng.choice([2, 3, 7, 2**40 if wide else 50]) for _ in range(r)]
    return np.stack([rng.integers(0, h, n) for h in highs], axis=1) if r else np.zeros((n, 0), dtype=np.int64)


def _oracle_ids(m: np.ndarray) -> tuple[list[int], int]:
    rows = [tuple(int(x) for x in row) for row in m]
    rank = {t: i for i, t in enumerate(sorted(set(rows)))}
    return [rank[t] for t in rows], len(rank)


@pytest.mark.parametrize("seed", range(24))
def test_grouping_matches_the_tuple_oracle(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    r = int(rng.integers(1, 5))
    m = _table(rng, n, r, wide=seed % 3 == 0)
    want_ids, want_g = _oracle_ids(m)
    ids, g = group_ids([m[:, j] for j in range(r)])
    assert ids.tolist() == want_ids and g == want_g
    ids2, g2 = group_rows(m)
    assert ids2.tolist() == want_ids and g2 == want_g
    ids3, g3 = group_rows(m[:, 0], m[:, 1:]) if r > 1 else group_rows(m[:, 0])
    assert ids3.tolist() == want_ids and g3 == want_g
    order = lexsort_rows([m[:, j] for j in range(r)])
    assert order.tolist() == sorted(range(n), key=lambda i: (tuple(m[i]), i))  # stable
    so = sort_order([m[:, j] for j in range(r)])
    srt = m[order]
    if so is None:
        assert (srt == m).all()
    else:
        assert so.tolist() == order.tolist()
    assert sort_order([srt[:, j] for j in range(r)]) is None
    ids_s, _ = group_ids([srt[:, j] for j in range(r)])
    assert ids_s.tolist() == sorted(want_ids)
    rows, first, inv, counts = unique_rows(m)
    u_rows, u_first, u_inv, u_counts = np.unique(m, axis=0, return_index=True, return_inverse=True, return_counts=True)
    assert (rows == u_rows).all() and first.tolist() == u_first.tolist()
    assert inv.tolist() == u_inv.ravel().tolist() and counts.tolist() == u_counts.tolist()
    keys = pack_keys([m[:, j] for j in range(r)])
    starts = run_starts(keys, order)
    assert starts.tolist() == [i == 0 or tuple(srt[i]) != tuple(srt[i - 1]) for i in range(n)]


def test_packed_keys_keep_the_order_of_wide_columns():
    rng = np.random.default_rng(1)
    m = np.stack([rng.integers(0, 2**40, 200), rng.integers(0, 2**40, 200), rng.integers(0, 3, 200)], axis=1)
    keys = pack_keys([m[:, j] for j in range(3)])
    assert 1 < len(keys) <= 3
    packed = list(zip(*[k.tolist() for k in keys]))
    assert sorted(range(200), key=lambda i: packed[i]) == sorted(range(200), key=lambda i: tuple(m[i]))
    # equal packed keys iff equal rows
    assert len(set(packed)) == len({tuple(x) for x in m})
    small = pack_keys([np.array([1, 0, 2]), np.array([0, 1, 1])])
    assert len(small) == 1 and small[0].tolist() == [1 * 2 + 0, 0 * 2 + 1, 2 * 2 + 1]  # radix 2 = max + 1
    assert pack_keys([np.array([], dtype=np.int64)])[0].size == 0
    with pytest.raises(InvalidParameterError, match="non-negative"):
        pack_keys([np.array([1, -1])])
    with pytest.raises(InvalidParameterError, match="at least one column"):
        group_ids([])
    assert group_ids([np.array([], dtype=np.int64)])[1] == 0
    rows, first, inv, counts = unique_rows(np.zeros((0, 2), dtype=np.int64))
    assert rows.shape == (0, 2) and len(first) == len(inv) == len(counts) == 0
    rows, first, inv, counts = unique_rows(np.zeros((4, 0), dtype=np.int64))
    assert len(rows) == 1 and counts.tolist() == [4] and inv.tolist() == [0] * 4


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("r", [1, 2, 3])
def test_long_tables_with_runs_group_like_the_oracle(dtype, r):
    """``group_rows`` takes a shortcut over runs of equal rows from 4096 rows on: equal rows in
    separate runs still share a group, and int32 pairs compared as one int64 stay exact."""
    rng = np.random.default_rng(r)
    base = rng.integers(0, 5, (40, r)).astype(dtype)
    reps = rng.integers(50, 200, 40)
    m = np.ascontiguousarray(np.repeat(base, reps, axis=0))
    m[-1] = m[0]  # an equal row far from its run
    want_ids, want_g = _oracle_ids(m)
    ids, g = group_rows(m)
    assert ids.tolist() == want_ids and g == want_g
    ids1, g1 = group_rows(m[:, 0], m[:, 1:]) if r > 1 else group_rows(m[:, 0])
    assert ids1.tolist() == want_ids and g1 == want_g
    # few runs: the shortcut; every row different: the plain path
    shuffled = m[rng.permutation(len(m))]
    ids2, g2 = group_rows(shuffled)
    assert ids2.tolist() == _oracle_ids(shuffled)[0] and g2 == want_g
    # a pair of columns differing only in the second int32 of a pair
    if dtype is np.int32 and r == 2:
        x = np.zeros((5000, 2), dtype=np.int32)
        x[2500:, 1] = 1
        ids3, g3 = group_rows(x)
        assert g3 == 2 and ids3[:2500].tolist() == [0] * 2500 and ids3[2500:].tolist() == [1] * 2500


def _dataset() -> Dataset:
    df = pd.DataFrame({"age": [30, 41, 30, 52, 41, 30, 52, 30], "zip": ["b", "a", "b", "a", "b", "a", "b", "b"],
                       "dis": ["x", "y", "x", "x", "y", "y", "x", "y"], "note": [3, 1, 2, 1, 3, 2, 1, 1]})
    hs = {"age": Hierarchy.intervals([30, 41, 52], [20], name="age"), "zip": Hierarchy.flat(["a", "b"], name="zip")}
    return Dataset(df, quasi_identifiers=["age", "zip"], sensitive=["dis"], insensitive=["note"], hierarchies=hs)


def test_full_domain_plan_cells_are_the_level_ancestors():
    ds = _dataset()
    hs = list(ds.hierarchies)
    for levels in [(0, 0), (1, 0), (2, 1), (np.int64(1), 1)]:
        plan = FullDomainPlan(levels)
        assert all(type(v) is int for v in plan.levels)
        lo, hi = plan.apply(hs, [ds.X[:, j] for j in range(ds.r)])
        assert lo.dtype == hi.dtype == np.int32 and lo.shape == (ds.n, ds.r)
        for i in range(ds.n):
            for j, h in enumerate(hs):
                a, b = h.level_intervals(int(levels[j]))
                assert (lo[i, j], hi[i, j]) == (a[ds.X[i, j]], b[ds.X[i, j]])
        labels = qi_labels(hs, lo, hi, levels=plan.levels)
        for j, h in enumerate(hs):
            assert labels[j] == [h.label_interval(lo[i, j], hi[i, j], level=int(levels[j])) for i in range(ds.n)]
        assert qi_labels(hs, lo, hi) == [h.labels(lo[:, j], hi[:, j]) for j, h in enumerate(hs)]
    with pytest.raises(InvalidParameterError, match="2 levels for 1 quasi-identifiers"):
        FullDomainPlan((0, 0)).apply(hs[:1], [ds.X[:, 0]])
    empty_lo, _ = FullDomainPlan((1, 1)).apply(hs, [np.zeros(0, dtype=np.int32)] * 2)
    assert empty_lo.shape == (0, 2)


def test_box_plan_gives_each_record_its_class_box():
    lo = np.array([[0, 1], [2, 0], [1, 1]])
    hi = np.array([[1, 1], [3, 2], [1, 4]])
    classes = np.array([2, 0, 0, 1, 2])
    got_lo, got_hi = BoxPlan(lo, hi).apply(classes)
    assert got_lo.dtype == np.int32 and got_lo.tolist() == [lo[c].tolist() for c in classes]
    assert got_hi.tolist() == [hi[c].tolist() for c in classes]


def test_content_order_sorts_by_content_and_is_stable():
    ds = _dataset()
    order = content_order(ds)
    sens = np.asarray(ds.sensitive_codes["dis"])
    note = ds.data["note"].to_numpy()

    def key(i):
        return (*(int(x) for x in ds.X[i]), int(sens[i]), int(note[i]), i)

    assert order.tolist() == sorted(range(ds.n), key=key)


def test_catalog_loads_the_module_that_registers_each_algorithm():
    from ktype.algorithms._registry import all_algorithms

    assert _catalog.load("no_such_algorithm") is False
    # in a fresh interpreter (here another test may have registered every algorithm already, and a
    # module imported twice would register its algorithms twice)
    code = ("import sys\nfrom ktype.algorithms import _catalog\nmod = _catalog.CATALOG['tds']\n"
            "assert mod not in sys.modules\nassert _catalog.load('tds') is True and mod in sys.modules\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    _catalog.load_all()
    assert all(m in sys.modules for m in _catalog.CATALOG.values())
    assert set(_catalog.CATALOG) == {a.name for a in all_algorithms()}


def test_packed_keys_stay_exact_beyond_float_precision():
    """Two columns of about 2**30 values pack into one key near 2**60: rows differing by one
    in the last column must still be different groups (a key held as float64 would merge them)."""
    big = 2**30 - 1
    c0 = np.array([big, big, big, 0])
    c1 = np.array([0, 1, big, 1])
    keys = pack_keys([c0, c1])
    assert len(keys) == 1 and keys[0].dtype == np.int64
    assert keys[0].tolist() == [big * (big + 1) + 0, big * (big + 1) + 1, big * (big + 1) + big, 1]
    ids, g = group_ids([c0, c1])
    assert g == 4 and len(set(ids.tolist())) == 4
