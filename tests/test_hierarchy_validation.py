"""Hierarchy tables whose levels are not nested partitions are refused (issue #12)."""

import hashlib

import pandas as pd
import pytest
from typer.testing import CliRunner

from ktype import Hierarchy
from ktype.cli import app
from ktype.data import builders
from ktype.exceptions import HierarchyError

runner = CliRunner()


def test_label_with_two_parents_is_refused_with_its_rows():
    rows = [["94142", "9414*", "941**", "*"], ["94141", "9414*", "942**", "*"], ["94201", "9420*", "942**", "*"]]
    with pytest.raises(HierarchyError, match=r"'9414\*' has two parents, '941\*\*' \(row 1\) and '942\*\*' \(row 2\)"):
        Hierarchy.from_table(rows, name="zip")


def test_cycle_is_refused():
    rows = [["a", "M", "X", "*"], ["b", "X", "M", "*"]]
    with pytest.raises(HierarchyError, match=r"cycle: 'M' -> 'X' \(row 1\) and 'X' -> 'M' \(row 2\)"):
        Hierarchy.from_table(rows, name="g")


def test_same_label_for_two_groups_at_different_levels_is_refused():
    # level 1 groups {a, b} as X, level 2 splits them again: not nested
    rows = [["a", "X", "Y", "*"], ["b", "X", "X", "*"]]
    with pytest.raises(HierarchyError, match="not a tree"):
        Hierarchy.from_table(rows, name="g")
    # level 1 label reused at level 2 for another group
    rows = [["a", "A", "B", "*"], ["b", "C", "A", "*"]]
    with pytest.raises(HierarchyError, match=r"label 'A' names different groups at level 1 \(row 1\) and level 2 \(row 2\)"):
        Hierarchy.from_table(rows, name="g")


def test_value_listed_twice_names_both_rows():
    with pytest.raises(HierarchyError, match=r"'a' twice with different generalizations \(rows 1 and 3\)"):
        Hierarchy.from_table([["a", "x", "*"], ["b", "x", "*"], ["a", "y", "*"]], name="g")


def test_padding_by_repeating_a_label_is_still_accepted():
    h = Hierarchy.from_table([["a", "a", "*"], ["b", "bc", "*"], ["c", "bc", "*"]], name="g")
    assert h.uniform and h.size == 3


def test_classmethods_delegate_to_the_builders_module():
    vals = list(range(10, 40))
    a = Hierarchy.intervals(vals, [5, 10], name="age")
    b = builders.intervals(vals, [5, 10], name="age")
    assert a.fingerprint() == b.fingerprint()


def test_cli_refuses_inconsistent_arx_file(tmp_path):
    df = pd.DataFrame({"zip": ["94142", "94141", "94201"] * 4, "age": list(range(12))})
    data = tmp_path / "d.csv"
    df.to_csv(data, index=False)
    hier = tmp_path / "zip.csv"
    hier.write_text("94142;9414*;941**;*\n94141;9414*;942**;*\n94201;9420*;942**;*\n")
    before = hashlib.sha256(data.read_bytes()).hexdigest()
    out = tmp_path / "out.csv"
    res = runner.invoke(app, ["anonymize", str(data), "--qi", "zip,age", "-H", f"zip={hier}", "-k", "2", "-O", str(out)])
    assert res.exit_code == 3
    assert "two parents" in res.output and "row 1" in res.output and "row 2" in res.output
    assert not out.exists()
    assert hashlib.sha256(data.read_bytes()).hexdigest() == before


@pytest.mark.parametrize("dtype", [object, "category", "str"])
def test_a_star_value_is_refused_naming_the_row_where_it_first_appears(dtype):
    """'*' is reserved for a suppressed cell: a column holding it is refused, and the message names
    the position of its first row (a recount over the column), also after repeated values."""
    import numpy as np

    rng = np.random.default_rng(7)
    vals = rng.choice(["a", "b", "c"], 500).astype(object)
    first = int(rng.integers(50, 450))
    vals[first] = "*"
    vals[first + 3:: 17] = "*"
    col = pd.Series(vals, dtype=dtype)
    expected = next(i for i, v in enumerate(vals) if v == "*")
    with pytest.raises(HierarchyError, match=rf"'\*' \(position {expected}\)"):
        builders.build_hierarchy("x", None, col)
