#!/usr/bin/env python
"""End to end: what a user waits for, not only the search.

Three views of the same jobs on Adult (30,162 rows: the bundled Adult without its rows with
missing values; nine ARX hierarchies) and FARS (100,937 rows, eight hierarchies,
``data/fars``):

* **cold CLI** — the whole ``ktype anonymize INPUT.csv -H col=file.csv ... --output out.csv``
  process as a user types it (imports, reading, hierarchies, search, verification, writing),
  wall and CPU time of the child; the numba cache is warm (a user's second run; the first run
  after installing is ``bench_coldstart.py``);
* **warm API** — ``ktype.algorithms.run(name, dataset, models, ...)`` in a process that has
  already run it once: the registry's own split (algorithm, verification) and the whole call;
* **parts** — import, read (``Dataset.from_csv`` with the hierarchies), search + verification
  (the warm API call), write (``Release.save``), each timed in one process.

Jobs: ``flash`` k = 5 with 0 % and 4 % suppression (measure: loss), ``mondrian`` k = 5,
``iterative_local`` k = 5, ``k_concealment`` k = 10 (randomized as the CLI does by default,
seeded here; on Adult and on ``adult_uci``: UCI Adult's 45,222 complete rows from
``data/adult_uci`` with the eight ARX quasi-identifiers and the hierarchies of
``experiments/kconcealment/kc_data.py``), ``freeform_sortgreedy`` k = 5 on a
10,000-row sample, ``hybrid`` ℓ = 2 on occupation, and ``ktype risk`` (population
uniqueness with sampling fraction 0.01).

Usage::

    python benchmarks/bench_end_to_end.py              # 5 runs per cold job, 5 warm calls
    python benchmarks/bench_end_to_end.py --runs 9 --only flash

Results: ``benchmarks/results/end_to_end.{json,md}`` with the load average beside every
figure. No timing assertions anywhere.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
ADULT_DIR = ROOT / "src" / "ktype" / "data" / "_bundled" / "adult"
FARS_DIR = ROOT / "data" / "fars"
ADULT_QI = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation",
            "salary-class"]
FARS_QI = ["iage", "irace", "ideathmon", "ideathday", "isex", "ihispanic", "istatenum", "iinjury"]


def _load() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def _prepare(tmp: Path) -> dict[str, dict[str, Any]]:
    """Plain CSV inputs (what a user has) and their hierarchy files."""
    out: dict[str, dict[str, Any]] = {}
    adult = tmp / "adult.csv"
    adult.write_bytes(gzip.decompress((ADULT_DIR / "adult.csv.gz").read_bytes()))
    out["adult"] = {"csv": adult, "qi": ADULT_QI, "sensitive": [],
                    "hier": {c: ADULT_DIR / f"adult_hierarchy_{c}.csv" for c in ADULT_QI}}
    fars = tmp / "fars.csv"
    fars.write_bytes(gzip.decompress((FARS_DIR / "fars_int.csv.gz").read_bytes()))
    out["fars"] = {"csv": fars, "qi": FARS_QI, "sensitive": [],
                   "hier": {c: FARS_DIR / f"fars_int_hierarchy_{c}.csv" for c in FARS_QI}}
    # issue #25's k-concealment table: UCI Adult, 45,222 complete rows (data/adult_uci), the
    # eight ARX quasi-identifiers with the experiment's hierarchies, written as a user has them
    sys.path.insert(0, str(ROOT / "experiments" / "kconcealment"))
    import kc_data

    uci = kc_data.adult()
    q8 = [c for c in ADULT_QI if c != "salary-class"]
    csv = tmp / "adult_uci.csv"
    uci.data[q8].to_csv(csv, sep=";", index=False)
    hier = {}
    for c in q8:
        hier[c] = tmp / f"adult_uci_hierarchy_{c}.csv"
        uci.hierarchies[uci.quasi_identifiers.index(c)].to_arx_csv(hier[c])
    out["adult_uci"] = {"csv": csv, "qi": q8, "sensitive": [], "hier": hier}
    return out


#: job name -> (datasets, algorithm, cli flags, API models/options)
JOBS: dict[str, dict[str, Any]] = {
    "flash 0%": {"data": ["adult", "fars"], "algorithm": "flash", "cli": ["--k", "5", "-o", "measure=loss_metric"],
                 "k": 5, "options": {"measure": "loss_metric", "max_suppression": 0.0}},
    "flash 4%": {"data": ["adult", "fars"], "algorithm": "flash",
                 "cli": ["--k", "5", "-o", "measure=loss_metric", "-o", "max_suppression=0.04"],
                 "k": 5, "options": {"measure": "loss_metric", "max_suppression": 0.04}},
    "mondrian": {"data": ["adult", "fars"], "algorithm": "mondrian", "cli": ["--k", "5"], "k": 5, "options": {}},
    "iterative_local": {"data": ["adult"], "algorithm": "iterative_local", "cli": ["--k", "5"], "k": 5, "options": {}},
    "k_concealment": {"data": ["adult", "adult_uci"], "algorithm": "k_concealment", "cli": ["--k", "10", "--rng", "1"],
                      "k": 10, "options": {}, "rng": 1, "model": "k-concealment"},
    "freeform_sortgreedy": {"data": ["adult"], "algorithm": "freeform_sortgreedy",
                            "cli": ["--k", "5", "--rng", "1", "-o", "partition_size=150"],
                            "k": 5, "options": {"partition_size": 150}, "rng": 1, "rows": 10_000,
                            "model": "freeform-k-anonymity"},
    # occupation (14 values, the most frequent 13.4 %) as the sensitive attribute: salary-class (75 % '<=50K')
    # admits no 2-diverse release, so a job on it timed the refusal
    "hybrid": {"data": ["adult"], "algorithm": "hybrid", "cli": ["--l", "2", "--rng", "1"], "l": 2, "options": {},
               "rng": 1, "sensitive": "occupation"},
}


def _roles_cli(d: dict[str, Any], job: dict[str, Any]) -> list[str]:
    sens = job.get("sensitive")
    qi = [c for c in d["qi"] if c != sens]
    flags = ["--qi", ",".join(qi)]
    if sens:
        flags += ["--sensitive", sens]
    for c in qi:
        flags += ["-H", f"{c}={d['hier'][c]}"]
    return flags


def _child(argv: list[str]) -> tuple[float, float, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    # as an installed package runs: with its bytecode cached (a PYTHONDONTWRITEBYTECODE=1 set in the
    # benchmark's own environment would make every cold run compile ktype's modules from source)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    proc = subprocess.run(argv, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        print(proc.stdout[-2000:], proc.stderr[-2000:], file=sys.stderr)
    return wall, cpu, proc.returncode


def _ktype_exe() -> str:
    exe = Path(sys.executable).with_name("ktype")
    return str(exe) if exe.exists() else (shutil.which("ktype") or "ktype")


def cold_cli(name: str, data: str, d: dict[str, Any], job: dict[str, Any], tmp: Path, runs: int) -> dict[str, Any]:
    src = d["csv"]
    if job.get("rows"):
        import pandas as pd

        src = tmp / f"{data}_{job['rows']}.csv"
        if not src.exists():
            pd.read_csv(d["csv"], sep=";", dtype=str, keep_default_na=False).head(job["rows"]).to_csv(src, sep=";", index=False)
    out = tmp / f"out_{name.replace(' ', '_').replace('%', 'pct')}_{data}.csv"
    argv = [_ktype_exe(), "anonymize", str(src), *_roles_cli(d, job), "--algorithm", job["algorithm"], *job["cli"],
            "--output", str(out), "--force"]
    _child(argv)  # warm the numba cache and the OS file cache (not recorded)
    walls, cpus, loads, codes = [], [], [], []
    for _ in range(runs):
        loads.append(_load())
        w, c, rc = _child(argv)
        walls.append(w)
        cpus.append(c)
        codes.append(rc)
    return {"job": name, "data": data, "view": "cold CLI", "argv": " ".join(argv[1:3]) + " ...",
            "median_wall_s": round(statistics.median(walls), 3), "min_wall_s": round(min(walls), 3),
            "median_cpu_s": round(statistics.median(cpus), 3), "exit_codes": sorted(set(codes)), "load": loads[0]}


def cold_risk(d: dict[str, Any], runs: int) -> dict[str, Any]:
    argv = [_ktype_exe(), "risk", str(d["csv"]), "--qi", ",".join(d["qi"][:-1]), "--insensitive", d["qi"][-1],
            "--sampling-fraction", "0.01", "--json"]
    _child(argv)
    walls, cpus, loads, codes = [], [], [], []
    for _ in range(runs):
        loads.append(_load())
        w, c, rc = _child(argv)
        walls.append(w)
        cpus.append(c)
        codes.append(rc)
    return {"job": "risk (sampling fraction 0.01)", "data": "adult", "view": "cold CLI",
            "median_wall_s": round(statistics.median(walls), 3), "min_wall_s": round(min(walls), 3),
            "median_cpu_s": round(statistics.median(cpus), 3), "exit_codes": sorted(set(codes)), "load": loads[0]}


def parts(name: str, data: str, d: dict[str, Any], job: dict[str, Any], tmp: Path, runs: int) -> dict[str, Any]:
    """import / read / warm API call (algorithm + verification) / write, in this process."""
    t0 = time.perf_counter()
    import ktype  # noqa: F401
    from ktype.algorithms import run
    from ktype.api import model_from_name
    from ktype.data import Dataset, Hierarchy
    from ktype.models import DistinctLDiversity

    t_import = time.perf_counter() - t0
    sens = job.get("sensitive")
    qi = [c for c in d["qi"] if c != sens]
    t0 = time.perf_counter()
    hier = {c: Hierarchy.from_arx_csv(d["hier"][c], name=c) for c in qi}
    ds = Dataset.from_csv(d["csv"], quasi_identifiers=qi, sensitive=[sens] if sens else [], hierarchies=hier)
    t_read = time.perf_counter() - t0
    if job.get("rows"):
        ds = ds.subset(range(job["rows"]))
    if "l" in job:  # the algorithm's own ℓ-diversity variant (transparent for Hybrid), as the CLI picks it
        from ktype.algorithms import get_algorithm
        from ktype.models import TransparentLDiversity

        own = get_algorithm(job["algorithm"]).models[0]
        models = [TransparentLDiversity(job["l"], sensitive=sens) if own is TransparentLDiversity
                  else DistinctLDiversity(job["l"], sensitive=sens)]
    else:
        models = [model_from_name(job.get("model", "k-anonymity"), k=job["k"])]
    kw: dict[str, Any] = dict(job["options"])
    if "rng" in job:
        kw["rng"] = job["rng"]
    rel = run(job["algorithm"], ds, models, **kw)  # first call: compile or load kernels (not recorded)
    calls, algo, verify, loads = [], [], [], []
    for _ in range(runs):
        loads.append(_load())
        t0 = time.perf_counter()
        rel = run(job["algorithm"], ds, models, **kw)
        calls.append(time.perf_counter() - t0)
        timings = rel.provenance.get("timings", {})
        algo.append(float(timings.get("algorithm_s", float("nan"))))
        verify.append(float(timings.get("verification_s", float("nan"))))
    out = tmp / f"parts_{name.replace(' ', '_').replace('%', 'pct')}_{data}.csv"
    t0 = time.perf_counter()
    rel.save(out)
    t_write = time.perf_counter() - t0
    return {"job": name, "data": data, "view": "warm API + parts", "rows": ds.n,
            "import_s": round(t_import, 3), "read_s": round(t_read, 3),
            "call_median_s": round(statistics.median(calls), 4),
            "algorithm_median_s": round(statistics.median(algo), 4),
            "verification_median_s": round(statistics.median(verify), 4),
            "overhead_median_s": round(statistics.median(c - a - v for c, a, v in zip(calls, algo, verify)), 4),
            "write_s": round(t_write, 3), "load": loads[0]}


def _table(rows: list[dict[str, Any]], cols: list[str]) -> str:
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        lines.append("| " + " | ".join(str(r.get(c, "")) for c in cols) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", nargs="*", help="job names to run (default: all)")
    ap.add_argument("--no-cold", action="store_true", help="skip the cold CLI processes")
    args = ap.parse_args(argv)
    RESULTS.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        data = _prepare(tmp)
        for name, job in JOBS.items():
            if args.only and not any(o in name for o in args.only):
                continue
            for dname in job["data"]:
                views = ([] if args.no_cold else [cold_cli]) + [parts]
                for view in views:
                    try:
                        rows.append(view(name, dname, data[dname], job, tmp, args.runs))
                    except Exception as e:  # noqa: BLE001 - a failing job is reported, the others still run
                        rows.append({"job": name, "data": dname, "view": view.__name__, "error": f"{type(e).__name__}: {e}"})
                    print(json.dumps(rows[-1]), flush=True)
        if not args.only and not args.no_cold:
            rows.append(cold_risk(data["adult"], args.runs))
            print(json.dumps(rows[-1]), flush=True)
    meta = {"date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "python": platform.python_version(),
            "cpu_count": os.cpu_count(), "runs": args.runs,
            "git_commit": subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                                         capture_output=True, text=True).stdout.strip()}
    (RESULTS / "end_to_end.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    cold = [r for r in rows if r["view"] == "cold CLI"]
    warm = [r for r in rows if r["view"] != "cold CLI"]
    md = ["# End to end: the command a user runs, the API call, and the parts", "",
          ", ".join(f"{k}: {v}" for k, v in meta.items()), "",
          "Command: `python benchmarks/bench_end_to_end.py` (numba cache warm; load average 1/5/15 min beside each row).",
          "", "## Cold CLI process (whole `ktype anonymize` / `ktype risk`)", "",
          _table(cold, ["job", "data", "median_wall_s", "min_wall_s", "median_cpu_s", "exit_codes", "load"]), "",
          "## Warm API call and its parts", "",
          "`call` = `ktype.algorithms.run(...)` whole; `algorithm` and `verification` are the registry's own timings; "
          "`overhead` = call − algorithm − verification (release building, parameter checks). `import`, `read` "
          "(Dataset.from_csv with the ARX hierarchies) and `write` (Release.save) are timed once.", "",
          _table(warm, ["job", "data", "rows", "import_s", "read_s", "call_median_s", "algorithm_median_s",
                        "verification_median_s", "overhead_median_s", "write_s", "load"]), ""]
    tmp_md = RESULTS / "end_to_end.md.tmp"
    tmp_md.write_text("\n".join(md))
    tmp_md.replace(RESULTS / "end_to_end.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
