"""docs/guide.md's job example ("One job, three ways") runs as written: the shell part writes
a latin-1 table with US dates and missing ages, anonymizes it from a YAML config and measures
the release's risk; the Python part rebuilds the same job."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guide.md"

pytestmark = pytest.mark.skipif(not GUIDE.exists() or shutil.which("bash") is None, reason="needs docs/ and bash")


def _section() -> str:
    text = GUIDE.read_text(encoding="utf-8")
    return text[text.index("**One job, three ways.**"):].split("\n## ", 1)[0]


def test_the_job_example_runs_from_the_shell_and_from_python(tmp_path):
    sec = _section()
    shell = re.search(r"```bash\n(.*?)```", sec, re.S).group(1)
    python = re.search(r"```python\n(.*?)```", sec, re.S).group(1)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    script = f'set -e\nktype() {{ "{sys.executable}" -m ktype "$@"; }}\n' + shell
    res = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr[-2000:]
    assert (tmp_path / "out" / "visits-k3.csv").exists()
    assert "café" in (tmp_path / "out" / "visits-k3.csv").read_text(encoding="utf-8")
    res = subprocess.run([sys.executable, "-c", python], cwd=tmp_path, env=env, capture_output=True, text=True,
                         check=False)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "'insensitive': ['*']" in res.stdout and "'rng'" not in res.stdout
