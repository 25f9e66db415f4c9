"""Issue #31, section 3: "verified" means the file on disk.

A cell holding a bare carriage return (or another character some CSV reader ends a row
at) must be quoted, so that the 300-row release reads back as 300 rows with every cell in
its column; and the verdict ``anonymize`` prints and records must be about the written
file, which is read back and compared before it is put in place.
"""

from __future__ import annotations

import csv
import io
import json
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import ktype
from ktype.cli import app
from ktype.data.dataset import read_table
from ktype.io import _csvtext, _readback
from ktype.release import read_release, sidecar_path

runner = CliRunner()

#: every character str.splitlines breaks on; pandas and the csv module break on \r and \n
BREAKS = {"CR": "\r", "LF": "\n", "CRLF": "\r\n", "VT": "\v", "FF": "\f", "FS": "\x1c", "GS": "\x1d", "RS": "\x1e",
          "NEL": "\x85", "LS": "\u2028", "PS": "\u2029"}


def _table(ch: str, n: int = 300) -> pd.DataFrame:
    """300 rows; the sensitive and insensitive columns hold cells with ``ch`` inside, at the
    start (a spreadsheet trigger for \\r) and at the end."""
    i = np.arange(n)
    return pd.DataFrame({
        "age": 20 + (i * 7) % 50,
        "zip": [f"941{(j * 3) % 20:02d}" for j in i],
        "disease": np.array([f"flu{ch}cold", "cancer", f"{ch}asthma", "hiv", f'say "hi"{ch}'], dtype=object)[i % 5],
        "note": np.array([f"a{ch}b{ch}c", "plain", f"x,{ch}y", f"end{ch}"], dtype=object)[i % 4],
    })


def _release(ch: str) -> ktype.Release:
    return ktype.anonymize(_table(ch), quasi_identifiers=["age", "zip"], sensitive="disease", insensitive=["note"],
                           hierarchies={"zip": {"masking": [1, 2, 3]}}, k=5)


def _readers(path) -> dict[str, pd.DataFrame]:
    """The table as pandas (C and python engines) and Python's csv module read it."""
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    with open(path, encoding="utf-8") as f:  # universal newlines, as a careless reader opens it
        rows_u = list(csv.reader(f))
    return {
        "pandas-c": pd.read_csv(path, dtype=str, keep_default_na=False),
        "pandas-python": pd.read_csv(path, dtype=str, keep_default_na=False, engine="python"),
        "csv": pd.DataFrame(rows[1:], columns=rows[0]),
        "csv-universal-newlines": pd.DataFrame(rows_u[1:], columns=rows_u[0]),
    }


@pytest.mark.parametrize("name", list(BREAKS))
def test_line_break_cells_are_quoted_and_read_back_as_written(name, tmp_path):
    """Release.save of a 300-row release whose cells hold ``\\r`` (etc.): every reader gets
    300 rows back, each cell equal to the published one. Before the fix, a bare ``\\r``
    was written unquoted and pandas read 300 rows as 420-600."""
    ch = BREAKS[name]
    rel = _release(ch)
    want = _csvtext.escape_csv_cells(rel.to_pandas()).astype(str)
    assert len(want) == 300
    path = tmp_path / "r.csv"
    rel.save(path)
    text = path.read_bytes().decode("utf-8")
    for reader, got in _readers(path).items():
        if reader == "csv-universal-newlines" and "\r" in ch:
            continue  # universal-newline decoding rewrites \r inside quoted cells too: that reader loses the value, not the row
        assert got.shape == want.shape, f"{reader} read {got.shape} for {want.shape} ({name})"
        pd.testing.assert_frame_equal(got, want.reset_index(drop=True), check_dtype=False, obj=f"{reader} ({name})")
    # a reader that splits the text into lines first (str.splitlines) still gets 300 records
    assert len(list(csv.reader(text.splitlines()))) == 301
    back, meta = read_release(path)
    assert back.shape == want.shape and meta is not None


