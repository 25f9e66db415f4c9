"""Writing a local-recoding release made at scale (kd.local_recoding): the directory holds
exactly the verified rows, its metadata says how it was verified, the whole written table
passes the model's own checker in memory, and files that differ from the verified rows are
refused without leaving anything (docs/scale.md, "Local recoding")."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("dask.dataframe")

import dask.dataframe as dd  # noqa: E402

import ktype.dask as kd  # noqa: E402
from ktype import Dataset  # noqa: E402
from ktype.exceptions import InvalidParameterError, VerificationError  # noqa: E402
from ktype.models import KConcealment  # noqa: E402
from ktype.models.freeform import FreeformKAnonymity  # noqa: E402

ROLES = dict(quasi_identifiers=["age", "zip"], sensitive=["disease"], identifiers=["name"],
             hierarchies={"age": {"intervals": [5, 10, 20, 40]}, "zip": {"masking": [1, 2, 3, 5]}})


def frame(n: int = 600, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(20, 60, n), "zip": rng.choice(["10055", "10023", "10165", "20001"], n),
                         "disease": rng.choice(["flu", "cold", "cancer"], n), "name": [f"p{i}" for i in range(n)]})


def rows(df: pd.DataFrame) -> list[tuple]:
    return sorted(map(tuple, df.astype(str).to_numpy().tolist()))


def local_release(df: pd.DataFrame, k: int = 4):
    tab = kd.from_dask(dd.from_pandas(df, npartitions=3), scheduler="sync", **ROLES)
    return tab, kd.local_recoding(tab, "k_concealment", KConcealment(k), rng=7, max_partition_rows=200)


def test_a_local_recoding_release_is_written_with_its_verified_rows(tmp_path):
    from ktype.audit import audit

    df = frame()
    tab, rel = local_release(df)
    out = tmp_path / "release"
    got = kd.write_release(rel, out)
    assert [s.model for s in got] == ["KConcealment(k=4)"] and got[0].summary["records"] == len(df)
    written = pd.read_parquet(out)
    assert "name" not in written.columns and rows(written) == rows(rel.to_pandas())
    meta = json.loads((out / "_ktype_release.json").read_text())
    assert meta["recoding"] == "local" and meta["verified"] is True and meta["published_rows"] == len(df)
    assert meta["models"][0]["model"].startswith("KConcealment")
    # the written table as a whole, against the original records, in memory: the union of regions is 4-concealed
    report = audit(Dataset(df, **ROLES), out)
    assert report.passed, report.findings
    assert [p.name for p in tmp_path.iterdir()] == ["release"]


def test_files_that_differ_from_the_verified_rows_are_refused(tmp_path, monkeypatch):
    df = frame(seed=4)
    tab, rel = local_release(df)
    eng = tab.engine
    real = type(eng).write_parquet

    def forged(self, pub, path):  # one published cell changed on its way to the disk
        def change(part: pd.DataFrame) -> pd.DataFrame:
            part = part.copy()
            if len(part):
                part.iloc[0, part.columns.get_loc("zip")] = "*"
            return part

        real(self, pub.map_partitions(change, meta=pub._meta), path)

    monkeypatch.setattr(type(eng), "write_parquet", forged)
    with pytest.raises(VerificationError, match="do not hold the verified rows.*Nothing was published"):
        kd.write_release(rel, tmp_path / "release")
    assert list(tmp_path.iterdir()) == []


def test_a_freeform_release_at_scale_is_refused_by_name(tmp_path):
    df = frame(seed=5)
    tab = kd.from_dask(dd.from_pandas(df, npartitions=2), scheduler="sync", **ROLES)
    rel = kd.local_recoding(tab, "freeform_sortgreedy", FreeformKAnonymity(3), rng=1, max_partition_rows=200)
    with pytest.raises(InvalidParameterError, match="freeform release at scale is not written"):
        kd.write_release(rel, tmp_path / "release")
    assert list(tmp_path.iterdir()) == []
