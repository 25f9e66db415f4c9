"""The documentation site builds without a warning, and every code block in it runs.

* ``mkdocs build --strict`` (mkdocs.yml): broken links, missing pages and docstrings the API
  reference cannot render fail the build;
* every fenced ``python`` block of every page under ``docs/`` runs (the blocks of one page in
  order, sharing one namespace, in a temporary directory that has an ``out/`` folder);
* every ``bash`` block line runs when it is a ``ktype`` command (the part after the last
  ``&&`` of a set-up line), through the command line's ``run``, and must exit 0.
Blocks that only show output are fenced ``text``.
"""

from __future__ import annotations

import re
import shlex
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


def _ktype_commands(code: str) -> list[list[str]]:
    out = []
    for line in code.replace("\\\n", " ").splitlines():
        if not line.strip() or line.strip().startswith("#"):
            continue
        last = line.split("&&")[-1].strip()
        argv = shlex.split(last, comments=True)
        assert argv and Path(argv[0]).name == "ktype", f"not a ktype command (fence it as text): {line.strip()}"
        out.append(argv[1:])
    return out


@pytest.mark.parametrize("page", [p for p in PAGES if _runnable(p)], ids=lambda p: str(p.relative_to(DOCS)))
def test_every_code_block_runs(page, tmp_path, monkeypatch):
    """The page's python and bash blocks, in the order a reader meets them, in one folder."""
    from ktype.cli import EXIT_OK, run

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
            for argv in _ktype_commands(code):
                assert run(argv) == EXIT_OK, f"{where}: ktype {' '.join(argv)}"
