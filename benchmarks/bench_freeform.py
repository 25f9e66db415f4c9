"""Benchmark of freeform generalization (Doka et al. 2015) on synthetic CENSUS data.

Goals (issue 10), on this 2-core machine:

* ``sortgreedy_1m`` — SortGreedy, partitions of 150, 1,000,000 CENSUS-schema rows, k = 10:
  under 3 minutes including the randomized assignment, peak memory under 4 GiB;
* ``greedy_64k`` — Greedy without partitions on 64,000 rows, k = 15: under 10 minutes
  (exact Greedy; its scan is pruned by lower bounds on the two heaviest categorical
  attributes, with the same result as the full scan);
* ``mip_14`` — the MIP optimum on 14 tuples, k = 4: under 5 seconds (10 random tables);
* ``hungarian_p100_1t`` / ``hungarian_p100_2t`` — Hungarian with partitions of 100 on 200,000
  rows, k = 10, its blocks in 1 and in 2 threads (issue 10: "in parallel where it pays");
  the table reports the speedup (identical graphs: ``test_parallel_hungarian_equals_sequential``).

Usage::

    python benchmarks/bench_freeform.py            # all three, full size (several minutes)
    python benchmarks/bench_freeform.py --quick    # 100k / 8k rows, 3 MIP tables
    python benchmarks/bench_freeform.py --only mip_14

Each configuration runs in a fresh subprocess so that its peak RSS is its own. Times come
from the release provenance: ``algorithm_s`` (graph + randomized assignment + release) and
``verification_s`` (the registry's independent checker). The 1-minute load average is
recorded before and after each run: the machine is shared, so numbers taken under load are
pessimistic. Results: ``benchmarks/results/freeform.json`` and ``freeform.md`` (atomic).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results"

CONFIGS = {
    "sortgreedy_100k": {"algorithm": "freeform_sortgreedy", "n": 100_000, "k": 10, "options": {"partition_size": 150}, "goal_s": None, "extrapolate": ["sortgreedy_1m", 10]},
    "greedy_8k": {"algorithm": "freeform_greedy", "n": 8_000, "k": 15, "options": {}, "goal_s": None, "extrapolate": ["greedy_64k", 64]},
    "sortgreedy_1m": {"algorithm": "freeform_sortgreedy", "n": 1_000_000, "k": 10, "options": {"partition_size": 150}, "goal_s": 180},
    "greedy_64k": {"algorithm": "freeform_greedy", "n": 64_000, "k": 15, "options": {}, "goal_s": 600},
    "mip_14": {"algorithm": "freeform_mip", "n": 14, "k": 4, "options": {}, "goal_s": 5, "tables": 10},
    "hungarian_p100_1t": {"algorithm": "freeform_hungarian", "n": 200_000, "k": 10, "options": {"partition_size": 100}, "goal_s": None, "threads": 1},
    "hungarian_p100_2t": {"algorithm": "freeform_hungarian", "n": 200_000, "k": 10, "options": {"partition_size": 100}, "goal_s": None, "threads": 2},
}
QUICK = {
    "sortgreedy_1m": {"n": 100_000},
    "greedy_64k": {"n": 8_000},
    "mip_14": {"tables": 3},
    "hungarian_p100_1t": {"n": 20_000},
    "hungarian_p100_2t": {"n": 20_000},
}


def run_one(cfg: dict) -> dict:
    """Run one configuration in this process and return its measurements."""
    from ktype.algorithms import get_algorithm
    from ktype.datasets.synthetic import census_dataset
    from ktype.measures import gcp
    from ktype.models.freeform import FreeformKAnonymity

    if "threads" in cfg:  # the blocks' thread count (numba prange / Hungarian's thread pool)
        import numba

        numba.set_num_threads(min(int(cfg["threads"]), numba.config.NUMBA_NUM_THREADS))
    algo = get_algorithm(cfg["algorithm"])
    warm = census_dataset(12, rng=0)  # JIT warm-up / cache load
    algo.func(warm, FreeformKAnonymity(3), rng=0)
    out: dict = {"load_before": round(os.getloadavg()[0], 2), "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}
    runs = []
    for t in range(int(cfg.get("tables", 1))):
        t0 = time.perf_counter()
        ds = census_dataset(cfg["n"], rng=1 + t)
        t1 = time.perf_counter()
        ru0 = resource.getrusage(resource.RUSAGE_SELF)
        rel = algo.func(ds, FreeformKAnonymity(cfg["k"]), rng=100 + t, **cfg["options"])
        ru1 = resource.getrusage(resource.RUSAGE_SELF)
        t2 = time.perf_counter()
        tim = rel.provenance["timings"]
        runs.append(
            {
                "data_s": round(t1 - t0, 3),
                "run_s": round(t2 - t1, 3),
                "cpu_s": round(ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime, 3),
                "algorithm_s": tim["algorithm_s"],
                "verification_s": tim["verification_s"],
                "gcp": gcp(rel),
            }
        )
    out["runs"] = runs
    out["run_s_max"] = max(r["run_s"] for r in runs)
    out["run_s_mean"] = sum(r["run_s"] for r in runs) / len(runs)
    out["gcp_mean"] = sum(r["gcp"] for r in runs) / len(runs)
    out["cpu_s_max"] = max(r["cpu_s"] for r in runs)
    out["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    out["load_after"] = round(os.getloadavg()[0], 2)
    return out


def _atomic(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def _markdown(results: dict) -> str:
    lines = [
        "# Freeform generalization benchmark (`benchmarks/bench_freeform.py`)",
        "",
        f"Machine: {results['env']['cpus']} CPUs (shared with other jobs), Python {results['env']['python']}. "
        "Load = 1-minute load average before / after the run; with load far above the CPU count the "
        "times are pessimistic.",
        "",
        "| config | algorithm | rows | k | options | run (s) | CPU (s) | algorithm (s) | verification (s) | GCP | peak RSS (MiB) | goal | load |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in results["configs"].items():
        c = r["config"]
        if "error" in r:
            lines.append(f"| {name} | {c['algorithm']} | {c['n']:,} | {c['k']} | {c['options']} | error: {r['error']} | | | | | | | |")
            continue
        run = r["runs"][0] if len(r["runs"]) == 1 else None
        alg = f"{run['algorithm_s']:.2f}" if run else f"mean {r['run_s_mean']:.2f}"
        ver = f"{run['verification_s']:.2f}" if run else ""
        tables = f" ({len(r['runs'])} tables, max)" if len(r["runs"]) > 1 else ""
        goal = f"< {c['goal_s']} s" if c.get("goal_s") else "-"
        lines.append(
            f"| {name} | {c['algorithm']} | {c['n']:,} | {c['k']} | {c['options']} | {r['run_s_max']:.2f}{tables} | {r.get('cpu_s_max', float('nan')):.1f} | {alg} | {ver} | "
            f"{r['gcp_mean']:.4f} | {r['peak_rss_mib']:.0f} | {goal} | {r['load_before']} / {r['load_after']} |"
        )
    one, two = results["configs"].get("hungarian_p100_1t", {}), results["configs"].get("hungarian_p100_2t", {})
    if "run_s_max" in one and "run_s_max" in two:
        lines += [
            "",
            f"Hungarian's partitions in parallel (P = 100, {one['config']['n']:,} rows, k = {one['config']['k']}): 1 thread "
            f"{one['run_s_max']:.2f} s wall / {one['cpu_s_max']:.1f} s CPU, 2 threads {two['run_s_max']:.2f} s wall / "
            f"{two['cpu_s_max']:.1f} s CPU: speedup {one['run_s_max'] / two['run_s_max']:.2f}x (load {one['load_before']} / "
            f"{two['load_before']}; on a loaded machine the second core is not free, so the speedup is understated).",
        ]
    ext = [(n, r) for n, r in results["configs"].items() if "extrapolate" in r.get("config", {}) and "cpu_s_max" in r]
    if ext:
        busy = max(r.get("load_before", 0) for _, r in ext) > 2 * (os.cpu_count() or 1)
        why = ("the machine was far oversubscribed, so wall time measures the load, not the code" if busy
               else "a check of the full-size rows above")
        lines += ["", f"Extrapolations from CPU time ({why}): SortGreedy with partitions is linear in n (independent "
                  "blocks), Greedy is O(n²) per iteration.", ""]
        for name, r in ext:
            target, factor = r["config"]["extrapolate"]
            lines.append(
                f"* {target}: {name} used {r['cpu_s_max']:.1f} CPU s → × {factor} ≈ {r['cpu_s_max'] * factor:.0f} CPU s "
                f"(≈ {r['cpu_s_max'] * factor / 60:.1f} CPU min; wall time on an idle machine is at most this, less where numba runs blocks in parallel)."
            )
    lines.append("")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", nargs="*", choices=sorted(CONFIGS))
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--timeout", type=float, default=3600)
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args()
    if a.one:
        print(json.dumps(run_one(json.loads(a.one))))
        return
    names = a.only or list(CONFIGS)
    path = a.out / ("freeform-quick.json" if a.quick else "freeform.json")
    results = json.loads(path.read_text()) if path.exists() else {"configs": {}}
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    results["env"] = {"cpus": os.cpu_count(), "python": platform.python_version(), "commit": commit}
    for name in names:
        cfg = {**CONFIGS[name], **(QUICK.get(name, {}) if a.quick else {})}
        print(f"{name}: {cfg}", flush=True)
        try:
            proc = subprocess.run(
                [sys.executable, __file__, "--one", json.dumps(cfg)], capture_output=True, text=True, timeout=a.timeout, check=True
            )
            res = json.loads(proc.stdout.strip().splitlines()[-1])
        except subprocess.TimeoutExpired:
            res = {"error": f"timeout after {a.timeout:.0f} s"}
        except subprocess.CalledProcessError as e:
            res = {"error": e.stderr.strip().splitlines()[-1] if e.stderr.strip() else "failed"}
        res["config"] = cfg
        results["configs"][name] = res
        print(json.dumps({k: v for k, v in res.items() if k != "runs"}), flush=True)
        a.out.mkdir(parents=True, exist_ok=True)
        _atomic(path, json.dumps(results, indent=2))
        _atomic(path.with_suffix(".md"), _markdown(results))


if __name__ == "__main__":
    main()
