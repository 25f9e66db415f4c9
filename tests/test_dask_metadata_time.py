"""The metadata of a partitioned release says when it was written in UTC (the ``Z`` of its
ISO timestamp), whatever the time zone of the machine that wrote it."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("dask.dataframe")

import dask.dataframe as dd  # noqa: E402

import ktype.dask as kd  # noqa: E402
from ktype.models.kanonymity import KAnonymity  # noqa: E402

pytestmark = pytest.mark.timeout(120)


def test_created_is_utc_on_a_machine_in_another_time_zone(tmp_path, monkeypatch):
    monkeypatch.setenv("TZ", "Pacific/Kiritimati")  # UTC+14: a local time is never within minutes of UTC
    time.tzset()
    try:
        rng = np.random.default_rng(0)
        df = pd.DataFrame({"age": rng.integers(20, 40, 200), "disease": rng.choice(["flu", "cold"], 200)})
        tab = kd.from_dask(dd.from_pandas(df, npartitions=2), scheduler="sync", quasi_identifiers=["age"],
                           sensitive=["disease"], hierarchies={"age": {"intervals": [5, 10]}})
        out = tmp_path / "release"
        kd.write_release(kd.flash(tab, KAnonymity(3)), out)
        before = datetime.now(UTC)
        meta = json.loads((out / "_ktype_release.json").read_text())
    finally:
        monkeypatch.undo()  # the machine's own zone back
        time.tzset()
    created = datetime.strptime(meta["created"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    assert abs((before - created).total_seconds()) < 600
