"""What a release publishes, against oracles that share no code with ``ktype._io`` / ``ktype.release``.

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
from ktype._io import escape_csv_cells, unescape_csv_cells
from ktype.exceptions import DataError
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


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.text(alphabet="0123456789+-.eE=@'\t\r |!Ac/", max_size=10), st.none(),
                          st.sampled_from(PAYLOADS)), min_size=1, max_size=12))
def test_escaping_matches_the_float_parser_oracle_and_round_trips(cells):
    df = pd.DataFrame({"note": pd.Series(cells, dtype=object)})
    out = escape_csv_cells(df)["note"].tolist()
    assert out == [None if c is None else _escaped(c) for c in cells]
    # no escaped cell is left that a spreadsheet evaluates
    assert not any(isinstance(v, str) and v.startswith(TRIGGERS[:6]) and not _plain_number(v) for v in out)
    assert unescape_csv_cells(escape_csv_cells(df))["note"].tolist() == cells


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
    rel.provenance["randomness"] = RANDOMNESS_DETERMINISTIC_VARIANT
    rel.provenance.pop("algorithm", None)
    assert any(w.startswith("WARNING: the algorithm ran its DETERMINISTIC variant") for w in rel.warnings())
    rel.provenance["algorithm"] = "tailor"
    assert any(w.startswith("WARNING: tailor ran its DETERMINISTIC variant") for w in rel.warnings())


@pytest.mark.parametrize("name, sep", [("t.csv", ","), ("t.tsv", "\t")])
def test_write_table_writes_escaped_csv_with_the_extensions_separator(tmp_path, name, sep):
    from ktype._io import write_table

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

    from ktype import _io

    if not _o_tmpfile_works(tmp_path):
        pytest.skip("no O_TMPFILE here")
    seen: list[list[str]] = []

    def writer(p: Path) -> None:
        p.write_text("a,b\n1,2\n")
        seen.append(sorted(x.name for x in tmp_path.iterdir()))

    _io.atomic_write(tmp_path / "out.csv", writer)
    assert seen == [[]]
    assert (tmp_path / "out.csv").read_text() == "a,b\n1,2\n"
