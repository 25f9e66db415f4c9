#!/usr/bin/env python
"""Utility of ktype's k-anonymous algorithms next to ARX's local recoding (issue #15).

Adult (bundled: 30,162 rows, the 8 QIs without salary-class, ARX hierarchies) and FARS
(``data/fars``: 100,937 rows, 8 QIs, ARX hierarchies), k ∈ {5, 10, 50, 100}.
For every k-anonymous algorithm: Iyengar's loss metric LM **recomputed from the released
labels** (``release.to_pandas()``, suppressed records left out, read back with
:func:`ktype.api.parse_release`, then :func:`ktype.measures.loss_metric`: a suppressed record
costs 1 per cell), the suppressed count, the smallest class (the independent
``KAnonymity(k).check`` of the read-back table), rows released (suppressed ones included:
nobody is dropped silently), wall and CPU time, and the 1-minute load average before and after
(the machine is shared: timings under load are pessimistic).

The ``arx_lm`` column is ARX 3.9.2's local recoding as measured in issue #15 on the same
data (global step with 100 % suppression limit, loss metric with gen./sup. weighting 0, then
``optimizeIterativeFast(1/n)``): Adult 0.0497 / 0.0731 / 0.1439 at k = 5 / 10 / 50
(3 / 6 / 38 suppressed, 17-20 s). No ARX numbers exist here for k = 100 or for FARS.

Heavy baselines (``--heavy``: agglomerative and forest, O(n²)) run on Adult only.
Rows are merged into the results by (dataset, algorithm, k), so runs can be split.

Usage::

    python benchmarks/bench_kanon_utility.py                         # fast algorithms, both datasets
    python benchmarks/bench_kanon_utility.py --data adult --heavy --ks 10
    python benchmarks/bench_kanon_utility.py --data fars --ks 10 --algorithms iterative_local mondrian

Results: ``benchmarks/results/kanon_utility.{csv,json,md}``.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
ARX = {("adult", 5): (0.0497, 3), ("adult", 10): (0.0731, 6), ("adult", 50): (0.1439, 38)}

#: label -> (registered name, options)
ALGORITHMS: dict[str, tuple[str, dict[str, Any]]] = {
    "iterative_local": ("iterative_local", {}),
    "iterative_local(refine=False)": ("iterative_local", {"refine": False}),
    "mondrian": ("mondrian", {}),
    "mondrian(relaxed)": ("mondrian", {"mode": "relaxed"}),
    "flash(loss_metric, sup<=100%)": ("flash", {"measure": "loss_metric", "max_suppression": 1.0}),
    "datafly(sup<=5%)": ("datafly", {"max_suppression": 0.05}),
}
HEAVY = {
    "agglomerative": ("agglomerative", {}),
    "forest": ("forest", {}),
}
FIELDS = [
    "dataset", "n", "k", "algorithm", "lm", "arx_lm", "below_arx", "suppressed", "arx_suppressed",
    "smallest_class", "classes", "rows_released", "k_anonymous", "time_s", "cpu_s", "load_before", "load_after", "date",
]


def load(name: str):
    from ktype.data.bundled import load_adult
    from ktype.data.dataset import Dataset
    from ktype.testing import repo_data

    if name == "adult":
        return load_adult()
    df = repo_data.read_csv("fars", "fars_int.csv", sep=";", dtype=str)
    qis = list(df.columns)
    hier = repo_data.arx_hierarchies("fars", "fars_int", qis)
    return Dataset(df, quasi_identifiers=qis, hierarchies=hier, name="fars")


def measure_one(ds, dname: str, label: str, name: str, opts: dict, k: int) -> dict[str, Any]:
    from ktype.algorithms import run
    from ktype.api import parse_release
    from ktype.measures import loss_metric
    from ktype.models.kanonymity import KAnonymity

    load_before = os.getloadavg()[0]
    t0, c0 = time.perf_counter(), time.process_time()
    rel = run(name, ds, KAnonymity(k), **opts)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    load_after = os.getloadavg()[0]
    published = rel.to_pandas()  # as published: suppressed records are left out (an all-* row would be a row)
    back = parse_release(ds, published, recoding="local" if rel.recoding == "local" else "multidimensional")
    lm = loss_metric(back)
    check = KAnonymity(k).check(back)
    if abs(lm - loss_metric(rel)) > 1e-9:
        raise AssertionError(f"{label}: LM from labels {lm} != LM of the release {loss_metric(rel)}")
    arx = ARX.get((dname, k))
    return {
        "dataset": dname,
        "n": ds.n,
        "k": k,
        "algorithm": label,
        "lm": round(lm, 6),
        "arx_lm": arx[0] if arx else "",
        "below_arx": (lm < arx[0]) if arx else "",
        "suppressed": back.n_suppressed,
        "arx_suppressed": arx[1] if arx else "",
        "smallest_class": check.summary["smallest_class"],
        "classes": check.summary["classes"],
        "rows_released": back.n,
        "k_anonymous": bool(check.satisfied),
        "time_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "load_before": round(load_before, 2),
        "load_after": round(load_after, 2),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def write(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def env() -> dict[str, Any]:
    """The environment record of ``bench_lattice.py`` (CPU count, versions, git commit)."""
    sys.path.insert(0, str(HERE))
    from bench_lattice import env as lattice_env

    return lattice_env()


def markdown(rows: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    out = io.StringIO()
    out.write("# k-anonymity utility: ktype vs ARX local recoding (`bench_kanon_utility.py`)\n\n")
    out.write(
        "LM recomputed from the released labels (suppressed records cost 1 per cell); `arx` = ARX 3.9.2 local\n"
        "recoding measured in issue #15 (gs-factor 0, `optimizeIterativeFast(1/n)`; 17-20 s). Times are wall\n"
        "seconds in-process on a **shared 2-core machine**: the load columns give the 1-minute load average\n"
        "before/after each run; under load the times are pessimistic (CPU seconds are closer to an idle run).\n"
        f"Environment: {json.dumps(meta['env'])}.\n\n"
    )
    for dname in sorted({r["dataset"] for r in rows}):
        sub = [r for r in rows if r["dataset"] == dname]
        out.write(f"## {dname} (n = {int(sub[0]['n']):,})\n\n")
        out.write("| k | algorithm | LM | ARX LM | below ARX | suppressed | smallest class | classes | rows | time s | CPU s | load |\n")
        out.write("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in sorted(sub, key=lambda r: (int(r["k"]), float(r["lm"]))):
            arx = f"{r['arx_lm']} ({r['arx_suppressed']} sup.)" if r["arx_lm"] != "" else "—"
            below = {True: "**yes**", False: "no", "": "—", "True": "**yes**", "False": "no"}[r["below_arx"]]
            out.write(
                f"| {r['k']} | {r['algorithm']} | {float(r['lm']):.4f} | {arx} | {below} | {r['suppressed']} | "
                f"{r['smallest_class']} | {r['classes']} | {r['rows_released']} | {r['time_s']} | {r['cpu_s']} | "
                f"{r['load_before']}→{r['load_after']} |\n"
            )
        out.write("\n")
    out.write(
        "Not run: `exhaustive`, `incognito`, `samarati` (same full-domain optimum as `flash`), `k_optimize`\n"
        "(DM-driven set enumeration), `gt_forest` (the same engine as `forest`), `gt_setcover` (tiny inputs\n"
        "only); agglomerative/forest on FARS (O(n²) on 100,937 rows). k-concealment and the freeform\n"
        "algorithms release weaker models than k-anonymity and are not compared here. A (dataset, k,\n"
        "algorithm) absent from the tables was not run for this file.\n"
    )
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", nargs="+", default=["adult", "fars"], choices=["adult", "fars"])
    ap.add_argument("--ks", nargs="+", type=int, default=[5, 10, 50, 100])
    ap.add_argument("--algorithms", nargs="+", default=None, help="labels (default: all fast ones)")
    ap.add_argument("--heavy", action="store_true", help="also agglomerative and forest (Adult only)")
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--render-only", action="store_true", help="rewrite the markdown from the CSV, run nothing")
    args = ap.parse_args(argv)
    algos = dict(ALGORITHMS)
    if args.heavy:
        algos.update(HEAVY)
    if args.algorithms:
        allv = {**ALGORITHMS, **HEAVY}
        bad = [a for a in args.algorithms if a not in allv]
        if bad:
            raise SystemExit(f"unknown algorithm label(s) {bad}; valid: {sorted(allv)}")
        algos = {a: allv[a] for a in args.algorithms}
    args.out.mkdir(parents=True, exist_ok=True)
    csv_path = args.out / "kanon_utility.csv"
    old: list[dict[str, Any]] = []
    if csv_path.exists():
        with csv_path.open() as f:
            old = list(csv.DictReader(f))
    if args.render_only:
        meta = {"env": env(), "arx_reference": {f"{d}/k={kk}": v for (d, kk), v in ARX.items()}}
        write(args.out / "kanon_utility.md", markdown(old, meta))
        return 0
    for dname in args.data:
        ds = load(dname)
        for k in args.ks:
            for label, (name, opts) in algos.items():
                if dname == "fars" and label in HEAVY:
                    continue
                row = measure_one(ds, dname, label, name, opts, k)
                print(json.dumps(row), flush=True)
                old = [r for r in old if (r["dataset"], r["algorithm"], str(r["k"])) != (dname, label, str(k))]
                old.append(row)
                old.sort(key=lambda r: (r["dataset"], int(r["k"]), r["algorithm"]))
                buf = io.StringIO()
                w = csv.DictWriter(buf, fieldnames=FIELDS)
                w.writeheader()
                w.writerows(old)
                write(csv_path, buf.getvalue())
                meta = {"env": env(), "arx_reference": {f"{d}/k={kk}": v for (d, kk), v in ARX.items()}}
                write(args.out / "kanon_utility.json", json.dumps({"meta": meta, "rows": old}, indent=1, default=str))
                write(args.out / "kanon_utility.md", markdown(old, meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
