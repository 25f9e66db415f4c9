#!/usr/bin/env python
"""``ktype risk`` end to end (issue #25): the cold command, the warm computation, 10^6 rows.

(a) ``cold``: the whole ``ktype risk adult.csv --qi ... --sampling-fraction 0.01 --json``
    process (start-up, imports, reading, the report, printing), wall and CPU time, median of
    ``--runs`` after one unrecorded run (OS file cache); and the same command's imports alone
    (``python -X importtime``, the largest top-level packages). Goal: < 1 s on an idle machine.
(b) ``warm``: in one process, after a warm-up, ``risk_report`` of Adult with a sampling
    fraction (with and without risk drivers) and its parts. Goal: < 0.1 s.
(c) ``million``: ``reidentification_risk`` and ``population_uniqueness`` with a sampling
    fraction on a 10^6-row CENSUS-schema table. Goal: < 2 s.

The ``uptime`` load is recorded before every timing: on the shared 2-core machine a load
above ~2 makes every number pessimistic. No timing assertions. Results:
``benchmarks/results/risk_cold.json`` and ``.md``.

Usage::

    python benchmarks/bench_risk_cold.py [--runs 5] [--rows 1000000]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
ADULT = ROOT / "src" / "ktype" / "data" / "_bundled" / "adult" / "adult.csv.gz"
QI = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation"]


def load() -> float:
    return round(os.getloadavg()[0], 2)


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # bytecode cached, as installed
    return {**env, "PYTHONPATH": str(ROOT / "src")}


def _child(argv: list[str]) -> tuple[float, float, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=_env())
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        print(proc.stderr[-2000:], file=sys.stderr)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc.returncode


def cold(csv: Path, runs: int) -> dict[str, Any]:
    argv = [sys.executable, "-m", "ktype", "risk", str(csv), "--qi", ",".join(QI), "--insensitive", "salary-class",
            "--sampling-fraction", "0.01", "--json"]
    _child(argv)
    walls, cpus, loads, codes = [], [], [], []
    for _ in range(runs):
        loads.append(load())
        w, c, rc = _child(argv)
        walls.append(w)
        cpus.append(c)
        codes.append(rc)
    imp = subprocess.run([sys.executable, "-X", "importtime", *argv[1:]], capture_output=True, text=True, env=_env())
    top: dict[str, int] = {}
    for line in imp.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit() and not parts[2].startswith("  "):
            top[parts[2].strip()] = int(parts[1])
    largest = sorted(top.items(), key=lambda kv: -kv[1])[:8]
    return {"argv": "ktype risk adult.csv --qi <8 QIs> --insensitive salary-class --sampling-fraction 0.01 --json",
            "median_wall_s": round(statistics.median(walls), 3), "min_wall_s": round(min(walls), 3),
            "median_cpu_s": round(statistics.median(cpus), 3), "exit_codes": sorted(set(codes)), "loads": loads,
            "imports_s": {name: round(us / 1e6, 3) for name, us in largest}}


def _timed(fn: Any, repeat: int) -> tuple[float, float]:
    fn()
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return round(statistics.median(ts), 4), load()


def warm(repeat: int) -> list[dict[str, Any]]:
    import ktype
    from ktype.risk import individual_risk, population_uniqueness, reidentification_risk
    from ktype.risk.report import risk_report

    ds = ktype.load_adult()
    cases = [
        ("risk_report (sampling fraction 0.01, with drivers and hints)", lambda: risk_report(ds, sampling_fraction=0.01)),
        ("risk_report (sampling fraction 0.01, drivers=False)",
         lambda: risk_report(ds, sampling_fraction=0.01, drivers=False)),
        ("reidentification_risk (sampling fraction 0.01)", lambda: reidentification_risk(ds, sampling_fraction=0.01)),
        ("population_uniqueness (4 estimators)", lambda: population_uniqueness(ds, sampling_fraction=0.01)),
        ("individual_risk (sampling fraction 0.01)", lambda: individual_risk(ds, sampling_fraction=0.01)),
    ]
    out = []
    for name, fn in cases:
        s, ld = _timed(fn, repeat)
        out.append({"what": name, "rows": ds.n, "median_s": s, "load": ld})
    return out


def million(rows: int, repeat: int) -> list[dict[str, Any]]:
    from ktype.datasets import census_dataset
    from ktype.risk import population_uniqueness, reidentification_risk

    ds = census_dataset(rows, rng=0)
    out = []
    for name, fn in (("reidentification_risk (sampling fraction 0.1)", lambda: reidentification_risk(ds, sampling_fraction=0.1)),
                     ("population_uniqueness (4 estimators, fraction 0.1)",
                      lambda: population_uniqueness(ds, sampling_fraction=0.1))):
        s, ld = _timed(fn, repeat)
        out.append({"what": name, "rows": ds.n, "median_s": s, "load": ld})
    return out


def markdown(res: dict[str, Any]) -> str:
    c = res["cold"]
    lines = ["# `ktype risk` cold and warm (benchmarks/bench_risk_cold.py)", "",
             f"{res['date']}, Python {res['python']}, {res['cpus']} CPUs, commit {res['commit'][:10]}. "
             "Load = 1-minute load average before each timing (above ~2 on this 2-core machine: loaded, pessimistic).",
             "", "## Cold command (goal < 1 s idle)", "",
             f"`{c['argv']}`: median wall **{c['median_wall_s']} s** (min {c['min_wall_s']} s), median CPU "
             f"{c['median_cpu_s']} s over {len(c['loads'])} runs at loads {c['loads']}; exit codes {c['exit_codes']}.", "",
             "Largest top-level imports (s, `-X importtime`): "
             + ", ".join(f"{k} {v}" for k, v in c["imports_s"].items()) + ".", "",
             "## Warm, in one process (goal < 0.1 s)", "", "| what | rows | median s | load |", "|---|---:|---:|---:|"]
    for r in res["warm"] + res["million"]:
        lines.append(f"| {r['what']} | {r['rows']:,} | {r['median_s']} | {r['load']} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    import platform

    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=HERE).stdout.strip()
    res: dict[str, Any] = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "python": platform.python_version(),
                           "cpus": os.cpu_count(), "commit": commit}
    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / "adult.csv"
        csv.write_bytes(gzip.decompress(ADULT.read_bytes()))
        res["cold"] = cold(csv, args.runs)
    sys.path.insert(0, str(ROOT / "src"))
    res["warm"] = warm(args.repeat)
    res["million"] = million(args.rows, max(2, args.repeat // 2))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "risk_cold.json").write_text(json.dumps(res, indent=2) + "\n")
    (args.out / "risk_cold.md").write_text(markdown(res))
    print(markdown(res))


if __name__ == "__main__":
    main()
