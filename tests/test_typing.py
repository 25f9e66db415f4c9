"""mypy on the public API (configuration: ``[tool.mypy]`` in pyproject.toml).

Run as a test so that the one test command (README, .ci/run) and every landing check it.
"""

from __future__ import annotations

from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parents[1]


def test_public_api_type_checks(monkeypatch):
    monkeypatch.chdir(ROOT)  # mypy reads [tool.mypy] (files, options) from pyproject.toml here
    out, err, status = api.run(["--config-file", str(ROOT / "pyproject.toml")])
    assert status == 0, out + err
