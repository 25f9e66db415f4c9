"""The distributed risk summary's per-k counts against a pandas recount: for k = 2, 3, 5 and
10, the records in classes of fewer than k records (the records a k-anonymity check would
refuse), on the synchronous scheduler."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("dask.dataframe")

import dask.dataframe as dd  # noqa: E402

import ktype.dask as kd  # noqa: E402

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("seed", [0, 1])
def test_records_violating_k_anonymity_equal_a_group_by_recount(seed):
    rng = np.random.default_rng(seed)
    n = 400
    df = pd.DataFrame({"age": rng.integers(20, 45, n), "zip": rng.choice(["10055", "10023", "10165"], n),
                       "disease": rng.choice(["flu", "cold"], n)})
    tab = kd.from_dask(dd.from_pandas(df, npartitions=3), scheduler="sync", quasi_identifiers=["age", "zip"],
                       sensitive=["disease"])
    got = kd.risk(tab)["records_violating_k_anonymity"]
    size = df.groupby(["age", "zip"])["age"].transform("size").to_numpy()
    want = {str(k): int((size < k).sum()) for k in (2, 3, 5, 10)}
    assert got == want
    assert 0 < want["2"] < want["10"] < n  # the fixture has classes on both sides of every k
