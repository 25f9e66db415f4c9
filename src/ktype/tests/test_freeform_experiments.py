"""The freeform experiments (Figs. 6-10) run end to end in their quick configuration (slow)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "experiments" / "freeform" / "run.py"


@pytest.mark.slow
@pytest.mark.skipif(not SCRIPT.exists(), reason="needs the repository's experiments folder")
def test_freeform_experiments_quick(tmp_path):
    out = tmp_path / "results"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--out", str(out)], capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for name in ("fig6", "fig7", "fig8", "fig9", "fig10"):
        assert (out / f"{name}.csv").exists() and (out / f"{name}.png").exists()
    f7 = pd.read_csv(out / "fig7.csv")
    opt = f7[f7.method == "mip"].set_index(["table", "k"])["gcp"]
    for m in ("greedy", "sortgreedy", "hungarian", "mincostflow", "nh"):
        g = f7[f7.method == m].set_index(["table", "k"])["gcp"]
        assert (g >= opt[g.index] - 1e-9).all(), m  # nothing beats the optimum
    k2 = f7[f7.k == 2].pivot_table(index="table", columns="method", values="gcp")
    assert ((k2["mincostflow"] - k2["mip"]).abs() < 1e-9).all()  # minCostFlow optimal at k = 2
    text = (out / "summary.md").read_text()
    assert "minCostFlow is optimal at k = 2" in text and "Verdict" in text
