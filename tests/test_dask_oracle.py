"""ktype.dask against the in-memory library where the comparisons of test_dask.py do not reach:
an empty table, the population a risk names, the metadata written beside a partitioned
release, the models given as a list to local recoding, and the message a user without Dask
gets. Synchronous scheduler (the results do not depend on where tasks run)."""

from __future__ import annotations

import datetime as dt
import json
import sys
import time

import pandas as pd
import pytest

pytest.importorskip("dask.dataframe")

import dask.dataframe as dd  # noqa: E402

import ktype  # noqa: E402
import ktype.dask as kd  # noqa: E402
from ktype.algorithms import run  # noqa: E402
from ktype.exceptions import DataError, InvalidParameterError  # noqa: E402
from ktype.models.kanonymity import KAnonymity  # noqa: E402
from ktype.risk import reidentification_risk  # noqa: E402
from tests.test_dask import ROLES, both, table_frame  # noqa: E402

pytestmark = pytest.mark.timeout(300)


def test_an_empty_table_is_refused_as_the_in_memory_dataset_refuses_it():
    df = table_frame(10).iloc[:0]
    with pytest.raises(DataError) as mem:
        ktype.Dataset(df, **ROLES, identifiers=["name"])
    with pytest.raises(DataError) as dist:
        kd.from_dask(dd.from_pandas(df, npartitions=1), scheduler="sync", **ROLES, identifiers=["name"])
    assert str(dist.value) == str(mem.value)


@pytest.mark.parametrize("kw", [{}, {"sampling_fraction": 0.1}])
def test_risk_names_its_population_as_the_in_memory_risk_does(kw):
    ds, tab = both(table_frame(400, seed=2), "sync", parts=3)
    assert kd.risk(tab, **kw)["population"] == reidentification_risk(ds, **kw).population


def test_written_metadata_records_the_parameters_and_the_utc_time(tmp_path, monkeypatch):
    """The sidecar of a partitioned release names the algorithm's parameters as the in-memory
    release's metadata does, and its creation time is UTC whatever the local time zone."""
    ds, tab = both(table_frame(600, seed=5), "sync")
    rel = run("flash", ds, KAnonymity(5), max_suppression=0.02)
    drel = kd.flash(tab, KAnonymity(5), max_suppression=0.02)
    monkeypatch.setenv("TZ", "XYZ+07")  # seven hours behind UTC
    time.tzset()
    try:
        before = dt.datetime.now(dt.UTC).replace(microsecond=0)
        kd.write_release(drel, tmp_path / "release")
        after = dt.datetime.now(dt.UTC)
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    meta = json.loads((tmp_path / "release" / "_ktype_release.json").read_text())
    assert meta["parameters"] == rel.metadata()["parameters"] and meta["parameters"]["max_suppression"] == 0.02
    created = dt.datetime.strptime(meta["created"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)
    assert before <= created <= after


def test_local_recoding_takes_its_model_alone_or_in_a_list():
    from ktype.models import KConcealment

    tab = kd.from_dask(dd.from_pandas(table_frame(300, 9).drop(columns="name"), npartitions=2), scheduler="sync",
                        **ROLES)
    alone = kd.local_recoding(tab, "k_concealment", KConcealment(3), rng=5, max_partition_rows=160)
    listed = kd.local_recoding(tab, "k_concealment", [KConcealment(3)], rng=5, max_partition_rows=160)
    a, b = (r.frame.compute(scheduler="sync").reset_index(drop=True) for r in (alone, listed))
    pd.testing.assert_frame_equal(a, b)


def test_without_dask_the_message_says_what_to_install(monkeypatch):
    monkeypatch.delitem(vars(kd), "flash", raising=False)  # not yet looked up: __getattr__ runs
    monkeypatch.setitem(sys.modules, "dask.dataframe", None)  # import dask.dataframe fails
    with pytest.raises(InvalidParameterError, match=r"pip install 'ktype\[dask\]'"):
        kd.flash  # noqa: B018 - the attribute access is the test
