"""``read_table`` reads a CSV with pyarrow only where that gives exactly pandas' cells.

The oracle is pandas' own reader with the options ``read_table`` gives it: on random texts made
of the characters the two readers treat differently (quotes, separators, spaces, tabs, line
breaks, empty fields, the missing-value strings), wherever the pyarrow path answers, its table
equals pandas' (values, missing cells, column names and dtypes), and pandas does not refuse the
file.
"""

from __future__ import annotations

import codecs
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ktype.data import _arrowcsv
from ktype.data._arrowcsv import _quotes_close, read_csv_exact
from ktype.data.dataset import read_table
from ktype.exceptions import DataError


def _pandas(path, sep, na, enc="utf-8"):
    return pd.read_csv(path, sep=sep, skipinitialspace=True, dtype=str, keep_default_na=False, na_values=["", *na],
                       encoding=enc)


def _header(path, sep):
    import csv

    with open(path, encoding="utf-8", newline="") as f:
        return next(csv.reader(f, delimiter=sep, skipinitialspace=True), [])


TOKENS = ["a", "b", "1", "é", "NA", "x y", " ", "\t", "\r", "\r\n", "\x00", "\ufeff", '"', '""', '"q"', "\n", "\n\n", " \n", '" ', ' "', "'"]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sep=st.sampled_from([",", ";", "|", "\t"]), ncol=st.integers(1, 3),
       body=st.lists(st.one_of(st.sampled_from(TOKENS), st.just("SEP")), max_size=40),
       na=st.sampled_from([[], ["NA"], ["x y"]]), header_space=st.booleans())
def test_the_pyarrow_path_reads_what_pandas_reads(tmp_path, sep, ncol, body, na, header_space):
    names = ["c0", "c1", "c2"][:ncol]
    header = sep.join((" " + n) if header_space and i == 0 else n for i, n in enumerate(names))
    text = header + "\n" + "".join(sep if t == "SEP" else t for t in body)
    path = tmp_path / "t.csv"
    path.write_bytes(text.encode())
    fast = read_csv_exact(path, sep, _header(path, sep), na, "utf-8")
    if fast is None:
        return
    slow = _pandas(path, sep, na)  # never refuses a file the pyarrow path read
    pd.testing.assert_frame_equal(fast, slow)


@st.composite
def _written_csv(draw):
    """A CSV text as writers make it: fields quoted (quotes doubled) when they need it or at
    random, now and then a field with a space or a quote pair where pandas and pyarrow differ."""
    sep = draw(st.sampled_from([",", ";", "|", "\t"]))
    ncol = draw(st.integers(1, 3))
    cell = st.text(alphabet=["a", "é", "1", " ", '"', sep, "\n", "N", "A", "-"], max_size=5)

    def field(v: str) -> str:
        if draw(st.booleans()) or any(ch in v for ch in (sep, '"', "\n")) or v.startswith(" "):
            return '"' + v.replace('"', '""') + '"'
        return v

    rows = [[f"c{i}" for i in range(ncol)]] + draw(st.lists(st.lists(cell, min_size=ncol, max_size=ncol), max_size=6))
    text = "\n".join(sep.join(field(v) for v in r) for r in rows) + draw(st.sampled_from(["", "\n", "\n\n"]))
    return sep, text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=_written_csv(), na=st.sampled_from([[], ["NA"], ["-"]]))
def test_written_csv_texts_read_the_same_on_the_pyarrow_path(tmp_path, case, na):
    sep, text = case
    path = tmp_path / "t.csv"
    path.write_bytes(text.encode())
    fast = read_csv_exact(path, sep, _header(path, sep), na, "utf-8")
    if fast is not None:
        pd.testing.assert_frame_equal(fast, _pandas(path, sep, na))


def _release_text(sep: str) -> str:
    return (f'Age{sep}Marital{sep}Note\n17{sep}"Married, spouse present"{sep}"{{a,b}}"\n'
            f'[17-20]{sep}"say ""hi"""{sep}"two\nlines"\n18{sep}{sep}""\n')


