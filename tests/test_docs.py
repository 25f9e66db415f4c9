"""The documentation site builds without a warning, and every code block in it runs.

* ``mkdocs build --strict`` (mkdocs.yml): broken links, missing pages and docstrings the API
  reference cannot render fail the build;
* every fenced ``python`` block of every page under ``docs/`` runs (the blocks of one page in
  order, sharing one namespace, in a temporary directory that has an ``out/`` folder);
* every ``bash`` block runs in bash in the same folder and must exit 0 (steps that create a
  virtual environment or install packages are skipped: the test runs in one).
Blocks that only show output are fenced ``text``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md"))
FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", re.S | re.M)


def blocks(page: Path, lang: str) -> list[str]:
    return [body for kind, body in FENCE.findall(page.read_text(encoding="utf-8")) if kind == lang]


def test_the_site_builds_strictly(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
                           "-d", str(tmp_path / "site")], capture_output=True, text=True, cwd=ROOT, timeout=240)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert (tmp_path / "site" / "reference" / "api" / "index.html").exists()


RUNNABLE = ("python", "bash")


def _runnable(page: Path) -> list[tuple[str, str]]:
    return [(kind, body) for kind, body in FENCE.findall(page.read_text(encoding="utf-8")) if kind in RUNNABLE]


SETUP = ("python3 -m venv", "pip install", ".venv/bin/pip install")


def _shell_script(code: str) -> str:
    """A bash block as a script: setting up a virtual environment or installing packages is
    what the reader did already (the test runs in that environment), so those ``&&`` steps go;
    ``.venv/bin/ktype`` is the ``ktype`` of this environment."""
    lines = []
    for line in code.splitlines():
        steps = [p.strip() for p in line.split("&&")]
        while steps and any(steps[0].startswith(x) or x in steps[0] for x in SETUP):
            steps.pop(0)
        if steps:
            lines.append(" && ".join(steps).replace(".venv/bin/ktype", "ktype"))
    return "\n".join(lines)


@pytest.mark.parametrize("page", [p for p in PAGES if _runnable(p)], ids=lambda p: str(p.relative_to(DOCS)))
def test_every_code_block_runs(page, tmp_path, monkeypatch):
    """The page's python and bash blocks, in the order a reader meets them, in one folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    namespace: dict = {"__name__": "__docs__"}
    for i, (kind, code) in enumerate(_runnable(page)):
        where = f"{page.relative_to(DOCS)} block {i + 1} ({kind})"
        if kind == "python":
            try:
                exec(compile(code, where, "exec"), namespace)  # noqa: S102 - the docs' own code
            except Exception as e:  # noqa: BLE001 - report which block
                raise AssertionError(f"{where} fails: {type(e).__name__}: {e}") from e
        else:
            env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
            proc = subprocess.run(["bash", "-euo", "pipefail", "-c", _shell_script(code)], cwd=tmp_path, env=env,
                                  capture_output=True, text=True, timeout=600)
            assert proc.returncode == 0, f"{where} exits {proc.returncode}: {proc.stderr[-2000:]}"
