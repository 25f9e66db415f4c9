#!/usr/bin/env python
"""Start-up: what a user waits for before any work is done.

Each job runs ``--runs`` times in a fresh process; recorded per job: median and minimum wall
time, median CPU time (user + sys of the child), and which heavy modules (numba, scipy,
pandas) the process imported. Jobs:

* ``import ktype`` — ``python -c "import ktype"``;
* ``ktype --help`` — the console script's help;
* ``ktype --version``.

Usage::

    python benchmarks/bench_startup.py            # 15 runs per job (~10 s idle)
    python benchmarks/bench_startup.py --runs 30

Results: ``benchmarks/results/startup.{json,md}`` (written atomically). No timing assertions.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
HEAVY = ("numba", "scipy", "pandas")
PROBE = "import sys, runpy; sys.argv = {argv!r}; {body}\nprint('MODULES', ' '.join(m for m in {heavy!r} if m in sys.modules), file=sys.stderr)"


def _ktype_body() -> str:
    return "from ktype.cli import run; code = run(sys.argv[1:])"


JOBS = {
    "import ktype": (["python"], "import ktype"),
    "ktype --help": (["ktype", "--help"], _ktype_body()),
    "ktype --version": (["ktype", "--version"], _ktype_body()),
}


def _console_script() -> str | None:
    exe = Path(sys.executable).with_name("ktype")
    return str(exe) if exe.exists() else shutil.which("ktype")


#: the children run as an installed package does, with bytecode cached (PYTHONDONTWRITEBYTECODE=1 in the
#: benchmark's environment would make every run compile ktype's modules from source)
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def measure(argv: list[str], runs: int) -> dict:
    """``argv`` as a user types it: wall and CPU time of the whole child process."""
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=_ENV)
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return {"wall_median_s": round(statistics.median(walls), 4), "wall_min_s": round(min(walls), 4),
            "cpu_median_s": round(statistics.median(cpus), 4), "runs": runs}


def heavy_modules(argv: list[str], body: str) -> list[str]:
    code = PROBE.format(argv=argv, body=body, heavy=HEAVY)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    line = [x for x in proc.stderr.splitlines() if x.startswith("MODULES")]
    return line[-1].split()[1:] if line else ["(probe failed)"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    script = _console_script()
    load_before = os.getloadavg()
    rows = {}
    for name, (argv, body) in JOBS.items():
        if argv[0] == "python":
            cmd = [sys.executable, "-c", body]
        elif script is None:
            continue
        else:
            cmd = [script, *argv[1:]]
        rows[name] = {**measure(cmd, args.runs), "heavy_modules_imported": heavy_modules(argv, body)}
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    result = {
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "env": {"python": platform.python_version(), "cpu_count": os.cpu_count(), "git_commit": commit},
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "jobs": rows,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    md = [
        "# Start-up: import and command-line help",
        "",
        f"date_utc: {result['date_utc']}, python: {result['env']['python']}, cpu_count: {result['env']['cpu_count']}, "
        f"git_commit: {commit}, load 1/5/15 min before {result['load_before']}, after {result['load_after']}",
        "",
        f"Command: `python benchmarks/bench_startup.py --runs {args.runs}`. Each job a fresh process; wall = the whole process.",
        "",
        "| job | wall median (s) | wall min (s) | CPU median (s) | numba/scipy/pandas imported |",
        "|---|---:|---:|---:|---|",
    ]
    for name, r in rows.items():
        md.append(f"| `{name}` | {r['wall_median_s']} | {r['wall_min_s']} | {r['cpu_median_s']} | "
                  f"{', '.join(r['heavy_modules_imported']) or 'none'} |")
    for suffix, text in (("json", json.dumps(result, indent=2) + "\n"), ("md", "\n".join(md) + "\n")):
        tmp = RESULTS / f".startup.{suffix}.tmp"
        tmp.write_text(text)
        os.replace(tmp, RESULTS / f"startup.{suffix}")
    print("\n".join(md))


if __name__ == "__main__":
    main()
