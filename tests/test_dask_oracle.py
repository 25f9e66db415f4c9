"""ktype.dask against the in-memory library where the comparisons of test_dask.py do not reach:
an empty table. Synchronous scheduler (the results do not depend on where tasks run)."""

from __future__ import annotations

import pytest

pytest.importorskip("dask.dataframe")

import dask.dataframe as dd  # noqa: E402

import ktype  # noqa: E402
import ktype.dask as kd  # noqa: E402
from ktype.exceptions import DataError  # noqa: E402
from tests.test_dask import ROLES, table_frame  # noqa: E402

pytestmark = pytest.mark.timeout(300)


def test_an_empty_table_is_refused_as_the_in_memory_dataset_refuses_it():
    df = table_frame(10).iloc[:0]
    with pytest.raises(DataError) as mem:
        ktype.Dataset(df, **ROLES, identifiers=["name"])
    with pytest.raises(DataError) as dist:
        kd.from_dask(dd.from_pandas(df, npartitions=1), scheduler="sync", **ROLES, identifiers=["name"])
    assert str(dist.value) == str(mem.value)
