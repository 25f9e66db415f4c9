"""The freeform experiments (Figs. 6-10) run end to end in their tiny configuration (slow).

``KTYPE_FULL=1`` runs the paper's configuration instead (hours on 2 cores).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "experiments" / "freeform" / "run.py"
KEYS = {
    "fig6": ["n", "k", "method"],
    "fig7": ["table", "k", "method"],
    "fig8": ["data", "n", "k", "method"],
    "fig9": ["n", "d", "k", "method"],
    "fig10": ["n", "k", "method"],
}


def _run(out: Path, *args: str) -> subprocess.CompletedProcess:
    full = os.environ.get("KTYPE_FULL") == "1"
    cmd = [sys.executable, str(SCRIPT), "--full" if full else "--tiny", "--out", str(out), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=None if full else 1200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


@pytest.mark.slow
@pytest.mark.skipif(not SCRIPT.exists(), reason="needs the repository's experiments folder")
def test_freeform_experiments_tiny(tmp_path):
    out = tmp_path / "results"
    first = _run(out, "--max-n", "150")  # small points first, the rest resumed by the second call
    assert "fig7 table=0" in first.stdout and "fig10 n=200" not in first.stdout
    if os.environ.get("KTYPE_FULL") != "1":  # the tiny configuration's fig10 has k = 5
        some = _run(out, "--only", "fig10", "--methods", "nh", "--ks", "5")  # one method's points only
        lines = [x for x in some.stdout.splitlines() if " cpu=" in x]
        assert lines and all(x.startswith("fig10 ") and " k=5 method=nh " in x for x in lines), lines
        assert "fig10 n=200 k=5 method=nh " in some.stdout
    second = _run(out)
    assert "method=nh" not in "".join(x for x in second.stdout.splitlines() if x.startswith("fig10 n=200"))
    assert "fig7 table=0 " not in second.stdout  # resumed: points already in the CSVs are not re-run
    assert "fig10 n=200" in second.stdout
    for name in ("fig6", "fig7", "fig8", "fig9", "fig10"):
        assert (out / f"{name}.csv").exists() and (out / f"{name}.png").exists()
        df = pd.read_csv(out / f"{name}.csv")
        assert not df.duplicated(KEYS[name]).any(), name
        assert (df.cpu_seconds >= 0).all() and df.gcp.between(0, 1).all()
    third = _run(out)
    assert " cpu=" not in third.stdout  # nothing left to measure
    f7 = pd.read_csv(out / "fig7.csv")
    opt = f7[f7.method == "mip"].set_index(["table", "k"])["gcp"]
    for m in ("greedy", "sortgreedy", "hungarian", "mincostflow", "nh"):
        g = f7[f7.method == m].set_index(["table", "k"])["gcp"]
        assert (g >= opt[g.index] - 1e-9).all(), m  # nothing beats the optimum
    k2 = f7[f7.k == 2].pivot_table(index="table", columns="method", values="gcp")
    assert ((k2["mincostflow"] - k2["mip"]).abs() < 1e-9).all()  # minCostFlow optimal at k = 2
    f6 = pd.read_csv(out / "fig6.csv")
    assert (f6.parallel_seconds > 0).all() and set(f6.method) == {"greedy", "sortgreedy", "hungarian", "nh"}
    text = (out / "summary.md").read_text()
    assert "minCostFlow is optimal at k = 2" in text and "Verdict" in text
