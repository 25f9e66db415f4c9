"""The k-concealment experiments run end to end in their quick configuration (slow)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "experiments" / "kconcealment" / "run.py"
sys.path.insert(0, str(SCRIPT.parent))


@pytest.mark.slow
def test_kconcealment_experiments_quick(tmp_path):  # data: data/adult_uci, data/cmc, data/nursery
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


@pytest.mark.skipif(not SCRIPT.exists(), reason="needs the repository's experiments")
def test_summary_with_one_side_of_the_ldiversity_pair():
    """A sweep step that runs only ``agglomerative + Alg 8`` must still write its summary (it
    raised KeyError on the missing ``k-concealment + l-diversity`` column and stopped the sweep)."""
    import run as kc_run  # experiments/kconcealment/run.py, on sys.path above

    fig10 = pd.DataFrame(
        {
            "dataset": ["adult"] * 2,
            "l": [1.1, 1.1],
            "k": [20, 30],
            "algorithm": ["agglomerative + Alg 8"] * 2,
            "loss": [0.37, 0.40],
        }
    )
    cfg = {"n": {"adult": None}, "ks": [20, 30]}
    text = kc_run.summarize({}, None, fig10, "full", cfg)
    assert "no verdict" in text
    both = pd.concat([fig10, fig10.assign(algorithm="k-concealment + l-diversity", loss=[0.30, 0.50])])
    text = kc_run.summarize({}, None, both, "full", cfg)
    assert "under ℓ-diversity everywhere: False" in text
    text = kc_run.summarize({}, None, both.assign(loss=[0.37, 0.40, 0.30, 0.35]), "full", cfg)
    assert "under ℓ-diversity everywhere: True" in text
