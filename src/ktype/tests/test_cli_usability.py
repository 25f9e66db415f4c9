"""Issue #24: every command's output is one a person can read and act on.

Each test here fails with its bug planted back (the listing cut at 80 columns, a measure
``metrics`` leaves out, numpy scalars in a message, ...).
"""

from __future__ import annotations

import json

import pytest
from rich.console import Console

import ktype.cli as cli
from ktype.algorithms import all_algorithms
from ktype.cli import EXIT_OK, run


def _narrow(monkeypatch, width: int = 80) -> None:
    """The console a user with an 80-column terminal gets (rich reads COLUMNS at creation)."""
    monkeypatch.setenv("COLUMNS", str(width))
    monkeypatch.setattr(cli, "out", Console())


@pytest.mark.parametrize("flags", [[], ["--verbose"]])
def test_algorithms_names_whole_at_80_columns(monkeypatch, capsys, flags):
    _narrow(monkeypatch)
    assert run(["algorithms", *flags]) == EXIT_OK
    text = capsys.readouterr().out
    assert "…" not in text
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    cells = {c.strip() for line in lines for c in line.replace("┃", "│").split("│")}
    words = {w.strip() for line in lines for w in line.split()}
    for a in all_algorithms():
        assert a.name in (cells if not flags else words), a.name


def test_algorithms_json_lists_every_algorithm(capsys):
    assert run(["algorithms", "--json"]) == EXIT_OK
    entries = json.loads(capsys.readouterr().out)
    assert [e["name"] for e in entries] == [a.name for a in all_algorithms()]
    mondrian = next(e for e in entries if e["name"] == "mondrian")
    assert "KAnonymity" in mondrian["models"] and mondrian["randomized"] is False
    assert mondrian["description"] and "mode" in mondrian["options"]