def test_universal_newline_reader_keeps_the_rows_of_a_cr_cell(tmp_path):
    rel = _release("\r")
    path = tmp_path / "r.csv"
    rel.save(path)
    with open(path, encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert len(rows) == 301 and {len(r) for r in rows} == {4}


def test_csv_text_quotes_header_and_leaves_clean_tables_byte_identical():
    clean = pd.DataFrame({"a": ["x", "y,z", 'q"'], "b": [1.5, np.nan, 3.0]})
    assert _csvtext.csv_text(clean, csv_escape=False) == clean.to_csv(index=False)
    odd = pd.DataFrame({"a\rb": ["1", "2"], "c": ["x\u2028", None]})
    text = _csvtext.csv_text(odd, csv_escape=False)
    assert text.startswith('"a\rb",c\n')
    got = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    assert list(got.columns) == ["a\rb", "c"] and got["c"].tolist() == ["x\u2028", ""]
    # a TSV and a category column
    cat = pd.DataFrame({"a": pd.Categorical(["p\rq", "r"]), "b": [1, 2]})
    tsv = _csvtext.csv_text(cat, sep="\t", csv_escape=False)
    assert pd.read_csv(io.StringIO(tsv), sep="\t", dtype=str)["a"].tolist() == ["p\rq", "r"]


def test_cli_release_with_cr_cells_reads_back_300_rows(tmp_path):
    df = _table("\r")
    src = tmp_path / "in.parquet"
    df.to_parquet(src, index=False)
    out = tmp_path / "r.csv"
    res = runner.invoke(app, ["anonymize", str(src), "--qi", "age,zip", "--sensitive", "disease", "--insensitive", "note",
                              "-H", "zip=masking:1,2,3", "--k", "5", "-O", str(out), "--json"])
    assert res.exit_code == 0, res.output
    got = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert got.shape == (300, 4)
    assert sorted(got["disease"].str.lstrip("'")) == sorted(df["disease"])
    assert json.loads(sidecar_path(out).read_text())["published_rows"] == 300


# ---------------------------------------------------------------------------- the verdict is about the file
def _unquoted_to_csv(table, sep, header=True):
    """The writer before the fix: pandas' to_csv, which leaves a bare \\r unquoted."""
    return table.to_csv(index=False, sep=sep, header=header)


def test_save_reads_the_file_back_and_discards_a_file_that_differs(tmp_path, monkeypatch):
    """With the quoting bug planted back, Release.save must not keep the 300-row CSV that
    reads back as more rows: VerificationError, no file, no sidecar, no temporary file, and
    an earlier file at the path untouched."""
    rel = _release("\r")
    path = tmp_path / "r.csv"
    path.write_text("earlier release\n")
    monkeypatch.setattr(_csvtext, "_to_csv", _unquoted_to_csv)
    # the message names the file the user asked for, not the temporary file it was written to
    with pytest.raises(ktype.exceptions.VerificationError,
                       match=rf"The written file {re.escape(str(path))} does not read back as the verified release: .*rows"):
        rel.save(path)
    assert path.read_text() == "earlier release\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv"]
    fresh = tmp_path / "fresh.csv"
    with pytest.raises(ktype.exceptions.VerificationError):
        rel.save(fresh)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv"]


def test_save_checks_parquet_too(tmp_path, monkeypatch):
    """A Parquet writer that loses a row is caught the same way (Parquet itself was right)."""
    import pyarrow.parquet as pq

    rel = _release("\r")
    good = tmp_path / "ok.parquet"
    rel.save(good)
    assert len(pd.read_parquet(good)) == 300
    real = pq.write_table
    monkeypatch.setattr(pq, "write_table", lambda table, where, **kw: real(table.slice(0, table.num_rows - 1), where, **kw))
    bad = tmp_path / "bad.parquet"
    with pytest.raises(ktype.exceptions.VerificationError, match="299 rows"):
        rel.save(bad)
    assert not bad.exists()


def test_read_back_compare_units():
    """table_difference: numbers as numbers, text as text, dates by pandas' rendering, empty = missing in CSV."""
    exp = pd.DataFrame({"n": [1, 2], "f": [0.1 + 0.2, np.nan], "t": ["a\rb", None], "d": pd.to_datetime(["2020-01-01", None]),
                        "b": [True, False]})
    got = pd.read_csv(io.StringIO(_csvtext.csv_text(exp, csv_escape=False)), dtype=str, keep_default_na=False, na_values=[""])
    assert _readback.table_difference(exp, got, csv=True) is None
    shifted = got.copy()
    shifted.loc[1, "t"] = "b"
    assert "column 't', data row 2" in _readback.table_difference(exp, shifted, csv=True)
    assert "1 rows x 5 columns" in _readback.table_difference(exp, got.iloc[:1], csv=True)
    off = got.copy()
    off.loc[0, "f"] = "0.3"
    assert "column 'f'" in _readback.table_difference(exp, off, csv=True)
    # a trailing NUL character lost on the way is a difference (a NumPy unicode array would drop it)
    nul = pd.DataFrame({"t": ["a\x00", "b"]})
    assert "column 't', data row 1" in _readback.table_difference(nul, pd.DataFrame({"t": ["a", "b"]}), csv=True)


