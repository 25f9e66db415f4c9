#!/usr/bin/env python
"""ktype.dask at scale (docs/scale.md): distributed check + LM + DM, flash k=10 (0% and 1%
suppression), Mondrian k=10 and risk on a LocalCluster of 1 and 2 workers, and the in-memory
time for the same table when it fits.

The input is a CENSUS-schema Parquet dataset (Doka et al., Table 2 schema;
``ktype.datasets.synthetic.census``) written partition by partition — each partition drawn
with its own seed and written before the next is drawn, so the table is never whole in
memory. Quasi-identifiers: the first ``--qis`` CENSUS columns (Age and Education Level with
interval hierarchies, the categorical columns with ``census_hierarchy(..., "grouped")``); the
other columns are released unchanged.

Each step is timed once (a cold cluster pays numba compilation in the first Mondrian run;
``--repeat`` for more). ``os.getloadavg()`` is recorded beside every row: numbers taken under
load are pessimistic. No timing assertion anywhere. Results:
``benchmarks/results/dask.{json,md}``.

Usage::

    python benchmarks/bench_dask.py --rows 1000000              # small: a loaded machine
    python benchmarks/bench_dask.py --rows 10000000 --workers 1 2 4 --memory-limit 4GiB   # idle machine
    python benchmarks/bench_dask.py --rows 100000000 --skip-memory --partition-rows 2000000
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
K = 10


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def hierarchies(qis: list[str]) -> dict[str, Any]:
    from ktype.datasets.synthetic import census_hierarchy

    out: dict[str, Any] = {}
    for c in qis:
        if c == "Age":
            out[c] = {"intervals": [5, 10, 20, 40, 80]}
        elif c == "Education Level":
            out[c] = {"intervals": [2, 4, 8, 16]}
        else:
            out[c] = census_hierarchy(c, "grouped")
    return out


def write_census(path: Path, rows: int, partition_rows: int, seed: int) -> int:
    """CENSUS-schema Parquet dataset, one partition at a time (never whole in memory)."""
    from ktype.datasets.synthetic import census

    manifest = path / "_census.json"
    want = {"rows": rows, "partition_rows": partition_rows, "seed": seed}
    if manifest.exists() and json.loads(manifest.read_text()).get("table") == want:
        return len(list(path.glob("part-*.parquet")))  # the same table, written by an earlier run: reuse it
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True, exist_ok=True)
    parts = 0
    for i, start in enumerate(range(0, rows, partition_rows)):
        m = min(partition_rows, rows - start)
        df = census(m, rng=seed + i)
        df.to_parquet(path / f"part-{i:05d}.parquet", index=False)
        parts += 1
    manifest.write_text(json.dumps({"table": want, "partitions": parts}))
    return parts


def peak_rss_gib(client: Any) -> list[float]:
    """Peak resident memory of every worker process so far (``ru_maxrss``), GiB."""
    import resource

    peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    return [round(v / 2**20, 2) for v in peaks.values()]  # Linux reports KiB


def timed(fn, repeat: int) -> tuple[float, Any]:
    ts, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t)
    return round(statistics.median(ts), 3), out


def distributed_rows(src: Path, qis: list[str], others: list[str], workers: int, args: argparse.Namespace) -> list[dict]:
    from distributed import Client, LocalCluster

    import ktype.dask as kd
    from ktype.models.kanonymity import KAnonymity

    rows: list[dict] = []

    def row(step: str, seconds: float, **extra: Any) -> None:
        rows.append({"engine": f"dask, {workers} worker(s)", "step": step, "seconds": seconds, "load": load(), **extra})
        print(rows[-1], flush=True)

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, memory_limit=args.memory_limit,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        s, table = timed(lambda: kd.from_dask(str(src), quasi_identifiers=qis, insensitive=others,
                                              hierarchies=hierarchies(qis), scheduler=client), 1)
        row("encode (distinct values, leaf ranks, counts)", s, n=table.n)
        s, out = timed(lambda: (kd.check(table, KAnonymity(K)), kd.measures(table, ("loss_metric", "discernibility"))),
                       args.repeat)
        row("check k=10 + LM + DM of the input", s, satisfied=bool(out[0][0]), dm=out[1]["discernibility"])
        for sup in (0.0, 0.01):
            s, rel = timed(lambda sup=sup: kd.flash(table, KAnonymity(K), max_suppression=sup, measure="loss_metric"),
                           args.repeat)
            t2, meas = timed(lambda rel=rel: kd.measures(rel, ("loss_metric", "discernibility")), 1)
            row(f"flash k=10, {sup:.0%} suppression (search + node)", s, levels=rel.levels.tolist(),
                suppressed=rel.n_suppressed, frequency_set_rows=rel.provenance["frequency_set_rows"],
                loss_metric=meas["loss_metric"], measures_seconds=t2)
            s, out = timed(lambda rel=rel: (kd.check(rel, KAnonymity(K)),
                                            kd.measures(rel, ("loss_metric", "discernibility"))), args.repeat)
            row(f"check k=10 + LM + DM of the {sup:.0%} release", s, satisfied=bool(out[0][0]),
                loss_metric=out[1]["loss_metric"], dm=out[1]["discernibility"])
        if not args.skip_mondrian:
            # regions of at most --region-rows records: a region is anonymized in memory by one worker
            mrows = max(K * 100, min(args.region_rows, table.n // max(1, 4 * workers)))

            def run_mondrian():
                rel = kd.mondrian(table, KAnonymity(K), max_partition_rows=mrows)
                st = kd.class_size_stats(rel)  # forces the per-region Mondrian
                return rel, st

            s, (rel, st) = timed(run_mondrian, args.repeat)
            row("mondrian k=10 (cuts + shuffle + per region) + class sizes", s, regions=rel.provenance["regions"],
                classes=st["classes"], smallest=st["smallest"], peak_rss_gib_per_worker=peak_rss_gib(client))
        s, rk = timed(lambda: kd.risk(table), args.repeat)
        row("risk (prosecutor, journalist, marketer) of the input", s, highest=rk["prosecutor"]["highest"],
            sample_uniques=rk["sample_uniques"], peak_rss_gib_per_worker=peak_rss_gib(client))
    return rows


def memory_rows(src: Path, qis: list[str], others: list[str], args: argparse.Namespace) -> list[dict]:
    import pandas as pd

    from ktype import Dataset
    from ktype.algorithms import run
    from ktype.measures import discernibility, loss_metric
    from ktype.models.kanonymity import KAnonymity
    from ktype.release import Release
    from ktype.risk import reidentification_risk

    rows: list[dict] = []

    def row(step: str, seconds: float, **extra: Any) -> None:
        rows.append({"engine": "in memory", "step": step, "seconds": seconds, "load": load(), **extra})
        print(rows[-1], flush=True)

    s, ds = timed(lambda: Dataset(pd.read_parquet(src), quasi_identifiers=qis, insensitive=others,
                                  hierarchies=hierarchies(qis)), 1)
    row("read + encode", s, n=ds.n)
    ident = Release.build(ds, ds.X, ds.X, recoding="full-domain", levels=np.zeros(ds.r, dtype=np.int64))
    s, out = timed(lambda: (KAnonymity(K).check(ident), loss_metric(ident), discernibility(ident)), args.repeat)
    row("check k=10 + LM + DM of the input", s, satisfied=bool(out[0].satisfied), dm=out[2])
    for sup in (0.0, 0.01):
        s, rel = timed(lambda sup=sup: run("flash", ds, KAnonymity(K), max_suppression=sup, measure="loss_metric"),
                       args.repeat)
        row(f"flash k=10, {sup:.0%} suppression (search + release + verification)", s, levels=rel.levels.tolist(),
            suppressed=rel.n_suppressed, loss_metric=loss_metric(rel))
    if not args.skip_mondrian:
        s, rel = timed(lambda: run("mondrian", ds, KAnonymity(K)), args.repeat)
        row("mondrian k=10 (+ verification)", s)
    s, rk = timed(lambda: reidentification_risk(ds), args.repeat)
    row("risk (prosecutor, journalist, marketer) of the input", s, highest=rk.prosecutor.highest,
        sample_uniques=rk.sample_uniques)
    return rows


def main() -> None:
    from ktype.datasets.synthetic import CENSUS_SCHEMA

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--partition-rows", type=int, default=250_000)
    ap.add_argument("--qis", type=int, default=6, help="the first QIS CENSUS columns are quasi-identifiers")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--memory-limit", default="2GiB", help="per worker")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip-memory", action="store_true", help="no in-memory comparison (tables larger than RAM)")
    ap.add_argument("--max-memory-rows", type=int, default=5_000_000)
    ap.add_argument("--skip-mondrian", action="store_true")
    ap.add_argument("--region-rows", type=int, default=2_000_000,
                    help="Mondrian: most records of a region handed to one worker (its memory bounds this)")
    ap.add_argument("--data-dir", type=Path, default=None, help="where to write the Parquet input (default: a temp dir)")
    ap.add_argument("--tag", default="", help="suffix of the result files (dask{tag}.json)")
    args = ap.parse_args()
    cols = list(CENSUS_SCHEMA)
    qis, others = cols[: args.qis], cols[args.qis:]
    tmp = Path(tempfile.mkdtemp(prefix="ktype-bench-dask-")) if args.data_dir is None else args.data_dir
    src = tmp / "census"
    out: dict[str, Any] = {"rows": args.rows, "partition_rows": args.partition_rows, "quasi_identifiers": qis,
                           "k": K, "workers": args.workers, "memory_limit": args.memory_limit, "repeat": args.repeat,
                           "cpus": os.cpu_count(), "python": platform.python_version(), "load_before": load(),
                           "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    try:
        t = time.perf_counter()
        out["partitions"] = write_census(src, args.rows, args.partition_rows, args.seed)
        out["generate_seconds"] = round(time.perf_counter() - t, 3)
        rows: list[dict] = []
        for w in args.workers:
            rows += distributed_rows(src, qis, others, w, args)
        if not args.skip_memory and args.rows <= args.max_memory_rows:
            rows += memory_rows(src, qis, others, args)
        out["results"] = rows
    finally:
        if args.data_dir is None:
            shutil.rmtree(tmp, ignore_errors=True)
    out["load_after"] = load()
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"dask{args.tag}.json").write_text(json.dumps(out, indent=1))
    lines = [f"# ktype.dask benchmark: {args.rows:,} CENSUS rows, {out['partitions']} partitions, k = {K}",
             "", f"QIs {qis}; {os.cpu_count()} CPUs; load (1/5/15 min) before {out['load_before']}, after "
             f"{out['load_after']}. One run per step unless --repeat; the first Mondrian on a fresh cluster "
             "includes numba compilation in the workers.", "",
             "| engine | step | seconds | load | details |", "|---|---|---|---|---|"]
    for r in out["results"]:
        extra = {k: v for k, v in r.items() if k not in ("engine", "step", "seconds", "load")}
        lines.append(f"| {r['engine']} | {r['step']} | {r['seconds']} | {r['load'][0]} | "
                     f"{', '.join(f'{k}={v}' for k, v in extra.items())} |")
    (RESULTS / f"dask{args.tag}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