@pytest.mark.parametrize("sep", [",", ";", "\t", "|"])
def test_a_quoted_release_takes_the_pyarrow_path_and_reads_as_pandas(tmp_path, sep):
    path = tmp_path / "r.csv"
    path.write_text(_release_text(sep), encoding="utf-8")
    fast = read_csv_exact(path, sep, _header(path, sep), [], "utf-8")
    assert fast is not None
    pd.testing.assert_frame_equal(fast, _pandas(path, sep, []))
    assert fast["Note"].tolist()[1] == "two\nlines" and pd.isna(fast["Note"].tolist()[2])


#: texts where the two readers may differ (read as UTF-8 but for the one named in ENCODING)
DIFFERING = {
    "bom": codecs.BOM_UTF8 + b"a,b\nx,y\n",
    "carriage return": b"a,b\r\nx,y\r\n",
    "nul": b"a,b\nx\x00,y\n",
    "leading space": b'a,b\nx, "y"\n',
    "leading tab": b"a,b\nx,\ty\n",
    "header space": b"a, b\nx,y\n",
    "short row": b"a,b\nx\n",
    "long row": b"a,b\nx,y,z\n",
    "open quote": b'a,b\nx,"y\n',
    "blank name": b"a,\nx,y\n",
    "latin-1": b"a,b\nx,y\n",
    "bad utf-8": b"a,b\nx,\xff\n",
    "leading space, no quote": b"a,b\nx, y\n",
}
ENCODING = {"latin-1": "latin-1"}


@pytest.mark.parametrize("case", list(DIFFERING))
def test_texts_where_the_readers_may_differ_go_to_pandas(tmp_path, case):
    raw, enc = DIFFERING[case], ENCODING.get(case, "utf-8")
    path = tmp_path / "t.csv"
    path.write_bytes(raw)
    assert read_csv_exact(path, ",", ["a", "b"], [], enc) is None


def test_read_table_gives_the_same_table_on_either_path(tmp_path, monkeypatch):
    import ktype.data._arrowcsv as ac

    path = tmp_path / "r.csv"
    path.write_text(_release_text(";"), encoding="utf-8")
    taken = []
    real = ac.read_csv_exact
    monkeypatch.setattr(ac, "read_csv_exact", lambda *a, **kw: (r := real(*a, **kw), taken.append(r is not None))[0])
    fast = read_table(path)
    monkeypatch.setattr(ac, "read_csv_exact", lambda *a, **kw: None)
    slow = read_table(path)
    assert taken == [True]
    pd.testing.assert_frame_equal(fast, slow)
    assert fast.attrs.keys() == slow.attrs.keys()


def _quotes_close_oracle(text: str, sep: str) -> bool:
    """``_quotes_close`` character by character, as the tokenizer reads quotes: a quote at a
    field's start opens a quoted field, a doubled quote inside one is a quote, a single one
    closes it, and text may follow the closing quote; a quote anywhere else is literal. True
    iff no quoted field is open at the end and no odd run of literal quotes occurs."""
    state, run = "start", 0
    for ch in text + "\x00":  # a sentinel that ends the last run
        if state == "unquoted" and ch == '"':
            run += 1
            continue
        if run % 2:
            return False
        run = 0
        if ch == "\x00":
            break
        if state in ("start", "unquoted", "closed") and ch in (sep, "\n"):
            state = "start"
        elif state == "start":
            state = "quoted" if ch == '"' else "unquoted"
        elif state == "quoted":
            state = "closed" if ch == '"' else "quoted"
        elif state == "closed":  # a quote just closed the field, or begins a doubled quote
            state = "quoted" if ch == '"' else "unquoted"
    return state != "quoted"


@settings(max_examples=500, deadline=None)
@given(text=st.text(alphabet=['"', ",", "\n", "a"], max_size=24))
def test_the_quote_scan_is_the_tokenizer_run_by_run(text):
    assert _quotes_close(text.encode(), ",") == _quotes_close_oracle(text, ",")


@pytest.mark.parametrize("sep", [" ", '"', ";;", "\n"])
def test_a_separator_pyarrow_cannot_take_goes_to_pandas(tmp_path, sep):
    path = tmp_path / "t.csv"
    path.write_bytes(b"a;;b\nx;;y\n")
    assert read_csv_exact(path, sep, ["a", "b"], [], "utf-8") is None