def test_cli_does_not_say_verified_when_the_file_differs(tmp_path, monkeypatch):
    """anonymize with the quoting bug planted back: exit 2, an error, no "verified", and
    neither release, sidecar nor summary left behind."""
    df = _table("\r")
    src = tmp_path / "in.parquet"
    df.to_parquet(src, index=False)
    out, summ = tmp_path / "r.csv", tmp_path / "s.json"
    args = ["anonymize", str(src), "--qi", "age,zip", "--sensitive", "disease", "--insensitive", "note",
            "-H", "zip=masking:1,2,3", "--k", "5", "-O", str(out), "--summary", str(summ)]
    ok = runner.invoke(app, [*args, "--json"])
    assert ok.exit_code == 0, ok.output
    summary = json.loads(ok.stdout)
    assert summary["verified"] is True
    assert summary["output_read_back"] == {"rows": 300, "columns": 4, "identical_to_verified_release": True}
    table = runner.invoke(app, [*args, "--force"])
    assert table.exit_code == 0 and "written file read back identical" in table.stdout
    for p in (out, summ, sidecar_path(out)):
        p.unlink()
    monkeypatch.setattr(_csvtext, "_to_csv", _unquoted_to_csv)
    res = runner.invoke(app, args)
    assert res.exit_code == 3, res.output
    assert "does not read back as the verified release" in res.output and "verified by" not in res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.parquet"]


# ---------------------------------------------------------------------------- Release.save never destroys its input
def test_save_refuses_the_input_file_the_release_was_made_from(tmp_path, monkeypatch):
    """Release.save("input.csv") wrote over the input it was made from (the CLI refused):
    now the same rule, for every spelling of the path, a hard link, and a hierarchy file."""
    import os

    from ktype.exceptions import OutputPathError

    df = _table("x")
    path = tmp_path / "input.csv"
    df.to_csv(path, index=False)
    hier = tmp_path / "zip_h.csv"
    zips = sorted(df["zip"].unique())
    pd.DataFrame({0: zips, 1: [z[:4] + "*" for z in zips], 2: ["*"] * len(zips)}).to_csv(hier, sep=";", header=False, index=False)
    before, hier_before = path.read_bytes(), hier.read_bytes()
    ds = ktype.Dataset.from_csv(path, quasi_identifiers=["age", "zip"], sensitive=["disease"], insensitive=["note"],
                                hierarchies={"zip": str(hier)})
    rel = ktype.anonymize(ds, k=5)
    monkeypatch.chdir(tmp_path)
    os.link(path, tmp_path / "alias.csv")
    for target in (path, "input.csv", tmp_path / "." / "input.csv", tmp_path / "alias.csv", hier):
        with pytest.raises(OutputPathError, match="is the input file"):
            rel.save(target, format="csv")
    assert path.read_bytes() == before and hier.read_bytes() == hier_before
    # a DataFrame read with read_table remembers its file too
    table = read_table(path)
    rel2 = ktype.anonymize(table, quasi_identifiers=["age", "zip"], sensitive="disease", insensitive=["note"], k=5)
    with pytest.raises(OutputPathError, match="is the input file"):
        rel2.save(path)
    assert path.read_bytes() == before
    rel.save(tmp_path / "release.csv")  # any other path is fine, and replacing an earlier release too
    rel.save(tmp_path / "release.csv")


def test_save_refuses_links_and_fifos_with_the_cli_message(tmp_path):
    import os

    from ktype.exceptions import OutputPathError

    rel = _release("x")
    target = tmp_path / "t.csv"
    target.write_text("keep")
    (tmp_path / "link.csv").symlink_to(target)
    with pytest.raises(OutputPathError, match="symbolic link"):
        rel.save(tmp_path / "link.csv")
    os.mkfifo(tmp_path / "pipe.csv")
    with pytest.raises(OutputPathError, match="FIFO"):
        rel.save(tmp_path / "pipe.csv")
    with pytest.raises(OutputPathError, match="device"):
        rel.save("/dev/null", format="csv")
    assert target.read_text() == "keep"


