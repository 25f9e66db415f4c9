"""What a release publishes, against oracles that share no code with ``ktype.io`` / ``ktype.release``.

* Spreadsheet formula escaping (OWASP "CSV injection"): a text cell starting with ``=``,
  ``+``, ``-``, ``@``, tab, carriage return or ``'`` gets one leading ``'`` unless the whole
  cell is a plain decimal number; the oracle decides "plain decimal number" with Python's
  own ``float`` parser (restricted to digits, sign, point and exponent), not with the
  module's regular expression, and the escaping must be undone exactly on reading.
* A CSV sidecar must record the SHA-256 of its file's bytes (``hashlib`` here); a sidecar
  without one belongs to no file.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ktype
from ktype.exceptions import DataError
from ktype.io._csvtext import escape_csv_cells, unescape_csv_cells
from ktype.release import read_release, sidecar_path

TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "'")
#: cells that only start like a number, or are formulas spelled with number characters
PAYLOADS = ["-1+1+cmd|' /C calc'!A0", "+1+1", "-2-3", "=1", "+1e5+cmd", "-.5*A1", "@SUM(1)", "-1)", "+5 ", "-5\t",
            "'-5", "\t5", "\r5", "-", "+", "-e5", "+1e", "-1.2.3"]
#: plain numbers: never escaped
NUMBERS = ["-5", "+5", "-0.5", "+.5", "-5.", "-1e5", "+1E-5", "-12.5e+3", "5", "0"]


def _plain_number(text: str) -> bool:
    """A decimal number as Python reads it, with no spaces, underscores, inf or nan."""
    if not text or set(text) - set("0123456789+-.eE"):
        return False
    try:
        float(text)
    except ValueError:
        return False
    return True


def _escaped(text: str) -> str:
    return "'" + text if text.startswith(TRIGGERS) and not _plain_number(text) else text


@pytest.mark.parametrize("cell", PAYLOADS + NUMBERS)
def test_escaping_of_known_payloads_and_numbers(cell):
    df = pd.DataFrame({"note": [cell, "ok"], "n": [1, 2]})
    out = escape_csv_cells(df)
    assert out["note"].tolist() == [_escaped(cell), "ok"]
    assert out["n"].tolist() == [1, 2]
    back = unescape_csv_cells(out)
    assert back["note"].tolist() == [cell, "ok"]


def _release() -> ktype.Release:
    i = np.arange(60)
    df = pd.DataFrame({"age": 20 + (i * 7) % 40, "zip": [f"941{(j * 3) % 10:02d}" for j in i],
                       "note": np.array(["-1+1+cmd|' /C calc'!A0", "ok", "-5", "=SUM(A1)"], dtype=object)[i % 4]})
    return ktype.anonymize(df, quasi_identifiers=["age", "zip"], insensitive=["note"],
                           hierarchies={"zip": {"masking": [1, 2, 3]}}, k=5)


def test_written_csv_escapes_payloads_and_records_the_files_hash(tmp_path):
    rel = _release()
    out = tmp_path / "r.csv"
    rel.save(out)
    raw = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert set(raw["note"]) == {_escaped(c) for c in ("-1+1+cmd|' /C calc'!A0", "ok", "-5", "=SUM(A1)")}
    meta = json.loads(sidecar_path(out).read_text())
    assert meta["file"]["sha256"] == hashlib.sha256(out.read_bytes()).hexdigest()
    df, _ = read_release(out)
    assert sorted(df["note"]) == sorted(rel.to_pandas()["note"])


@pytest.mark.parametrize("edit", ["drop", "null", "other"])
def test_sidecar_without_the_files_hash_is_refused(tmp_path, edit):
    out = tmp_path / "r.csv"
    _release().save(out)
    side = sidecar_path(out)
    meta = json.loads(side.read_text())
    if edit == "drop":
        del meta["file"]["sha256"]
    elif edit == "null":
        meta["file"]["sha256"] = None
    else:
        meta["file"]["sha256"] = hashlib.sha256(b"another file").hexdigest()
    side.write_text(json.dumps(meta))
    with pytest.raises(DataError, match="does not belong to"):
        read_release(out)


def test_metadata_value_type_follows_the_hierarchy_kind():
    rel = _release()
    cols = {c["name"]: c for c in rel.metadata()["columns"]}
    for c in rel.dataset.quasi_identifiers:
        numeric = pd.api.types.is_numeric_dtype(rel.dataset.data[c])  # age: numbers; zip: text
        assert cols[c]["value_type"] == ("numeric" if numeric else "categorical"), c
    assert cols["age"]["value_type"] == "numeric" and cols["zip"]["value_type"] == "categorical"


def test_metadata_of_a_newer_format_is_refused_naming_its_version(tmp_path):
    out = tmp_path / "r.csv"
    _release().save(out)
    side = sidecar_path(out)
    meta = json.loads(side.read_text())
    meta["format_version"] = 99
    side.write_text(json.dumps(meta))
    with pytest.raises(DataError, match="version 99; this ktype reads up to"):
        read_release(out)


def test_a_release_saved_with_another_separator_reads_back_from_its_sidecar(tmp_path):
    rel = _release()
    out = tmp_path / "r.csv"
    rel.save(out, sep=";")
    assert out.read_text().splitlines()[0].count(";") == 2
    df, meta = read_release(out)  # no sep given: the sidecar's
    assert meta["file"]["sep"] == ";"
    assert list(df.columns) == ["age", "zip", "note"]
    assert sorted(df["note"]) == sorted(rel.to_pandas()["note"])


def test_save_names_the_release_and_its_sidecar_in_path_errors(tmp_path):
    from ktype.exceptions import OutputPathError

    rel = _release()
    (tmp_path / "dir.csv").mkdir()
    with pytest.raises(OutputPathError, match=r"^The release .*dir\.csv is a directory"):
        rel.save(tmp_path / "dir.csv")
    out = tmp_path / "r.csv"
    sidecar_path(out).mkdir()
    with pytest.raises(OutputPathError, match=r"^The metadata sidecar .* is a directory"):
        rel.save(out)
    assert not out.exists()


def test_deterministic_variant_warning_names_the_algorithm_or_says_the_algorithm():
    from ktype._validation import RANDOMNESS_DETERMINISTIC_VARIANT

    rel = _release()
    prov = {k: v for k, v in rel.provenance.items() if k != "algorithm"}
    rel = rel.replace(provenance={**prov, "randomness": RANDOMNESS_DETERMINISTIC_VARIANT})
    assert any(w.startswith("WARNING: the algorithm ran its DETERMINISTIC variant") for w in rel.warnings())
    rel = rel.replace(provenance={**rel.provenance, "algorithm": "tailor"})
    assert any(w.startswith("WARNING: tailor ran its DETERMINISTIC variant") for w in rel.warnings())


@pytest.mark.parametrize("name, sep", [("t.csv", ","), ("t.tsv", "\t")])
def test_write_table_writes_escaped_csv_with_the_extensions_separator(tmp_path, name, sep):
    from ktype.io.formats import write_table

    df = pd.DataFrame({"a": ["=1+2", "-5", "x"], "b": [1, 2, 3]})
    out = write_table(df, tmp_path / name)
    assert out == tmp_path / name
    back = pd.read_csv(out, sep=sep, dtype=str, keep_default_na=False)
    assert back["a"].tolist() == [_escaped(v) for v in df["a"]] and back["b"].tolist() == ["1", "2", "3"]


def _o_tmpfile_works(directory) -> bool:
    """Whether this kernel and file system make unnamed files (checked directly with os.open)."""
    import os

    flag = getattr(os, "O_TMPFILE", None)
    if flag is None:
        return False
    try:
        os.close(os.open(directory, flag | os.O_WRONLY, 0o600))
    except OSError:
        return False
    return True


def test_atomic_write_shows_no_file_name_while_writing_where_unnamed_files_exist(tmp_path):
    """Where the system has unnamed files (Linux ``O_TMPFILE``), nothing of a write in progress
    is visible in the directory: a crash leaves no partial file behind."""
    from pathlib import Path

    from ktype.io import _files as _io

    if not _o_tmpfile_works(tmp_path):
        pytest.skip("no O_TMPFILE here")
    seen: list[list[str]] = []

    def writer(p: Path) -> None:
        p.write_text("a,b\n1,2\n")
        seen.append(sorted(x.name for x in tmp_path.iterdir()))

    _io.atomic_write(tmp_path / "out.csv", writer)
    assert seen == [[]]
    assert (tmp_path / "out.csv").read_text() == "a,b\n1,2\n"


def test_the_named_temporary_fallback_writes_the_file(tmp_path, monkeypatch):
    """Where unnamed files are unavailable, the write goes through a named temporary beside
    the target, which is renamed into place and leaves nothing else behind."""
    from ktype.io import _files as _io

    monkeypatch.setattr(_io, "_anonymous_file", lambda directory, mode: None)
    target = tmp_path / "out.csv"
    target.write_text("old\n")
    _io.atomic_write_text(target, "new\n")
    assert target.read_text() == "new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]


def test_output_path_errors_say_output_unless_told_what(tmp_path):
    from ktype.exceptions import OutputPathError
    from ktype.io._files import check_output_path

    (tmp_path / "d").mkdir()
    with pytest.raises(OutputPathError, match=r"^The output .*d is a directory"):
        check_output_path(tmp_path / "d")
    with pytest.raises(OutputPathError, match=r"^The report .*d is a directory"):
        check_output_path(tmp_path / "d", what="report")


def test_a_release_of_no_rows_builds_and_reads_empty():
    from ktype.datasets.synthetic import census_dataset
    from ktype.release import Release

    ds = census_dataset(10, rng=1)
    rel = Release.build(ds, np.zeros((0, ds.r)), np.zeros((0, ds.r)), source=np.zeros(0, dtype=np.int64))
    assert rel.n == 0 and rel.lo.shape == (0, ds.r)
    assert rel.to_pandas().shape[0] == 0


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_read_back_check_refuses_a_lost_or_invented_number_naming_the_target(tmp_path, fmt):
    """A numeric cell missing on one side and present on the other, or a present value changed,
    or a column renamed, is a difference (the release must read back cell for cell); the error
    names the target, not the temporary, and the first renamed column by its 1-based number."""
    from ktype.exceptions import VerificationError
    from ktype.io._readback import read_back_check

    expected = pd.DataFrame({"a": [1.5, np.nan, 3.0], "b": [1, 2, 3], "c": ["x", "y", "z"]})
    for written in (pd.DataFrame({"a": [1.5, 2.0, 3.0], "b": [1, 2, 3], "c": ["x", "y", "z"]}),
                    pd.DataFrame({"a": [np.nan, np.nan, 3.0], "b": [1, 2, 3], "c": ["x", "y", "z"]}),
                    pd.DataFrame({"a": [1.5, np.nan, 3.0], "b": [1, 2, 4], "c": ["x", "y", "z"]}),
                    pd.DataFrame({"a": [1.5, np.nan, 3.0], "b": [1, 2, 3], "c": ["x", "y", "w"]})):  # values changed
        tmp = tmp_path / f"tmp.{fmt}"
        written.to_csv(tmp, index=False) if fmt == "csv" else written.to_parquet(tmp, index=False)
        check = read_back_check(expected, fmt=fmt, target=tmp_path / f"release.{fmt}")
        with pytest.raises(VerificationError, match=rf"written file \S*release\.{fmt} does not read back"):
            check(tmp)
    renamed = tmp_path / f"renamed.{fmt}"
    w = expected.rename(columns={"b": "x"})
    w.to_csv(renamed, index=False) if fmt == "csv" else w.to_parquet(renamed, index=False)
    with pytest.raises(VerificationError, match="column 2 is named 'x' in the file, 'b' in the release"):
        read_back_check(expected, fmt=fmt, target=tmp_path / f"release.{fmt}")(renamed)
    tmp = tmp_path / f"same.{fmt}"
    expected.to_csv(tmp, index=False) if fmt == "csv" else expected.to_parquet(tmp, index=False)
    read_back_check(expected, fmt=fmt, target=tmp_path / f"release.{fmt}")(tmp)  # the same table passes


def test_repr_names_the_algorithm_or_a_question_mark():
    rel = _release()
    assert repr(rel).startswith(f"Release({rel.provenance['algorithm']}, {rel.n} rows, ")
    rel = rel.replace(provenance={k: v for k, v in rel.provenance.items() if k != "algorithm"})
    assert repr(rel) == f"Release(?, {rel.n} rows, {rel.n_suppressed} suppressed, {rel.recoding})"


def test_a_caller_fixed_seed_is_warned_about():
    from ktype._validation import RANDOMNESS_CALLER_SEED, REPRODUCIBLE_WARNING

    rel = _release()
    rel = rel.replace(provenance={**rel.provenance, "randomness": RANDOMNESS_CALLER_SEED})
    assert REPRODUCIBLE_WARNING in rel.warnings()


def _suppressing_release() -> ktype.Release:
    from ktype.datasets.synthetic import census_dataset
    from ktype.release import Release

    ds = census_dataset(20, rng=4)
    lo = np.zeros((ds.n, ds.r), dtype=np.int32)
    hi = np.tile((ds.domain_sizes - 1).astype(np.int32), (ds.n, 1))
    return Release.build(ds, lo, hi, suppressed=np.arange(ds.n) < 3, recoding="full-domain")


def test_metadata_says_suppressed_rows_are_published_only_when_they_are():
    rel = _suppressing_release()
    assert rel.n_suppressed == 3
    assert rel.metadata()["suppressed_rows_published"] is False
    assert rel.metadata(include_suppressed=True)["suppressed_rows_published"] is True
    assert rel.metadata()["published_rows"] == 17 and rel.metadata(include_suppressed=True)["published_rows"] == 20
    assert _release().metadata(include_suppressed=True)["suppressed_rows_published"] is (_release().n_suppressed > 0)


def test_read_back_check_treats_an_empty_csv_text_as_the_missing_cell_it_reads_as(tmp_path):
    from ktype.io._readback import read_back_check

    expected = pd.DataFrame({"t": ["", "a", None], "n": [1, 2, 3]})
    tmp = tmp_path / "t.csv"
    expected.to_csv(tmp, index=False)
    read_back_check(expected, fmt="csv", target=tmp_path / "r.csv")(tmp)  # passes: same CSV cells


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.text(alphabet="0123456789+-.eE=@'\t\r |!Ac/", max_size=10), st.none(),
                          st.sampled_from(PAYLOADS)), min_size=1, max_size=12))
def test_escaping_matches_the_float_parser_oracle_and_round_trips(cells):
    df = pd.DataFrame({"note": pd.Series(cells, dtype=object)})
    out = escape_csv_cells(df)["note"].tolist()
    assert out == [None if c is None else _escaped(c) for c in cells]
    # no escaped cell is left that a spreadsheet evaluates
    assert not any(isinstance(v, str) and v.startswith(TRIGGERS[:6]) and not _plain_number(v) for v in out)
    assert unescape_csv_cells(escape_csv_cells(df))["note"].tolist() == cells


@pytest.mark.parametrize("dtype", ["str", "string"])
def test_a_string_column_without_a_leading_quote_is_not_factorized(monkeypatch, dtype):
    """Reading a release back tests each text column for a cell starting with ``'`` first: a
    column with none (the common case; 10⁶ distinct freeform labels) is returned as it is,
    without factorizing it; a column with one still is, and is unescaped."""
    import ktype.io._csvtext as ct

    calls = []
    real = ct.pd.factorize
    monkeypatch.setattr(ct.pd, "factorize", lambda *a, **kw: (calls.append(1), real(*a, **kw))[1])
    plain = pd.Series(["a", "=b", None, "-1"], dtype=dtype)
    out = unescape_csv_cells(pd.DataFrame({"c": plain}))["c"]
    assert [None if pd.isna(v) else v for v in out] == ["a", "=b", None, "-1"] and calls == []
    esc = pd.Series(["a", "'=b", None], dtype=dtype)
    out = unescape_csv_cells(pd.DataFrame({"c": esc}))["c"]
    assert [None if pd.isna(v) else v for v in out] == ["a", "=b", None] and calls == [1]


def _unescaped_cell(v: object) -> object:
    """The inverse of the escape, cell by cell: a text cell ``'`` + trigger loses its ``'``."""
    return v[1:] if isinstance(v, str) and v.startswith("'") and v[1:2] in TRIGGERS else v


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(["'=1", "'-x", "''", "'a", "'", "=1", "ok", "'\t5", "'@S"]),
                          st.text(alphabet="'=+-@\ta1", max_size=4), st.none(), st.integers(-3, 3)),
                min_size=1, max_size=40), st.sampled_from([object, "string", "str"]))
def test_unescape_is_the_cell_by_cell_inverse(cells, dtype):
    """Judged once per distinct value, mapped back: the same cells as the definition, on object
    columns (text, numbers, missing values mixed) and on pandas' string dtypes (``str`` is what
    ``read_table`` gives; its columns are first tested for a leading ``'`` in one pass)."""
    if dtype is not object:
        cells = [None if c is None else str(c) for c in cells]
    s = pd.Series(cells, dtype=dtype)
    got = unescape_csv_cells(pd.DataFrame({"c": s}))["c"].tolist()
    want = [None if pd.isna(v) else _unescaped_cell(v) for v in s.tolist()]
    assert [None if pd.isna(v) else v for v in got] == want
