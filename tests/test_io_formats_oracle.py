"""The release formats and their metadata against what each promises, checked on the files.

* ``format_of`` recognizes each layout on disk (directory, anatomy prefix, Parquet, CSV) and
  refuses a path that holds none;
* what ``write_table`` and the format writers put on disk reads back cell for cell (pandas and
  pyarrow read the files here independently), with the metadata where the format keeps it;
* ``parse_metadata`` refuses what is no ktype metadata, or too new, naming the file;
* the hierarchy fingerprint depends on the structure and the generalized labels, never on the
  leaf values (a digest of those would let anyone confirm a guessed value offline).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ktype import Hierarchy
from ktype.exceptions import DataError, OutputPathError, VerificationError
from ktype.io import anatomy, parquet, partitioned
from ktype.io.formats import FORMATS, format_of, read_release, write_table
from ktype.io.metadata import (
    METADATA_FILE,
    METADATA_FORMAT,
    METADATA_VERSION,
    PARQUET_KEY,
    dtype_name,
    hierarchy_fingerprint,
    jsonable,
    parse_metadata,
    sidecar_path,
    versions,
)

pytestmark = pytest.mark.timeout(120)

TABLE = pd.DataFrame({"zip": ["02139", "941**", "*"], "age": ["[30-39]", "41", "*"], "n": [1, 2, 3]})


def _meta(**extra) -> dict:
    return {"format": METADATA_FORMAT, "format_version": METADATA_VERSION, **extra}


def test_format_of_recognizes_each_layout(tmp_path):
    (tmp_path / "dir").mkdir()
    (tmp_path / "t.parquet").write_bytes(b"x")
    (tmp_path / "t.PQ").write_bytes(b"x")
    (tmp_path / "t.csv").write_text("a\n1\n")
    (tmp_path / "p.qi.csv").write_text("a\n")
    (tmp_path / "p.sensitive.csv").write_text("a\n")
    (tmp_path / "half.qi.csv").write_text("a\n")
    assert format_of(tmp_path / "dir").name == "partitioned"
    assert format_of(tmp_path / "p").name == "anatomy"
    assert format_of(tmp_path / "t.parquet").name == "parquet"
    assert format_of(str(tmp_path / "t.PQ")).name == "parquet"
    assert format_of(tmp_path / "t.csv").name == "csv"
    for missing in ("half", "nothing.csv", "nothing.parquet"):
        with pytest.raises(DataError, match="Release file not found"):
            format_of(tmp_path / missing)
    assert [f.name for f in FORMATS.values() if f.table] == ["partitioned", "parquet", "csv"]
    with pytest.raises(DataError, match=r"anatomy release \(p.qi.csv, p.sensitive.csv\).*check-anatomy"):
        read_release(tmp_path / "p")


@pytest.mark.parametrize("name", ["t.csv", "t.tsv", "t.parquet"])
@pytest.mark.parametrize("escape", [True, False])
def test_write_table_reads_back_cell_for_cell(tmp_path, name, escape):
    df = pd.DataFrame({"a": ["=1+1", "x,y", "02139"], "b": [1, 2, 3]})
    path = write_table(df, tmp_path / "sub" / name, csv_escape=escape)
    assert path == tmp_path / "sub" / name and path.exists()
    if name.endswith(".parquet"):
        back = pq.read_table(path).to_pandas()
        pd.testing.assert_frame_equal(back, df)
        return
    text = path.read_text()
    sep = "\t" if name.endswith(".tsv") else ","
    back = pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False)
    assert list(back.columns) == ["a", "b"] and list(back["b"]) == ["1", "2", "3"]
    assert back["a"].iloc[2] == "02139" and back["a"].iloc[1] == "x,y"
    assert (back["a"].iloc[0] == "=1+1") != escape  # escaped against formulas unless asked not to
    assert (sep in text.splitlines()[0])


def test_write_table_explicit_format_and_separator(tmp_path):
    path = write_table(TABLE, tmp_path / "t.csv", format="parquet")
    pd.testing.assert_frame_equal(pq.read_table(path).to_pandas(), TABLE)
    path = write_table(TABLE, tmp_path / "u.csv", sep=";")
    assert pd.read_csv(path, sep=";", dtype=str).shape == TABLE.shape
    with pytest.raises(OutputPathError, match="does not exist"):
        write_table(TABLE, tmp_path / "missing" / "t.csv", mkdirs=False)


def test_parquet_release_keeps_its_metadata(tmp_path):
    meta = _meta(k=3, columns=["zip"])
    path = parquet.write(tmp_path / "r.parquet", TABLE, meta)
    raw = pq.read_schema(path).metadata[PARQUET_KEY]
    assert json.loads(raw) == meta
    df, got = read_release(path)
    assert got == meta
    assert list(df["zip"]) == ["02139", "941**", "*"] and list(df["n"]) == [1, 2, 3]
    plain = tmp_path / "plain.parquet"
    pq.write_table(pa.Table.from_pandas(TABLE, preserve_index=False), plain)
    assert parquet.read(plain)[1] is None
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"not parquet")
    with pytest.raises(DataError, match="Cannot read"):
        read_release(bad)
    assert parquet.detect(tmp_path / "x.Parquet") and not parquet.detect(tmp_path / "x.csv")


def test_partitioned_release_reads_its_files_in_name_order(tmp_path):
    parts = [TABLE.iloc[[2]], TABLE.iloc[0:0], TABLE.iloc[[0, 1]]]

    def write_files(tmp: Path) -> None:
        tmp.mkdir()
        for i, part in enumerate(parts):
            part.to_parquet(tmp / f"part.{i}.parquet", index=False)
        TABLE.to_parquet(tmp / "_skipped.parquet", index=False)
        TABLE.to_parquet(tmp / ".hidden.parquet", index=False)

    seen = []

    def describe(tmp: Path) -> dict:
        seen.append(sorted(p.name for p in tmp.iterdir()))
        return _meta(rows=np.int64(3), cols=("zip",))

    out = partitioned.write(tmp_path / "rel", write_files, describe)
    assert out.is_dir() and "part.0.parquet" in seen[0]
    side = json.loads((out / METADATA_FILE).read_text())
    assert side["rows"] == 3 and side["cols"] == ["zip"]
    df, meta = read_release(out)
    assert meta == side
    assert list(df["zip"]) == ["*", "02139", "941**"]
    for f in out.iterdir():
        if not f.name.endswith(".parquet"):
            f.unlink()
    assert partitioned.read(out)[1] is None
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "note.txt").write_text("x")
    with pytest.raises(DataError, match="without Parquet files"):
        read_release(empty)
    only_empty = tmp_path / "only_empty"
    only_empty.mkdir()
    TABLE.iloc[0:0].to_parquet(only_empty / "a.parquet", index=False)
    with pytest.raises(DataError, match="no data rows"):  # a clear error, not an empty table
        partitioned.read(only_empty)


def test_anatomy_tables_round_trip_as_text(tmp_path):
    qi = pd.DataFrame({"zip": ["02139", "0213*"], "gid": [1, 2]})
    sens = pd.DataFrame({"gid": [1, 2], "disease": ["flu\nsevere", "none"]})
    qp, sp = anatomy.write(tmp_path / "p", qi, sens)
    assert (qp.name, sp.name) == ("p.qi.csv", "p.sensitive.csv")
    assert anatomy.paths(tmp_path / "p") == (qp, sp)
    assert anatomy.detect(tmp_path / "p") and not anatomy.detect(qp)
    q2, s2 = anatomy.read(tmp_path / "p")
    assert list(q2["zip"]) == ["02139", "0213*"] and list(q2["gid"]) == ["1", "2"]
    assert list(s2["disease"]) == ["flu\nsevere", "none"]
    sp.unlink()
    with pytest.raises(DataError, match=r"Anatomy table not found: .*p.sensitive.csv \(expected p.qi.csv and p.sensitive.csv\)"):
        anatomy.read(tmp_path / "p")


def test_parse_metadata_refuses_what_is_no_ktype_metadata(tmp_path):
    where = tmp_path / "r.ktype.json"
    assert parse_metadata(json.dumps(_meta(k=2)), where)["k"] == 2
    assert parse_metadata(json.dumps({"format": METADATA_FORMAT}), where) == {"format": METADATA_FORMAT}
    cases = [("{not json", "not valid JSON"), ("[1, 2]", "does not hold ktype release metadata"),
             (json.dumps({"format": "other"}), "does not hold ktype release metadata"),
             (json.dumps(_meta(format_version=METADATA_VERSION + 1)), f"version {METADATA_VERSION + 1}.*Upgrade")]
    for text, needle in cases:
        with pytest.raises(DataError, match=needle) as err:
            parse_metadata(text, where)
        assert str(where) in str(err.value)
    assert sidecar_path("a/b.csv") == Path("a/b.ktype.json")
    assert sidecar_path(Path("x.tsv")) == Path("x.ktype.json")


def test_hierarchy_fingerprint_hides_the_leaves_and_sees_the_structure():
    a = Hierarchy.intervals([1, 2, 5, 7], [5], name="x")
    b = Hierarchy.intervals([0, 3, 6, 9], [5], name="y")  # other leaves, same tree and labels
    assert hierarchy_fingerprint(a) == hierarchy_fingerprint(b)
    c = Hierarchy.intervals([1, 2, 5, 7], [10], name="x")  # other structure
    d = Hierarchy.from_subsets(["a", "b", "c", "d"], [["a", "b"], ["c", "d"]], labels=["L", "R"])
    e = Hierarchy.from_subsets(["a", "b", "c", "d"], [["a", "b"], ["c", "d"]], labels=["L", "S"])
    f = Hierarchy.from_subsets(["a", "b", "c", "d"], [["a", "b", "c"]], labels=["L"])
    g = Hierarchy.ordered([1, 2, 5, 7])
    h = Hierarchy.ordered([1, 2, 5])
    prints = [hierarchy_fingerprint(x) for x in (a, c, d, e, f, g, h)]
    assert len(set(prints)) == len(prints)
    assert all(len(p) == 32 and int(p, 16) >= 0 for p in prints)
    assert hierarchy_fingerprint(Hierarchy.ordered([3, 4, 8, 9])) == prints[5]


def test_dtype_names_and_json_values():
    assert dtype_name(pd.Series([True, False])) == "boolean"
    assert dtype_name(pd.Series([1, 2])) == "integer"
    assert dtype_name(pd.Series([1.5])) == "float"
    assert dtype_name(pd.Series(pd.to_datetime(["2020-01-01"]))) == "datetime"
    assert dtype_name(pd.Series(["a"])) == "string"
    value = {1: np.int64(2), "t": (np.float32(0.5), [np.bool_(True), None]), "a": np.arange(3), "p": Path("x")}
    got = jsonable(value)
    assert got == {"1": 2, "t": [0.5, [True, None]], "a": [0, 1, 2], "p": "x"}
    assert json.loads(json.dumps(got)) == got
    assert type(got["1"]) is int and type(got["t"][1][0]) is bool
    v = versions()
    assert {"ktype", "python", "numpy", "pandas", "numba"} <= set(v) and v["numpy"] == np.__version__


def test_anatomy_cells_are_written_as_they_are(tmp_path):
    """The anatomy tables are read back as text and validated: a cell that looks like a
    formula must not be altered on the way (no spreadsheet escaping)."""
    qi = pd.DataFrame({"zip": ["=1+1", "+3", "-2", "@x"], "gid": [1, 1, 2, 2]})
    sens = pd.DataFrame({"gid": [1, 2], "disease": ["=cmd", "none"]})
    anatomy.write(tmp_path / "p", qi, sens)
    q2, s2 = anatomy.read(tmp_path / "p")
    assert list(q2["zip"]) == ["=1+1", "+3", "-2", "@x"] and list(s2["disease"]) == ["=cmd", "none"]


def test_read_release_uses_the_separator_it_is_given(tmp_path):
    """An explicit separator wins over the sniffed one (here ';' would be sniffed)."""
    path = tmp_path / "t.csv"
    path.write_text("zip,age;x\n941**,30;1\n*,41;2\n")
    df, meta = read_release(path, sep=",")
    assert meta is None and list(df.columns) == ["zip", "age;x"] and list(df["age;x"]) == ["30;1", "41;2"]
    assert list(read_release(path)[0].columns) == ["zip,age", "x"]


def test_parquet_files_hold_exactly_the_published_columns(tmp_path):
    shuffled = TABLE.iloc[[2, 0, 1]]  # a non-default index must not become a column
    path = write_table(shuffled, tmp_path / "t.parquet")
    assert pq.read_schema(path).names == list(TABLE.columns)
    path = parquet.write(tmp_path / "r.parquet", TABLE, _meta())
    assert pq.read_schema(path).names == list(TABLE.columns)


def test_a_parquet_file_that_does_not_read_back_is_not_kept(tmp_path, monkeypatch):
    real = pq.write_table

    def lossy(table, where, **kw):  # a writer that drops the last row
        real(table.slice(0, table.num_rows - 1), where, **kw)

    monkeypatch.setattr(pq, "write_table", lossy)
    with pytest.raises(VerificationError):
        parquet.write(tmp_path / "r.parquet", TABLE, _meta())
    assert list(tmp_path.iterdir()) == []
