"""README.md is runnable as written: its Quick start has exactly two commands and command 1
writes into ``out/`` (git-ignored), not the repository root."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
README = ROOT / "README.md"

pytestmark = pytest.mark.skipif(not README.exists(), reason="README.md is not beside the installed package")


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", README.read_text(encoding="utf-8"), re.S | re.M)


def _quick_start_commands() -> list[str]:
    quick = README.read_text(encoding="utf-8").split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"^```bash\n(.*?)^```", quick, re.S | re.M)
    assert block
    return [ln for ln in block.group(1).splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def test_quick_start_command_1_writes_into_out(tmp_path, monkeypatch):
    from ktype.cli import EXIT_OK, run

    cmds = _quick_start_commands()
    assert len(cmds) == 2
    ktype_part = cmds[0].split("&&")[-1].strip()
    argv = shlex.split(ktype_part)
    assert argv[0].endswith("ktype")
    monkeypatch.chdir(tmp_path)
    assert run(argv[1:]) == EXIT_OK
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # nothing left in the root
    assert {"adult-k10.csv", "adult-k10.json", "adult-k10.ktype.json"} <= {p.name for p in (tmp_path / "out").iterdir()}
    assert "/out/" in (ROOT / ".gitignore").read_text().split() or "out/" in (ROOT / ".gitignore").read_text().split()