_CELL = st.one_of(st.none(), st.text(alphabet=' a"\',;|\t\r\n\x0b\x1c\x85\u2028é', max_size=4))


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_the_table_writer_writes_what_pandas_writes_with_line_breaks_quoted(data):
    """The writer of text and integer tables (fields made once per distinct value, rows joined
    by pyarrow) writes the text pandas' ``to_csv`` writes with every line break quoted, byte
    for byte: quotes, separators, line breaks and spaces in cells and names, missing cells,
    integer and nullable-integer columns, a one-column table's empty rows (``""``), any
    separator, with and without a header."""
    sep = data.draw(st.sampled_from([",", ";", "\t", "|", " "]))
    n_cols = data.draw(st.integers(1, 3))
    names = data.draw(st.lists(st.text(alphabet=' a",;\r\n\u2028', max_size=3), min_size=n_cols, max_size=n_cols,
                               unique=True))
    kinds = data.draw(st.lists(st.sampled_from(["text", "int", "Int64"]), min_size=n_cols, max_size=n_cols))
    n = data.draw(st.integers(1, 6))
    cols = {}
    for name, kind in zip(names, kinds):
        if kind == "text":
            cols[name] = pd.Series(data.draw(st.lists(_CELL, min_size=n, max_size=n)), dtype=object)
        elif kind == "int":
            cols[name] = pd.Series(data.draw(st.lists(st.integers(-10**12, 10**12), min_size=n, max_size=n)), dtype="int64")
        else:
            cols[name] = pd.Series(data.draw(st.lists(st.one_of(st.none(), st.integers(-99, 99)), min_size=n, max_size=n)),
                                   dtype="Int64")
    table = pd.DataFrame(cols)
    header = data.draw(st.booleans())
    fast = _csvtext._fast_to_csv(table, sep, header)
    assert fast is not None
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_csvtext, "_fast_to_csv", lambda *a: None)
        want = _csvtext._to_csv(table, sep, header)
    assert fast == want


def test_the_table_writer_leaves_floats_dates_and_booleans_to_pandas():
    for col in ([0.5, 1.0], pd.to_datetime(["2020-01-01", "2021-02-03"]), [True, False], ["a", 3]):
        assert _csvtext._fast_to_csv(pd.DataFrame({"a": ["x", "y"], "b": col}), ",", True) is None


def test_csv_text_escapes_formulas_unless_told_not_to():
    """``ktype.io.csv_text`` (public) writes formula cells escaped by default, as its docstring
    says; ``csv_escape=False`` writes them as they are."""
    from ktype.io import csv_text

    df = pd.DataFrame({"a": ["=1+2", "-5", "ok"]})
    assert csv_text(df) == "a\n'=1+2\n-5\nok\n"
    assert csv_text(df, csv_escape=False) == "a\n=1+2\n-5\nok\n"


def test_save_refuses_a_sidecar_that_would_overwrite_the_input_table(tmp_path):
    """Through the Python API too (the command line refuses earlier, when it plans the job):
    a release whose metadata sidecar is the file the data was read from is not written."""
    from ktype.exceptions import OutputPathError

    data = tmp_path / "rel.ktype.json"  # a CSV table, named like the sidecar of rel.csv
    data.write_text("g,x\n" + "".join(f"{'ab'[i % 2]},{i}\n" for i in range(12)))
    before = data.read_bytes()
    ds = ktype.Dataset.from_csv(data, quasi_identifiers=["g"], insensitive=["x"])
    rel = ktype.anonymize(ds, k=2)
    with pytest.raises(OutputPathError, match="metadata sidecar .* is the input file"):
        rel.save(tmp_path / "rel.csv")
    assert data.read_bytes() == before and not (tmp_path / "rel.csv").exists()


def test_a_sidecar_that_is_no_json_is_named_when_the_release_is_read(tmp_path):
    """Reading a release whose sidecar was damaged: the error names the sidecar, the file to
    mend or remove (not the release, not a placeholder)."""
    path = tmp_path / "r.csv"
    _release("x").save(path)
    side = sidecar_path(path)
    side.write_text("{not json", encoding="utf-8")
    with pytest.raises(ktype.exceptions.DataError, match=rf"The release metadata in {re.escape(str(side))} is not valid JSON"):
        read_release(path)
