"""The packed keys behind ktype.dask's group-bys are one-to-one: two published rows get the
same class keys exactly when they have the same cell in every quasi-identifier, and a packed
(value, lo, hi) triple unpacks to itself. A collision would merge two classes and let the
distributed checker pass a release the in-memory checker fails."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("dask.dataframe")

from ktype.dask._keys import SUP, _CellTriples, _ClassKeys, _key_chunks, hicol, locol, scol, xcol  # noqa: E402


@st.composite
def releases(draw, max_size: int = 12):
    sizes = draw(st.lists(st.sampled_from([1, 2, 3, 5, max_size, 2**20 + 7, 2**31 - 1]), min_size=1, max_size=5))
    n = draw(st.integers(1, 80))
    cols: dict[str, np.ndarray] = {}
    for j, size in enumerate(sizes):
        # few distinct values per column, so that equal cells and near-collisions both occur
        pool = draw(st.lists(st.tuples(st.integers(0, size - 1), st.integers(0, size - 1)), min_size=1, max_size=4))
        pool = [(min(a, b), max(a, b)) for a, b in pool]
        pick = np.array(draw(st.lists(st.integers(0, len(pool) - 1), min_size=n, max_size=n)))
        cells = np.array(pool, dtype=np.int64)[pick]
        cols[locol(j)], cols[hicol(j)] = cells[:, 0].astype(np.int32), cells[:, 1].astype(np.int32)
        cols[xcol(j)] = cells[:, 0].astype(np.int32)
    cols[SUP] = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    cols[scol(0)] = np.arange(n, dtype=np.int32) % 3
    return sizes, pd.DataFrame(cols)


def same_partition(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    """Do the rows of ``a`` and of ``b`` fall into the same groups of equal rows?"""
    ga = a.groupby(list(a.columns), sort=False).ngroup().to_numpy()
    gb = b.groupby(list(b.columns), sort=False).ngroup().to_numpy()
    pairs = pd.DataFrame({"a": ga, "b": gb}).drop_duplicates()
    return bool(pairs["a"].is_unique and pairs["b"].is_unique)


@settings(max_examples=200, deadline=None)
@given(releases())
def test_class_keys_group_rows_exactly_as_their_cells(case):
    sizes, part = case
    out = _ClassKeys(sizes, 1)(part)
    kept = part[~part[SUP]].reset_index(drop=True)
    assert len(out) == len(kept)
    cells = kept[[c for j in range(len(sizes)) for c in (locol(j), hicol(j))]]
    keys = out[[c for c in out.columns if c.startswith("__k")]]
    if len(kept):
        assert same_partition(cells, keys)
    np.testing.assert_array_equal(out[scol(0)].to_numpy(), kept[scol(0)].to_numpy())


@given(st.lists(st.integers(1, 2**31 - 1), min_size=1, max_size=12))
def test_key_chunks_cover_every_column_in_order_and_fit_int64(sizes):
    chunks = _key_chunks(sizes)
    assert [j for c in chunks for j in c] == list(range(len(sizes)))
    for c in chunks:
        assert c and (len(c) == 1 or np.prod([float(sizes[j]) ** 2 for j in c]) < 2.0**62)


@settings(max_examples=200, deadline=None)
@given(releases(max_size=2**20))
def test_cell_triples_unpack_to_the_cells(case):
    sizes, part = case
    if max(sizes) >= 2**21:
        with pytest.raises(Exception, match="2,097,152 leaves"):
            _CellTriples(sizes)
        return
    fn = _CellTriples(sizes)
    out = fn(part)
    for j in range(len(sizes)):
        x, lo, hi = fn.unpack(j, out[f"__t{j}"].to_numpy(np.int64))
        np.testing.assert_array_equal(x, part[xcol(j)].to_numpy(np.int64))
        np.testing.assert_array_equal(lo, part[locol(j)].to_numpy(np.int64))
        np.testing.assert_array_equal(hi, part[hicol(j)].to_numpy(np.int64))