def test_numbers_and_quote_free_files_take_the_pyarrow_path_as_text(tmp_path):
    """Every column is read as text, numbers too (as pandas reads them with dtype=str); a file
    without a quote needs no quote scan to pass."""
    path = tmp_path / "n.csv"
    path.write_bytes(b"a,b\n1,02139\n2,\n")
    fast = read_csv_exact(path, ",", ["a", "b"], [], "utf-8")
    assert fast is not None and fast["b"].tolist()[0] == "02139"
    pd.testing.assert_frame_equal(fast, _pandas(path, ",", []))
    # asked for other column names than the header's, pyarrow would infer numbers: refused
    assert read_csv_exact(path, ",", ["x", "y"], [], "utf-8") is None


def test_quoted_line_breaks_across_pyarrow_blocks(tmp_path):
    """A file of several of pyarrow's 1 MB blocks with quoted line breaks everywhere: read by
    pyarrow as pandas reads it (pyarrow must be told that values hold line breaks)."""
    rows = [f'{i},"line {i}\nnext, ""q""\n",{i % 7}' for i in range(60_000)]
    path = tmp_path / "big.csv"
    path.write_text("a,b,c\n" + "\n".join(rows) + "\n", encoding="utf-8")
    assert path.stat().st_size > 2_000_000
    fast = read_csv_exact(path, ",", ["a", "b", "c"], [], "utf-8")
    assert fast is not None
    pd.testing.assert_frame_equal(fast, _pandas(path, ",", []))


def test_with_pandas_object_text_columns_pandas_reads(tmp_path, monkeypatch):
    """pandas before 3 reads text as object columns (missing cells NaN): pyarrow's table would
    not be the same, so pandas reads."""
    monkeypatch.setattr(_arrowcsv, "_text_dtype", lambda: None)
    path = tmp_path / "t.csv"
    path.write_bytes(b"a,b\nx,y\n")
    assert read_csv_exact(path, ",", ["a", "b"], [], "utf-8") is None


@pytest.mark.parametrize("option", [("future.infer_string", False), ("mode.string_storage", "python")])
def test_where_pandas_reads_text_otherwise_pandas_reads(tmp_path, option):
    """pandas' object text columns (pandas < 3, or the infer_string option off) and its
    Python-backed str columns: the pyarrow path is off, and read_table reads as pandas does."""
    import warnings

    path = tmp_path / "t.csv"
    path.write_bytes(b"a,b\nx,\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the infer_string option is deprecated in pandas 3
        with pd.option_context(*option):
            assert _arrowcsv._text_dtype() is None
            assert read_csv_exact(path, ",", ["a", "b"], [], "utf-8") is None
            got = read_table(path)
            assert got["a"].dtype == _pandas(path, ",", [])["a"].dtype


ROOT = Path(__file__).resolve().parents[1]
DATA_FILES = sorted(p for d in (ROOT / "data", ROOT / "src" / "ktype" / "data" / "_bundled")
                    for p in d.rglob("*") if p.name.endswith((".csv", ".csv.gz")))


@pytest.mark.parametrize("source", DATA_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_data_file_of_the_repository_reads_the_same_on_both_paths(tmp_path, monkeypatch, source):
    """The tables, hierarchies and fixtures ktype ships (Adult, FARS, the high-dimensional
    sets): read_table gives the same table whichever reader runs."""
    import gzip
    import warnings

    import ktype.data._arrowcsv as ac

    path = source
    if source.name.endswith(".gz"):
        path = tmp_path / source.name[:-3]
        path.write_bytes(gzip.decompress(source.read_bytes()))
    def read() -> pd.DataFrame | str:
        try:
            return read_table(path)
        except DataError as e:  # a hierarchy file read as a table may repeat a "column name"
            return str(e)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        either = read()
        monkeypatch.setattr(ac, "read_csv_exact", lambda *a, **kw: None)
        pandas_only = read()
    if isinstance(either, str) or isinstance(pandas_only, str):
        assert either == pandas_only
    else:
        pd.testing.assert_frame_equal(either, pandas_only)
