"""docs/survey.md is runnable as written: every Python block runs, in order, in a temporary directory."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "survey.md"


def test_python_blocks_run(tmp_path, monkeypatch, capsys):
    blocks = re.findall(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.S | re.M)
    assert len(blocks) == 9
    monkeypatch.chdir(tmp_path)
    for code in blocks:
        exec(compile(code, str(DOC), "exec"), {})  # noqa: S102 - the documentation's own examples
    out = capsys.readouterr().out
    assert "uniquely linked (1 candidate): 1" in out
    assert "False 4 ['David', 'John']" in out
