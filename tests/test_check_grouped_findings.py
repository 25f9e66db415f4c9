"""``ktype check`` of a release against other hierarchies than its own: the labels a column
cannot read are one finding per column (their exact number, rows and first few examples,
and what to give), not one per distinct label — a 10^4-row freeform release checked without
its hierarchies printed thousands of ``FAIL [labels]`` lines.

Each test fails with the bug planted back (one finding per unreadable label).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from rich.console import Console

import ktype.cli as cli
from ktype.audit import EXAMPLE_CHARS, MAX_EXAMPLES, MAX_LISTED, audit
from ktype.cli import EXIT_VIOLATION, run
from ktype.models.freeform import FreeformKAnonymity

N = 60
HOSTILE = "[bold red]x[/]\x1b[31m"  # rich markup and a terminal escape, from the untrusted file
LONG = "{" + "9" * 300 + "}"


def _tables(bad_word: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
    """An original (age numeric, so an ordered hierarchy by default: a range column of a
    freeform release) and a release publishing ages as value sets ``{a,b}``, which that
    hierarchy cannot read; a few ages stay plain values (readable). With ``bad_word`` the
    word column holds sets with an element of no record (unreadable) too."""
    i = np.arange(N)
    age = 20 + i % 30
    original = pd.DataFrame({"age": age, "word": np.array(["a", "b", "c"])[i % 3], "s": np.where(i % 2, "x", "y")})
    pub = original.astype(object).copy()
    pub["age"] = [f"{{{a},{a + 1}}}" for a in age]
    pub.loc[[5, 17, 40], "age"] = [str(a) for a in age[[5, 17, 40]]]  # readable cells are not counted
    pub.loc[2, "age"] = HOSTILE
    pub.loc[3, "age"] = LONG
    if bad_word:
        pub.loc[[7, 8, 30], "word"] = ["{a,zz}", "{b,zz}", "{a,zz}"]
    return original, pub


def _unreadable(pub: pd.DataFrame, col: str, readable: set[str]) -> tuple[list[str], np.ndarray]:
    """Recount: the distinct unreadable labels of ``col`` in file order, and their rows."""
    cells = pub[col].astype(str)
    bad = ~cells.isin(readable)
    return list(pd.unique(cells[bad])), np.flatnonzero(bad.to_numpy())


def _audit(original: pd.DataFrame, pub: pd.DataFrame):
    return audit(
        original, pub, FreeformKAnonymity(1), quasi_identifiers=["age", "word"], sensitive=["s"], recoding="freeform"
    )


def test_many_unreadable_labels_of_a_column_are_one_finding_with_exact_count_and_examples():
    original, pub = _tables()
    rep = _audit(original, pub)
    labels, rows = _unreadable(pub, "age", {str(a) for a in original["age"]})
    assert len(labels) == 32 > MAX_EXAMPLES  # 30 distinct sets + the two hostile cells
    (f,) = [f for f in rep.findings if f.check == "labels"]
    assert f.count == len(labels) and f.rows == [int(r) for r in rows[:MAX_LISTED]]
    assert f"{len(labels)} distinct published labels, in {len(rows)} rows" in f.reason
    # the first examples in file order, each cut to EXAMPLE_CHARS
    want = [lab if len(lab) <= EXAMPLE_CHARS else lab[: EXAMPLE_CHARS - 3] + "..." for lab in labels[:MAX_EXAMPLES]]
    assert f.examples == want and all(len(e) <= EXAMPLE_CHARS for e in f.examples)
    assert all(repr(e) in f.reason for e in want) and repr(labels[MAX_EXAMPLES]) not in f.reason
    assert "9" * EXAMPLE_CHARS not in f.reason and "\x1b" not in f.reason  # cut; control characters escaped
    assert "-H age=FILE" in f.reason and "hierarchies=" in f.reason  # what to give
    assert f.to_dict()["count"] == len(labels) and f.to_dict()["examples"] == want


def test_two_columns_with_unreadable_labels_are_two_findings():
    original, pub = _tables(bad_word=True)
    rep = _audit(original, pub)
    found = [f for f in rep.findings if f.check == "labels"]
    assert [f.reason.split(":")[0] for f in found] == ["Column 'age'", "Column 'word'"]
    age, word = found
    assert age.count == len(_unreadable(pub, "age", {str(a) for a in original["age"]})[0])
    labels, rows = _unreadable(pub, "word", {"a", "b", "c"})
    assert word.count == len(labels) == 2 and word.rows == [int(r) for r in rows] == [7, 8, 30]
    assert word.examples == ["{a,zz}", "{b,zz}"] and "'zz'" in word.reason  # the first one's reason
    assert "2 distinct published labels, in 3 rows" in word.reason


@pytest.mark.parametrize("bad_word", [False, True])
def test_grouping_keeps_the_verdict_a_fail(bad_word):
    original, pub = _tables(bad_word)
    rep = _audit(original, pub)
    assert not rep.passed and not rep.results and rep.findings
    assert not rep.to_dict()["passed"]
    clean = original.astype(object)  # the same release with every label readable passes: the labels failed it
    assert _audit(original, clean).passed


def _files(tmp_path, bad_word: bool) -> list[str]:
    original, pub = _tables(bad_word)
    original.to_csv(tmp_path / "original.csv", index=False)
    pub.to_csv(tmp_path / "release.csv", index=False)
    return [
        "check",
        str(tmp_path / "release.csv"),
        "--original",
        str(tmp_path / "original.csv"),
        "--qi",
        "age,word",
        "-s",
        "s",
        "--model",
        "freeform-k-anonymity",
        "--k",
        "1",
        "--recoding",
        "freeform",
    ]


@pytest.mark.parametrize("bad_word", [False, True])
def test_cli_prints_one_fail_line_per_column(tmp_path, monkeypatch, capsys, bad_word):
    monkeypatch.setenv("COLUMNS", "100000")  # one printed finding, one line
    monkeypatch.setattr(cli._app, "out", Console())
    argv = _files(tmp_path, bad_word)
    assert run(argv) == EXIT_VIOLATION
    out = capsys.readouterr().out
    fails = [line for line in out.splitlines() if line.startswith("FAIL")]
    assert [line.split(":")[0] for line in fails] == ["FAIL [labels] Column 'age'"] + (
        ["FAIL [labels] Column 'word'"] if bad_word else []
    )
    assert "[bold red]x[/]" in fails[0]  # untrusted markup printed as text, not interpreted
    assert "\x1b" not in out  # a terminal escape of the file is shown escaped, never sent
    assert "9" * EXAMPLE_CHARS not in out
    assert run([*argv, "--json"]) == EXIT_VIOLATION
    rep = json.loads(capsys.readouterr().out)
    assert not rep["passed"] and [f["count"] for f in rep["findings"]] == [32] + ([2] if bad_word else [])
