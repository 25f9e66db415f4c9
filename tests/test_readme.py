"""README.md is runnable as written: its Quick start has exactly two commands and command 1
writes into ``out/`` (git-ignored), not the repository root; its Python blocks run on a small
generated ``patients.csv`` and read ZIP 02139 as 02139."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
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


def _patients(path: Path, n: int = 200) -> None:
    r = np.random.default_rng(0)
    rows = [f"p{i},{int(r.integers(20, 80))},{['02139', '02138', '94142', '94143'][i % 4]},{'MF'[i % 2]},"
            f"{['flu', 'cold', 'asthma'][int(r.integers(0, 3))]},w{i % 3}" for i in range(n)]
    path.write_text("name,age,zip,sex,diagnosis,ward\n" + "\n".join(rows) + "\n")


def test_python_blocks_run(tmp_path, monkeypatch):
    blocks = _blocks("python")
    assert blocks and any("patients.csv" in b for b in blocks)
    assert not any("pd.read_csv" in b for b in blocks)  # turns ZIP 02139 into 2139
    monkeypatch.chdir(tmp_path)
    _patients(tmp_path / "patients.csv")
    for code in blocks:
        scope: dict = {}
        exec(compile(code, "README.md", "exec"), scope)  # noqa: S102 - the README's own examples
        if "patients.csv" in code:
            assert "02139" in set(scope["ds"].data["zip"].astype(str))
            assert scope["rel"].n == 200
