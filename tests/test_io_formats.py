"""The table of release formats (``ktype.io.formats``): every writer's file is recognized by
its own entry and read back by that entry's reader, and ``ktype check`` audits every format
through the same table (an anatomy prefix goes to the anatomy check)."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

import ktype
from ktype.algorithms import run
from ktype.algorithms.transparent.anatomy import anatomize, write_anatomy
from ktype.cli import app
from ktype.exceptions import DataError
from ktype.io.formats import FORMATS, format_of, read_release
from ktype.models.kanonymity import KAnonymity

runner = CliRunner()


@pytest.fixture(scope="module")
def release():
    ds = ktype.load_adult(n=300, quasi_identifiers=["sex", "age", "race"], sensitive=("education",))
    return run("mondrian", ds, KAnonymity(4))


@pytest.mark.parametrize(("name", "fmt"), [("r.csv", "csv"), ("r.tsv", "csv"), ("r.parquet", "parquet"), ("r.pq", "parquet")])
def test_each_written_file_is_read_by_its_own_format(release, tmp_path, name, fmt):
    path = release.save(tmp_path / name)
    assert format_of(path).name == fmt
    df, meta = read_release(path)
    want = release.to_pandas()
    assert meta is not None and meta["published_rows"] == len(want) == len(df)
    assert list(df.columns) == list(want.columns)
    assert (df.astype(str).to_numpy() == want.astype(str).to_numpy()).all()


def test_a_directory_is_a_partitioned_release(release, tmp_path):
    out = tmp_path / "parts"
    want = release.to_pandas()

    def files(tmp):
        tmp.mkdir()
        want.iloc[:100].to_parquet(tmp / "part.0.parquet", index=False)
        want.iloc[100:].to_parquet(tmp / "part.1.parquet", index=False)

    FORMATS["partitioned"].write(out, files, lambda tmp: {**release.metadata(), "partitions": 2})
    assert format_of(out).name == "partitioned"
    df, meta = read_release(out)
    assert meta["partitions"] == 2 and len(df) == len(want)
    assert (df.astype(str).to_numpy() == want.astype(str).to_numpy()).all()
    with pytest.raises(ktype.exceptions.OutputPathError, match="exists"):
        FORMATS["partitioned"].write(out, files, lambda tmp: {})


def test_a_failed_partitioned_write_leaves_nothing(tmp_path):
    def files(tmp):
        tmp.mkdir()
        pd.DataFrame({"a": [1]}).to_parquet(tmp / "part.0.parquet")

    def refuse(tmp):
        raise ktype.exceptions.VerificationError("no")

    with pytest.raises(ktype.exceptions.VerificationError):
        FORMATS["partitioned"].write(tmp_path / "out", files, refuse)
    assert list(tmp_path.iterdir()) == []


def _anatomy(tmp_path):
    ds = ktype.load_adult(n=300, quasi_identifiers=["sex", "age", "race"], sensitive=("education",))
    src = tmp_path / "orig.csv"
    ds.data.to_csv(src, index=False)
    write_anatomy(anatomize(ds, "hybrid", 3, rng=0), tmp_path / "rel")
    return src, tmp_path / "rel"


def test_an_anatomy_prefix_is_its_format_and_no_single_table(tmp_path):
    _, prefix = _anatomy(tmp_path)
    assert format_of(prefix).name == "anatomy"
    qi, st = FORMATS["anatomy"].read(prefix)
    assert "group" in qi.columns and "group" in st.columns
    with pytest.raises(DataError, match="anatomy release.*check-anatomy"):
        read_release(prefix)
    with pytest.raises(DataError, match="not found"):
        format_of(tmp_path / "nothing")


def test_ktype_check_audits_an_anatomy_release(tmp_path):
    src, prefix = _anatomy(tmp_path)
    roles = ["--qi", "sex,age,race", "--sensitive", "education"]
    res = runner.invoke(app, ["check", str(prefix), "--l", "3", "--original", str(src), *roles, "--json"])
    assert res.exit_code == 0, res.output
    rep = json.loads(res.stdout)
    assert rep["satisfied"] is True and rep["groups_match_input"] is True
    res = runner.invoke(app, ["check", str(prefix), "--l", "40", "--original", str(src), *roles, "--json"])
    assert res.exit_code == 1 and json.loads(res.stdout)["satisfied"] is False
