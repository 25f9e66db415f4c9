"""Every test has a time limit: a bug that makes an algorithm loop fails the suite, it does not hang it.

The limit is pytest-timeout's, set in pyproject.toml. This test runs pytest on a throw-away test that
loops forever, with the project's configuration and a 2-second limit, and checks that the run fails
promptly and names the timeout.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_suite_configures_a_time_limit(pytestconfig) -> None:
    assert float(pytestconfig.getini("timeout")) > 0


def test_a_looping_test_fails_instead_of_hanging(tmp_path: Path) -> None:
    loop = tmp_path / "test_loop.py"
    loop.write_text("def test_loops_forever():\n    while True:\n        pass\n")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", str(loop), "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path),
         "-p", "no:cacheprovider", "-p", "no:xdist", "-o", "addopts=", "-o", "timeout=2", "-q"],
        capture_output=True, text=True, timeout=120,  # a run that hangs fails here (TimeoutExpired)
    )
    assert proc.returncode != 0, proc.stdout
    assert "Timeout" in proc.stdout + proc.stderr
