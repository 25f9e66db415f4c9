#!/usr/bin/env python
"""Cold start: the first run after a fresh install, with an empty numba cache, beside a warm run.

Jobs (each in a fresh subprocess, first with an empty ``NUMBA_CACHE_DIR``, then again with
the cache the first run left):

* ``readme1`` — README quick-start command 1's anonymization: ``ktype anonymize --dataset adult
  --k 10 --output ... --summary ...`` (Mondrian, the bundled Adult data), timings read from the
  summary it writes;
* ``k_concealment`` — ``ktype.algorithms.run("k_concealment", load_adult(n=ROWS), KConcealment(10))``,
  the first k-concealment run (its kernels are the heaviest to compile).

Recorded per run: the registry's ``compile_s`` (numba compilation, reported apart),
``algorithm_s`` and ``verification_s`` (anonymization time = the three together), the whole
process's wall and CPU time (user + sys of the child), and the load average. ``--fresh-install``
first clones the repository's HEAD into a temporary folder and installs it in a new virtual
environment (``python -m venv`` + ``pip install -e .``), exactly as README command 1 does, and
runs the jobs there (so also no in-tree ``__pycache__``); without it the current interpreter
runs them with an empty cache directory, which numba then uses instead of the in-tree cache.

Usage::

    python benchmarks/bench_coldstart.py                    # current install, clean cache (~1 min idle)
    python benchmarks/bench_coldstart.py --fresh-install    # fresh clone + fresh venv + clean cache

Results: ``benchmarks/results/coldstart.{json,md}``. No timing assertions anywhere.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"

KC_SNIPPET = """
import json, sys, time
t0 = time.perf_counter()
import ktype
from ktype.algorithms import run
from ktype.models import KConcealment
ds = ktype.load_adult(n={rows})
t1 = time.perf_counter()
rel = run("k_concealment", ds, KConcealment(10), rng=0)
print(json.dumps({{"timings": rel.provenance["timings"], "import_load_s": round(t1 - t0, 3),
                  "run_s": round(time.perf_counter() - t1, 3)}}))
"""


def _child_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _run(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[subprocess.CompletedProcess, float, float]:
    c0 = _child_cpu()
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=1800)
    return proc, round(time.perf_counter() - t0, 3), round(_child_cpu() - c0, 3)


def job(name: str, python: Path, cache: Path, work: Path, kc_rows: int) -> dict[str, Any]:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    out: dict[str, Any] = {"job": name, "load_before": [round(x, 2) for x in os.getloadavg()]}
    if name == "readme1":
        ktype_exe = python.parent / "ktype"
        csv, summ = work / "adult-k10.csv", work / "adult-k10.json"
        cmd = [str(ktype_exe), "anonymize", "--dataset", "adult", "--k", "10", "--output", str(csv),
               "--summary", str(summ), "--force"]
        proc, wall, cpu = _run(cmd, env, work)
        if proc.returncode != 0:
            out["error"] = proc.stderr.strip().splitlines()[-3:]
            return out
        timings = json.loads(summ.read_text())["provenance"]["timings"]
    else:
        proc, wall, cpu = _run([str(python), "-c", KC_SNIPPET.format(rows=kc_rows)], env, work)
        if proc.returncode != 0:
            out["error"] = proc.stderr.strip().splitlines()[-3:]
            return out
        res = json.loads([ln for ln in proc.stdout.splitlines() if ln.startswith("{")][-1])
        timings = res["timings"]
        out["rows"] = kc_rows
    out.update({k: timings.get(k) for k in ("compile_s", "algorithm_s", "verification_s")})
    out["anonymization_s"] = round(sum(float(timings.get(k) or 0.0) for k in ("compile_s", "algorithm_s", "verification_s")), 3)
    out["process_wall_s"] = wall
    out["process_cpu_s"] = cpu
    out["load_after"] = [round(x, 2) for x in os.getloadavg()]
    return out


def fresh_install(tmp: Path) -> Path:
    """Clone HEAD into ``tmp/ktype`` and install it in a new venv, as README command 1 does."""
    repo = tmp / "ktype"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(repo)], check=True, timeout=600)
    subprocess.run([sys.executable, "-m", "venv", str(repo / ".venv")], check=True, timeout=600)
    py = repo / ".venv" / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "-e", str(repo)], check=True, timeout=1800)
    return py


def to_markdown(res: dict[str, Any]) -> str:
    lines = ["# Cold start: first run with an empty numba cache vs. a warm run", "",
             ", ".join(f"{k}: {v}" for k, v in res["environment"].items()), "",
             f"Command: `{res['command']}`", "",
             f"Install: {res['install']}. Anonymization time = compile + algorithm + verification "
             "(the registry's timings); process = the whole command (imports, data, measures, writing).", "",
             "| job | run | compile (s) | algorithm (s) | verification (s) | anonymization (s) | process wall (s) | process CPU (s) | load 1/5/15 min |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in res["runs"]:
        if "error" in r:
            lines.append(f"| {r['job']} | {r['run']} | | | | | | | error: {' '.join(r['error'])} |")
            continue
        label = r["job"] + (f" (Adult {r['rows']} rows, k=10)" if "rows" in r else " (Adult, k=10, mondrian)")
        lines.append(f"| {label} | {r['run']} | {r['compile_s']} | {r['algorithm_s']} | {r['verification_s']} | "
                     f"{r['anonymization_s']} | {r['process_wall_s']} | {r['process_cpu_s']} | "
                     f"{'/'.join(str(x) for x in r['load_before'])} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--fresh-install", action="store_true", help="clone HEAD and install it into a new venv first")
    p.add_argument("--jobs", nargs="+", default=["readme1", "k_concealment"], choices=["readme1", "k_concealment"])
    p.add_argument("--kc-rows", type=int, default=2000, help="Adult rows for the k_concealment job (default 2000)")
    p.add_argument("--out", type=Path, default=RESULTS)
    a = p.parse_args(argv)
    import numba
    import numpy

    res: dict[str, Any] = {
        "command": " ".join(["python", "benchmarks/bench_coldstart.py", *(argv if argv is not None else sys.argv[1:])]),
        "environment": {"date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "python": platform.python_version(),
                        "cpu_count": os.cpu_count(), "numpy": numpy.__version__, "numba": numba.__version__,
                        "git_commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                                     text=True).stdout.strip()},
        "runs": [],
    }
    with tempfile.TemporaryDirectory(prefix="ktype-coldstart-") as tmp_s:
        tmp = Path(tmp_s)
        if a.fresh_install:
            t = time.perf_counter()
            python = fresh_install(tmp)
            res["install"] = f"fresh clone of HEAD + new venv + pip install -e . ({time.perf_counter() - t:.0f} s)"
        else:
            python = Path(sys.executable)
            res["install"] = f"current interpreter {sys.executable} with an empty NUMBA_CACHE_DIR"
        for name in a.jobs:
            cache = tmp / f"numba-cache-{name}"  # empty: nothing compiled yet
            for run in ("first (empty cache)", "second (warm cache)"):
                r = job(name, python, cache, tmp, a.kc_rows)
                r["run"] = run
                print(json.dumps(r), flush=True)
                res["runs"].append(r)
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "coldstart.json").write_text(json.dumps(res, indent=2) + "\n")
    (a.out / "coldstart.md").write_text(to_markdown(res))
    print(f"wrote {a.out / 'coldstart.json'} and {a.out / 'coldstart.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
