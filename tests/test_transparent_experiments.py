"""The transparent-anonymization experiments (Figs. 11-15) run end to end in a small configuration (slow)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_quick_reproduction_writes_every_figure(tmp_path):
    spec = importlib.util.spec_from_file_location("transparent_experiments_run", ROOT / "experiments" / "transparent" / "run.py")
    tr_run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tr_run)

    argv = ["--out", str(tmp_path)] + ([] if os.environ.get("KTYPE_FULL") else ["--quick", "--n", "2000"])
    assert tr_run.main(argv) == 0
    for name in ("fig11_error_vs_l", "fig12_error_vs_qd", "fig13_error_vs_s", "fig14_time_vs_n", "fig15_time_vs_l"):
        assert (tmp_path / f"{name}.csv").exists() and (tmp_path / f"{name}.png").stat().st_size > 1000
    f11 = pd.read_csv(tmp_path / "fig11_error_vs_l.csv")
    assert set(f11["method"]) == {"hybrid", "mondrian", "tailor", "ace", "mask"} and set(f11["dataset"]) == {"OCC", "SAL"}
    assert (f11["error"] >= 0).all()
    text = (tmp_path / "summary.md").read_text()
    assert "Hybrid ≈ Mondrian" in text and "time vs n" in text
    # every point was recorded as it finished: a second run resumes (nothing left to compute)
    # and --summary-only rebuilds the same figures from the records
    records = (tmp_path / "records.jsonl").read_text().splitlines()
    assert len(records) == len(f11) + len(pd.read_csv(tmp_path / "fig14_time_vs_n.csv"))
    assert tr_run.main(argv + ["--summary-only"]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "fig11_error_vs_l.csv"), f11)
    assert (tmp_path / "records.jsonl").read_text().splitlines() == records
