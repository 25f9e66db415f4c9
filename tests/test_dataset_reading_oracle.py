"""Reading a table into a Dataset: what the person who fixes the data is told, and what is protected.

* an error about a cell names the line of the input file it sits on (counted here from the
  file's own text), not a position in a DataFrame;
* the files a dataset was read from (the table, hierarchy CSVs) are recorded, so a release is
  never written over them;
* columns without a role are refused, and the error lists every one of them;
* a float column declared text publishes ``30``, not ``30.0`` (the form hierarchy labels use);
* ``value_keys`` is the canonical text of a value: it reads back as the same value.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ktype import Dataset, Hierarchy
from ktype.data.dataset import read_table
from ktype.data.hierarchy import value_keys
from ktype.data.types import convert_column
from ktype.exceptions import HierarchyError, UnassignedColumnsError

pytestmark = pytest.mark.timeout(120)


def _write(tmp_path, rows: list[str]):
    path = tmp_path / "t.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def test_a_value_missing_from_the_hierarchy_is_reported_at_its_file_line(tmp_path):
    rows = ["zip,age", "a,30", "b,41", "c,52", "a,30"]
    path = _write(tmp_path, rows)
    h = Hierarchy.flat(["a", "b"], name="zip")
    line = next(i for i, r in enumerate(rows, start=1) if r.startswith("c,"))
    with pytest.raises(HierarchyError, match=rf"no entry for value 'c' \(line {line}\)"):
        Dataset.from_csv(path, quasi_identifiers=["zip"], insensitive=["age"], hierarchies={"zip": h})
    # a multi-line quoted cell shifts the file lines of the records after it
    rows2 = ["zip,age,note", 'a,30,"two', 'lines"', "c,52,x"]
    path2 = _write(tmp_path, rows2)
    with pytest.raises(HierarchyError, match=r"\(line 4\)"):
        Dataset.from_csv(path2, quasi_identifiers=["zip"], insensitive=["age", "note"], hierarchies={"zip": h})



def test_line_numbers_are_found_only_when_a_message_needs_one(tmp_path, monkeypatch):
    """Reading a table does not scan its bytes for line numbers; an error does, once."""
    import copy

    import ktype.data.types as T

    calls = []
    real = T.record_lines
    monkeypatch.setattr(T, "record_lines", lambda *a: calls.append(a) or real(*a))
    rows = ["zip,age,note", 'a,30,"two', 'lines"', "b,41,x", "c,52,y"]
    path = _write(tmp_path, rows)
    df = read_table(path)
    assert calls == []
    lines = df.attrs["ktype_first_line"]
    assert copy.deepcopy(lines) is lines and copy.copy(lines) is lines  # pandas deep-copies attrs
    Dataset.from_csv(path, quasi_identifiers=["zip"], insensitive=["age", "note"])
    assert calls == []
    h = Hierarchy.flat(["a", "b"], name="zip")
    with pytest.raises(HierarchyError, match=r"value 'c' \(line 5\)"):
        Dataset.from_csv(path, quasi_identifiers=["zip"], insensitive=["age", "note"], hierarchies={"zip": h})
    assert len(calls) == 1
    assert [lines.line(i) for i in range(3)] == [2, 4, 5] and len(calls) == 2  # found once, then kept
    assert lines.line(2) == 5 and len(calls) == 2


def test_a_file_changed_after_reading_is_not_given_wrong_line_numbers(tmp_path):
    from ktype.data.types import where

    path = _write(tmp_path, ["zip,age", "a,30", "b,41", "c,52"])
    lines = read_table(path).attrs["ktype_first_line"]
    path.write_text("zip,age,note\n" + 'a,30,"two\nlines"\n' * 3)  # other lines now
    assert lines.line(2) is None
    assert where(2, lines) == "record 3 of t.csv (the file has changed since it was read)"
    path.unlink()
    assert where(0, lines).startswith("record 1 of t.csv")

def test_the_input_files_are_recorded_so_no_release_overwrites_them(tmp_path):
    path = _write(tmp_path, ["zip,age", "a,30", "b,41"])
    hfile = tmp_path / "zip_hierarchy.csv"
    hfile.write_text("a;*\nb;*\n")
    ds = Dataset.from_csv(path, quasi_identifiers=["zip"], insensitive=["age"], hierarchies={"zip": str(hfile)})
    assert set(ds.source_files) == {path.absolute(), hfile.absolute()}
    df = read_table(path)
    assert Dataset(df, quasi_identifiers=["zip", "age"]).source_files == (path.absolute(),)
    mem = Dataset(pd.DataFrame({"zip": ["a"], "d": pd.to_datetime(["2020-01-01"])}), quasi_identifiers=["zip", "d"],
                  hierarchies={"d": "dates:month,year", "zip": "flat"})
    assert mem.source_files == ()


def test_columns_without_a_role_are_all_named():
    df = pd.DataFrame({"a": [1, 2], "b": [3, 4], "name": ["x", "y"], "ssn": ["1", "2"]})
    with pytest.raises(UnassignedColumnsError) as err:
        Dataset(df, quasi_identifiers=["a"], insensitive=["b"])
    assert err.value.columns == ["name", "ssn"]
    assert list(err.value.frame.columns) == ["name", "ssn"]
    assert "name" in str(err.value) and "ssn" in str(err.value)


def test_a_float_column_declared_text_is_written_like_the_labels():
    s = pd.Series([30.0, 1.5, np.nan, -2.0])
    out = convert_column(s, "text", "c")
    assert out.tolist() == ["30", "1.5", None, "-2"]
    assert all(isinstance(v, str) for v in out.dropna())
    assert out.tolist()[:2] == value_keys([30.0, 1.5])


def test_value_keys_read_back_as_the_same_value():
    values = [1.5, 2.0, -0.25, np.float64(7.0), np.int64(3), 12, " a ", True, np.bool_(False),
              pd.Timestamp("2020-01-02"), pd.Timestamp("2020-01-02 10:30")]
    keys = value_keys(values)
    assert keys == ["1.5", "2", "-0.25", "7", "3", "12", "a", "True", "False", "2020-01-02", "2020-01-02T10:30:00"]
    for v, k in zip(values[:6], keys):
        assert float(k) == float(v)
    h = Hierarchy.ordered([0.5, 1.5, 2.25], name="x")
    assert h.labels(np.array([0, 1]), np.array([1, 2])) == ["[0.5-1.5]", "[1.5-2.25]"]
    assert h.parse_label("[0.5-1.5]") == (0, 1)
