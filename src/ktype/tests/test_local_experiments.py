"""The k-concealment experiments run end to end in their quick configuration (slow)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "experiments" / "kconcealment" / "run.py"
sys.path.insert(0, str(SCRIPT.parent))
try:
    from kc_data import DATA  # the experiments' own data-root resolution
except ImportError:  # pragma: no cover - experiments folder absent
    DATA = Path("/nonexistent")


@pytest.mark.slow
@pytest.mark.skipif(
    not SCRIPT.exists() or not (DATA / "adult_uci").exists(),
    reason="needs the repository's experiments and shared data",
)
def test_kconcealment_experiments_quick(tmp_path):
    out = tmp_path / "results"
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--out", str(out)], capture_output=True, text=True, timeout=1200
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    for name in (
        "fig5_artificial",
        "fig6_adult",
        "fig7_cmc",
        "fig8_nursery",
        "fig9_randomization_adult",
        "fig10_ldiversity",
    ):
        assert (out / f"{name}.csv").exists() and (out / f"{name}.png").exists()
    df = pd.read_csv(out / "fig6_adult.csv")
    assert set(df["algorithm"]) == {"agglomerative", "forest", "k-concealment"}
    assert (df["loss"] >= 0).all()
    assert "Experiment 1" in (out / "summary.md").read_text()
