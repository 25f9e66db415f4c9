#!/usr/bin/env python
"""Benchmark of ``ktype check``'s audit (``ktype.audit.audit``) on large releases.

For each size, synthetic CENSUS data (``ktype.datasets.census_dataset``, 8 QIs: 2 numeric
ranges, 6 categorical hierarchies) gets one release of each main kind, written to CSV with
its sidecar and then audited **from the file** in a fresh process (so the peak memory is
the audit's: the original table, the parsed release, the matching, the model check):

``full-domain``
    every QI at level 1 of its hierarchy (built directly: no algorithm run). Homogeneous:
    the matching is the class-wise count. Model ``KAnonymity(1)``.
``mondrian``
    ``mondrian`` with ``KAnonymity(10)`` (boxes: maximum-flow path). Model ``KAnonymity(10)``.
``local``
    a clustering local recoding built directly: records sorted by their QIs, cut into
    clusters of 10, each published as its closure (ranges; lowest common ancestors). Boxes
    of different clusters overlap, so the matching is a maximum flow on a non-homogeneous
    type graph. Model ``KAnonymity(10)``. (A cell-level random local recoding — each record
    its own random cells — made a type graph of ~83 million edges at 10^6 rows, beyond 6 GB
    in scipy's maximum flow: the audit's cost follows the consistency graph's size.)
``freeform``
    a freeform release with partitions, built directly the way partition-based freeform
    algorithms shape it (Doka et al., ASIA CCS 2015, §8.1): records sorted by their QIs,
    cut into partitions of P = 150, and in each partition record ``i``'s box is the union (ranges; value sets on the
    6 categorical columns) of records ``i .. i+k-1`` (cyclically): a k-regular
    generalization graph, k = 10. Model ``FreeformKAnonymity(10)``, re-run from the file
    (set-aware consistency graph, matches on perfect matchings).

Recorded per release: audit wall and CPU time (``time.process_time`` of the audit process;
under load the CPU time is the number that tells what an idle machine would do), the audit
process's peak RSS, the machine load average before and after, and the time to build and
save the release (not part of the audit). No timing assertions.

Results: ``benchmarks/results/audit.json`` and ``audit.md``.

Usage::

    python benchmarks/bench_audit.py                       # 10^4, 10^5, 10^6 rows, all kinds
    python benchmarks/bench_audit.py --sizes 10000         # quick
    python benchmarks/bench_audit.py --kinds freeform --sizes 100000
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
KINDS = ("full-domain", "mondrian", "local", "freeform")
FREEFORM_K, FREEFORM_P = 10, 150


# ------------------------------------------------------------------------------ releases
def full_domain_release(ds, level: int = 1):
    from ktype.release import Release

    lo = np.empty_like(ds.X)
    hi = np.empty_like(ds.X)
    levels = []
    for j, h in enumerate(ds.hierarchies):
        lev = min(level, h.height) if h.is_tree else 0
        if h.is_tree:
            llo, lhi = h.level_intervals(lev)
            lo[:, j], hi[:, j] = llo[ds.X[:, j]], lhi[ds.X[:, j]]
        else:  # ordered: publish exact values
            lo[:, j] = hi[:, j] = ds.X[:, j]
        levels.append(lev)
    return Release.build(ds, lo, hi, recoding="full-domain", levels=np.array(levels))


def local_release(ds, size: int = 10):
    """Local recoding by clusters (as agglomerative / forest / k-concealment pipelines shape
    it): records sorted by their QIs, cut into clusters of ``size``, each published as the
    closure of its cluster. Boxes of different clusters overlap, so records with equal values
    can get different cells (vectorized)."""
    from ktype.release import Release

    n = ds.n
    order = np.lexsort(ds.X.T[::-1])
    starts = np.arange(0, n, size)
    Xs = ds.X[order]
    cmin = np.minimum.reduceat(Xs, starts, axis=0)
    cmax = np.maximum.reduceat(Xs, starts, axis=0)
    cl = np.empty(n, dtype=np.int64)
    cl[order] = np.arange(n) // size
    lo = np.empty_like(ds.X)
    hi = np.empty_like(ds.X)
    for j, h in enumerate(ds.hierarchies):  # loop over columns
        clo, chi = h.closure(cmin[:, j], cmax[:, j])
        lo[:, j], hi[:, j] = clo[cl], chi[cl]
    return Release.build(ds, lo, hi, recoding="local", classes=cl)


def freeform_release(ds, k: int = FREEFORM_K, part: int = FREEFORM_P):
    """k-regular freeform release over partitions of ``part`` sorted records (vectorized)."""
    from ktype.freeform_release import FreeformRelease, range_columns

    n, r = ds.X.shape
    order = np.lexsort(ds.X.T[::-1])  # records sorted by their QIs
    pos = np.arange(n)
    nparts = max(1, n // part)
    pid = np.minimum(pos // part, nparts - 1)  # the last partition takes the remainder
    start = pid * part
    size = np.where(pid == nparts - 1, n - start, part)
    pre = np.empty((n, k), dtype=np.int64)
    for s in range(k):  # loop over the k cyclic shifts
        pre[:, s] = order[start + (pos - start + s) % size]
    boxes_of = np.empty(n, dtype=np.int64)
    boxes_of[order] = pos  # box t is built for the record at sorted position t
    pre = pre[boxes_of]
    vals = ds.X[pre]  # (n, k, r)
    cell_lo = vals.min(axis=1).astype(np.int32)
    cell_hi = vals.max(axis=1).astype(np.int32)
    sets = {}
    rows = np.repeat(np.arange(n), k)
    for j in np.flatnonzero(~range_columns(ds)):  # loop over the set columns
        member = np.zeros((n, ds.hierarchies[j].size), dtype=bool)
        member[rows, vals[:, :, j].ravel()] = True
        sets[int(j)] = member
    return FreeformRelease.from_cells(ds, cell_lo, cell_hi, sets, source=np.arange(n), preimages=pre,
                                      provenance={"algorithm": f"synthetic freeform (k={k}, partitions of {part})"})


def make(n: int, kind: str, path: Path) -> dict:
    """Build one release and save it (timed apart from the audit)."""
    from ktype.datasets import census_dataset
    from ktype.models.freeform import FreeformKAnonymity
    from ktype.models.kanonymity import KAnonymity

    ds = census_dataset(n, rng=0)
    t0 = time.perf_counter()
    if kind == "full-domain":
        rel, models = full_domain_release(ds), (KAnonymity(1),)
    elif kind == "mondrian":
        from ktype.algorithms import run as run_alg

        rel = run_alg("mondrian", ds, KAnonymity(10))
        models = (KAnonymity(10),)
    elif kind == "local":
        rel, models = local_release(ds), (KAnonymity(10),)
    elif kind == "freeform":
        rel, models = freeform_release(ds), (FreeformKAnonymity(FREEFORM_K, graph_limit=0),)
    else:
        raise SystemExit(f"unknown kind {kind!r}; use one of {KINDS}")
    rel = rel.replace(models=models)
    t1 = time.perf_counter()
    rel.save(path)
    t2 = time.perf_counter()
    return {"build_s": round(t1 - t0, 3), "save_s": round(t2 - t1, 3)}


def audit_file(n: int, path: Path) -> dict:
    """Audit a written release from its file (models and scope from its metadata)."""
    from ktype.audit import audit
    from ktype.datasets import census_dataset
    from ktype.models._maxflow import backend

    ds = census_dataset(n, rng=0)
    load0 = os.getloadavg()[0]
    t0, c0 = time.perf_counter(), time.process_time()
    rep = audit(ds, path)
    t1, c1 = time.perf_counter(), time.process_time()
    return {
        "passed": rep.passed, "findings": [str(f) for f in rep.findings], "matching": rep.facts.get("matching"),
        "max_flow": backend(),  # the solver of the graph's maximum flows (the fast-audit extra: ortools)
        "models": {r.model: {k: v for k, v in r.summary.items() if isinstance(v, (int, float, str, bool))}
                   for r in rep.results},
        "audit_wall_s": round(t1 - t0, 3), "audit_cpu_s": round(c1 - c0, 3),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "load_before": round(load0, 2), "load_after": round(os.getloadavg()[0], 2),
    }


def _child(args: list[str]) -> dict:
    out = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"bench_audit child {args} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--kinds", nargs="+", default=list(KINDS), choices=KINDS)
    ap.add_argument("--merge", action="store_true", help="keep the rows of other sizes/kinds already in audit.json")
    ap.add_argument("--_make", nargs=3, metavar=("N", "KIND", "PATH"), help=argparse.SUPPRESS)
    ap.add_argument("--_audit", nargs=2, metavar=("N", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args._make:
        print(json.dumps(make(int(args._make[0]), args._make[1], Path(args._make[2]))))
        return
    if args._audit:
        print(json.dumps(audit_file(int(args._audit[0]), Path(args._audit[1]))))
        return
    rows: list[dict] = []
    if args.merge and (HERE / "results" / "audit.json").exists():  # keep other sizes / kinds of an earlier run
        done = {(n, k) for n in args.sizes for k in args.kinds}
        rows = [r for r in json.loads((HERE / "results" / "audit.json").read_text())["rows"]
                if (r["rows"], r["release"]) not in done]
    for n in args.sizes:
        for kind in args.kinds:
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "release.csv"
                made = _child(["--_make", str(n), kind, str(path)])
                row = {"rows": n, "release": kind, **made, **_child(["--_audit", str(n), str(path)])}
            rows.append(row)
            print({k: v for k, v in row.items() if k != "findings"}, flush=True)
            write(rows, complete=False)  # results so far survive an interrupted run
    write(rows, complete=True)


def write(rows: list[dict], complete: bool) -> None:
    res = {"rows": rows, "cpus": os.cpu_count(), "complete": complete,
           "command": "python benchmarks/bench_audit.py " + " ".join(sys.argv[1:])}
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "audit.json").write_text(json.dumps(res, indent=2))
    md = ["# ktype check audit benchmark", "",
          f"`{res['command'].strip()}` on {res['cpus']} CPUs{'' if complete else ' (interrupted: rows so far)'}. "
          "Each release is audited from its CSV file in a fresh process (models and scope from the sidecar). Wall "
          "time under load is pessimistic; the CPU time is what an idle machine needs.", "",
          "| rows | release | passed | matching | model numbers | audit wall (s) | audit CPU (s) | peak RSS (MB) "
          "| load before/after | build + save (s) |",
          "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        nums = "; ".join(f"{m}: " + ", ".join(f"{k}={v}" for k, v in s.items() if k not in ("per",))
                         for m, s in r["models"].items())
        matching = r["matching"] + (f" ({r['max_flow']})" if r.get("max_flow") and "flow" in str(r["matching"]) else "")
        md.append(f"| {r['rows']:,} | {r['release']} | {r['passed']} | {matching} | {nums} | {r['audit_wall_s']} "
                  f"| {r['audit_cpu_s']} | {r['peak_rss_mb']} | {r['load_before']}/{r['load_after']} "
                  f"| {r['build_s']} + {r['save_s']} |")
    (HERE / "results" / "audit.md").write_text("\n".join(md) + "\n")


if __name__ == "__main__":
    main()
