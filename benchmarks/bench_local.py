"""Benchmark of the local-recoding algorithms on UCI Adult (45,222 rows, 14 QIs).

Goal (issue 4): basic k-concealment (Alg 2 → 3 → 5) on Adult 45,222 at k = 10 in under
2 minutes, at k = 100 in under 10 minutes. Each phase is timed separately; the whole
pipeline is also run once through ``ktype.algorithms.run`` (which adds the independent
checker's verification time).

Usage::

    python benchmarks/bench_local.py                   # k = 10 and 100 on all 45,222 rows
    python benchmarks/bench_local.py --n 5000 --ks 10  # smaller
    python benchmarks/bench_local.py --baselines       # also agglomerative / forest

Results are appended to ``benchmarks/results/local.csv`` and summarized in
``benchmarks/results/local.md``.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "experiments" / "kconcealment"))

from kc_data import adult  # noqa: E402

from ktype.algorithms import run  # noqa: E402
from ktype.algorithms.local import (  # noqa: E402
    Problem,
    agglomerative_clusters,
    cluster_boxes,
    forest_clusters,
    k1_expansion,
    k_conceal,
    one_k_completion,
)
from ktype.models.ktype_models import KConcealment  # noqa: E402


def bench(n: int | None, k: int, measure: str, baselines: bool, verify: bool) -> list[dict]:
    ds = adult(n=n)
    p = Problem.from_dataset(ds, measure)
    k1_expansion(Problem.from_dataset(adult(n=50), measure), 2)  # JIT warm-up (cached kernels)
    rows = []
    started, load = time.strftime("%Y-%m-%d %H:%M"), round(os.getloadavg()[0], 2)
    t0 = time.perf_counter()
    LO, HI = k1_expansion(p, k)
    t1 = time.perf_counter()
    print(f"n={ds.n} k={k} alg2 {t1 - t0:.1f}s", flush=True)
    LO, HI = one_k_completion(p, LO, HI, k)
    t2 = time.perf_counter()
    print(f"n={ds.n} k={k} alg3 {t2 - t1:.1f}s", flush=True)
    LO, HI, st = k_conceal(p, LO, HI, k, return_state=True)
    t3 = time.perf_counter()
    print(f"n={ds.n} k={k} alg5 {t3 - t2:.1f}s ({st.upgrades} upgrades)", flush=True)
    base = {
        "date": started,
        "load": load,
        "n": ds.n,
        "r": ds.r,
        "k": k,
        "measure": measure,
        "machine": platform.processor() or platform.machine(),
    }
    rows.append({**base, "what": "alg2", "seconds": round(t1 - t0, 2), "loss": None})
    rows.append({**base, "what": "alg3", "seconds": round(t2 - t1, 2), "loss": None})
    rows.append(
        {
            **base,
            "what": f"alg5 ({st.upgrades} upgrades, {st.scc_updates} SCC updates)",
            "seconds": round(t3 - t2, 2),
            "loss": None,
        }
    )
    rows.append({**base, "what": "k_concealment (2+3+5)", "seconds": round(t3 - t0, 2), "loss": p.table_cost(LO, HI)})
    print(rows[-1], flush=True)
    if verify:
        t = time.perf_counter()
        rel = run("k_concealment", ds, KConcealment(k), measure=measure)
        tm = rel.provenance["timings"]
        rows.append(
            {
                **base,
                "what": "run('k_concealment') incl. checker",
                "seconds": round(time.perf_counter() - t, 2),
                "loss": p.table_cost(rel.lo, rel.hi),
                "checker_s": tm.get("verification_s"),
            }
        )
        print(rows[-1], flush=True)
    if baselines:
        for name, fn in (("forest", forest_clusters), ("agglomerative", agglomerative_clusters)):
            t = time.perf_counter()
            lab = fn(p, k)
            sec = time.perf_counter() - t
            rows.append({**base, "what": name, "seconds": round(sec, 2), "loss": p.table_cost(*cluster_boxes(p, lab))})
            print(rows[-1], flush=True)
    return rows


def write(out: Path, rows: list[dict]) -> None:
    """Append rows to ``local.csv`` and regenerate ``local.md`` from all rows."""
    df = pd.DataFrame(rows)
    csv = out / "local.csv"
    previous = pd.read_csv(csv) if csv.exists() else pd.DataFrame()
    allrows = pd.concat([previous, df], ignore_index=True)
    tmp = csv.with_suffix(".csv.tmp")
    allrows.to_csv(tmp, index=False)
    os.replace(tmp, csv)  # atomic: an interrupted run leaves the previous results
    lines = [
        "# bench_local: k-concealment and baselines on UCI Adult",
        "",
        "Command: `python benchmarks/bench_local.py [--n N] [--ks K ...] [--baselines] [--verify]`.",
        "Goal: basic k-concealment on Adult 45,222 < 120 s at k=10, < 600 s at k=100 (2-core machine, shared).",
        "",
        "Newest runs first. `load` is the 1-minute load average recorded with the run (2 cores:",
        "a load above 1 means another process shared the machine, so times are pessimistic).",
        "",
        "| date | load | n | k | measure | what | seconds | loss |",
        "|---|---|---|---|---|---|---|---|",
    ]
    if "date" not in allrows:
        allrows["date"] = None
        allrows["load"] = None
    allrows["date"] = allrows["date"].fillna("2026-11-25 (before the speed-ups)")
    allrows = allrows.iloc[::-1].sort_values("date", ascending=False, kind="stable")
    for _, r in allrows.iterrows():
        loss = "" if pd.isna(r["loss"]) else f"{r['loss']:.4f}"
        load = "" if pd.isna(r["load"]) else r["load"]
        lines.append(
            f"| {r['date']} | {load} | {r['n']} | {r['k']} | {r['measure']} | {r['what']} | {r['seconds']} | {loss} |"
        )
    tmp = out / "local.md.tmp"
    tmp.write_text("\n".join(lines) + "\n")
    os.replace(tmp, out / "local.md")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=None, help="rows (default: all 45,222)")
    ap.add_argument("--ks", nargs="*", type=int, default=[10, 100])
    ap.add_argument("--measure", default="loss_metric", choices=["loss_metric", "entropy"])
    ap.add_argument("--baselines", action="store_true")
    ap.add_argument("--verify", action="store_true", help="also run through the registry (checker time)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for k in args.ks:  # results are written after every k, so a long run keeps what it measured
        write(args.out, bench(args.n, k, args.measure, args.baselines, args.verify))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
