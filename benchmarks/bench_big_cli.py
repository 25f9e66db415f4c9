#!/usr/bin/env python
"""The command a user runs on a big table: ``ktype anonymize`` on a CSV of 10^6 rows.

A synthetic CENSUS CSV (8 quasi-identifiers, the default hierarchies ktype builds from a CSV:
``ordered`` for numbers, ``flat`` for text) is anonymized with Mondrian, k = 10:

* **cold CLI** — the whole ``ktype anonymize big.csv --qi ... -a mondrian --k 10 --output out.csv``
  process (imports, reading, the Dataset, Mondrian, verification, the summary's measures,
  writing and the read-back check), wall and CPU time; one unrecorded run first warms the
  numba cache and the OS file cache;
* **parts** — the same steps in one process, each timed: ``read`` (``Dataset.from_csv``),
  ``algorithm`` and ``verification`` (the registry's timings), each measure of the summary,
  and ``write`` (``Release.save``: the CSV, its read-back check and the sidecar).

Usage::

    python benchmarks/bench_big_cli.py                 # 10^6 rows, 3 cold runs
    python benchmarks/bench_big_cli.py --rows 200000 --runs 1

Results: ``benchmarks/results/big_cli.{json,md}`` with the load average beside every figure.
No timing assertions anywhere.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
QI = ["Age", "Gender", "Education Level", "Marital Status", "Race", "Work Class", "Country", "Occupation"]
K = 10


def _load() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def _env() -> dict[str, str]:
    # as an installed package runs: bytecode cached (this machine's environment may disable it)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": str(ROOT / "src")}


def cold(csv: Path, tmp: Path, runs: int) -> dict[str, Any]:
    argv = [sys.executable, "-m", "ktype", "anonymize", str(csv), "--qi", ",".join(QI), "--algorithm", "mondrian",
            "--k", str(K), "--output", str(tmp / "out.csv"), "--force"]
    subprocess.run(argv, capture_output=True, text=True, env=_env(), check=True)  # warm-up, not recorded
    walls, cpus, loads = [], [], []
    for _ in range(runs):
        loads.append(_load())
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(argv, capture_output=True, text=True, env=_env(), check=True)
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return {"runs": runs, "median_wall_s": round(statistics.median(walls), 2), "min_wall_s": round(min(walls), 2),
            "median_cpu_s": round(statistics.median(cpus), 2), "loads": loads}


def parts(csv: Path, tmp: Path) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "src"))
    from ktype import Dataset
    from ktype.algorithms import run
    from ktype.job import prosecutor_risk_before_after
    from ktype.measures import MEASURES, compute
    from ktype.models import KAnonymity

    out: dict[str, Any] = {"load": _load()}
    t0 = time.perf_counter()
    ds = Dataset.from_csv(csv, quasi_identifiers=QI)
    out["read_s"] = round(time.perf_counter() - t0, 2)
    rel = run("mondrian", ds, KAnonymity(K))
    tm = rel.provenance["timings"]
    out["algorithm_s"], out["verification_s"] = round(tm["algorithm_s"], 2), round(tm["verification_s"], 2)
    out["measures_s"] = {}
    for name in MEASURES:  # the summary computes every measure that applies
        t0 = time.perf_counter()
        compute(rel, [name])
        out["measures_s"][name] = round(time.perf_counter() - t0, 2)
    t0 = time.perf_counter()
    prosecutor_risk_before_after(ds, rel)
    out["risk_s"] = round(time.perf_counter() - t0, 2)
    t0 = time.perf_counter()
    rel.save(tmp / "parts.csv")
    out["write_s"] = round(time.perf_counter() - t0, 2)
    out["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT / "src"))
    from ktype.datasets import census

    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    res: dict[str, Any] = {"date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "commit": commit,
                           "python": platform.python_version(), "cpus": os.cpu_count(), "rows": args.rows, "k": K}
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        csv = tmp / "big.csv"
        census(args.rows, rng=1).to_csv(csv, index=False)
        res["cold"] = cold(csv, tmp, args.runs)
        res["parts"] = parts(csv, tmp)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "big_cli.json").write_text(json.dumps(res, indent=1) + "\n")
    c, p = res["cold"], res["parts"]
    md = ["# `ktype anonymize` on a big CSV (benchmarks/bench_big_cli.py)", "",
          f"{res['date_utc']}, commit {commit}, Python {res['python']}, {res['cpus']} CPUs; synthetic CENSUS, "
          f"{args.rows:,} rows, 8 QIs (default hierarchies from the CSV), Mondrian k = {K}. Load = 1/5/15-minute "
          "load average before each run.", "",
          "## Cold command", "",
          f"Median wall **{c['median_wall_s']} s** (min {c['min_wall_s']} s), median CPU {c['median_cpu_s']} s over "
          f"{c['runs']} runs; loads {c['loads']}.", "",
          "## Parts, in one process", "",
          "| step | s |", "|---|---:|",
          f"| read (`Dataset.from_csv`) | {p['read_s']} |",
          f"| Mondrian | {p['algorithm_s']} |",
          f"| verification | {p['verification_s']} |",
          *[f"| summary measure `{k}` | {v} |" for k, v in p["measures_s"].items()],
          f"| summary risk before / after | {p['risk_s']} |",
          f"| write (CSV, read-back check, sidecar) | {p['write_s']} |", "",
          f"Peak RSS {p['peak_rss_mib']} MiB; load {p['load']}.", ""]
    (RESULTS / "big_cli.md").write_text("\n".join(md))
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
