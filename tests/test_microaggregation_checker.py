"""The independent checker of micro-aggregated tables (ktype.models.microaggregation) against
pandas: the group sizes are value counts of the published combinations, a centroid is the
groupby mean of the original values, and a published value that misses the mean by one part
in a million is not the mean (the checker's tolerance is 1e-9 relative)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ktype
from ktype.models.microaggregation import check_microaggregation


def _dataset(seed: int) -> ktype.Dataset:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"age": rng.integers(18, 90, 24), "income": rng.integers(1_000, 90_000, 24)})
    return ktype.Dataset(df, quasi_identifiers=["age", "income"])


def _aggregate(ds: ktype.Dataset, groups: np.ndarray) -> pd.DataFrame:
    """The table published in input order, each row replaced by its group's mean (pandas)."""
    return ds.data[["age", "income"]].astype(float).groupby(groups).transform("mean")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_summary_and_verdict_equal_a_pandas_recount(seed):
    ds = _dataset(seed)
    groups = np.repeat(np.arange(8), 3)
    groups[-1] = 6  # sizes 3 x 6, 4 and 2
    table = _aggregate(ds, groups)
    counts = table.value_counts()
    for k in (2, 3, 4):
        res = check_microaggregation(ds, table, np.arange(24), k)
        assert res.summary["groups"] == len(counts)
        assert res.summary["smallest_group"] == counts.min()
        assert res.summary["small_group_rows"] == int(counts[counts < k].sum())
        assert res.summary["wrong_centroid_rows"] == 0
        assert res.satisfied == bool((counts >= k).all())


def test_a_centroid_off_by_one_part_in_a_million_is_refused():
    ds = _dataset(3)
    groups = np.repeat(np.arange(6), 4)
    table = _aggregate(ds, groups)
    assert check_microaggregation(ds, table, np.arange(24), 4).satisfied
    off = table.copy()
    off.loc[groups == 2, "income"] *= 1 + 1e-6  # the whole group moves: sizes unchanged
    res = check_microaggregation(ds, off, np.arange(24), 4)
    assert not res.satisfied and res.summary["wrong_centroid_rows"] == 4
    assert list(np.flatnonzero(~res.per_record)) == list(np.flatnonzero(groups == 2))


def test_refusals_say_why():
    ds = _dataset(4)
    table = _aggregate(ds, np.repeat(np.arange(6), 4))
    res = check_microaggregation(ds, table.drop(columns="income"), None, 2)
    assert not res.satisfied and res.summary["error"] == "quasi-identifier column(s) ['income'] absent from the table"
    twice = np.arange(24)
    twice[1] = 0
    res = check_microaggregation(ds, table, twice, 2)
    assert not res.satisfied and res.summary["error"] == "the published rows are not the input rows, each once"
    assert check_microaggregation(ds, table, np.arange(24)[::-1].copy(), 2).summary["wrong_centroid_rows"] > 0
