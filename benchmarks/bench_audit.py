#!/usr/bin/env python
"""Benchmark of ``ktype check``'s audit (``ktype.audit.audit``) on large releases.

For each size, synthetic CENSUS data (``ktype.datasets.census_dataset``, 8 QIs) gets a
full-domain release built directly from hierarchy levels (no algorithm run: this measures
the audit alone), written to CSV with its sidecar, then audited from the file against
KAnonymity(1): read + metadata, label parsing, the generalization matching (class-wise count,
homogeneous recoding) and the model check. A second row per size audits a Mondrian
release (nested boxes: maximum-flow path) where ``--mondrian`` is given.

No timing assertions. Results: ``benchmarks/results/audit.json`` and ``audit.md``.

Usage::

    python benchmarks/bench_audit.py                 # 10^4, 10^5, 10^6 rows
    python benchmarks/bench_audit.py --sizes 10000   # quick
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


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


def run(n: int, mondrian: bool) -> list[dict]:
    from ktype.audit import audit
    from ktype.datasets import census_dataset
    from ktype.models.kanonymity import KAnonymity

    out = []
    ds = census_dataset(n, rng=0)
    rels = [("full-domain (levels)", full_domain_release(ds))]
    if mondrian:
        from ktype.algorithms import run as run_alg

        rels.append(("mondrian k=10", run_alg("mondrian", ds, KAnonymity(10))))
    for label, rel in rels:
        rel.models = (KAnonymity(1),)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "release.csv"
            t0 = time.perf_counter()
            rel.save(path)
            t1 = time.perf_counter()
            c1 = time.process_time()
            rep = audit(ds, path)
            t2 = time.perf_counter()
            c2 = time.process_time()
        out.append({
            "rows": n, "release": label, "passed": rep.passed, "matching": rep.facts.get("matching"),
            "save_s": round(t1 - t0, 3), "audit_s": round(t2 - t1, 3), "audit_cpu_s": round(c2 - c1, 3),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        })
        print(out[-1], flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--mondrian", action="store_true")
    args = ap.parse_args()
    rows = []
    for n in args.sizes:
        rows += run(n, args.mondrian)
    load = os.getloadavg()
    res = {"rows": rows, "load_average": [round(x, 2) for x in load], "cpus": os.cpu_count()}
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "audit.json").write_text(json.dumps(res, indent=2))
    md = ["# ktype check audit benchmark", "",
          f"Load average during the run: {res['load_average']} on {res['cpus']} CPUs (numbers under load are pessimistic).", "",
          "| rows | release | passed | matching | save (s) | audit wall (s) | audit CPU (s) | peak RSS (MB) |",
          "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        md.append(f"| {r['rows']:,} | {r['release']} | {r['passed']} | {r['matching']} | {r['save_s']} | {r['audit_s']} | {r['audit_cpu_s']} | {r['peak_rss_mb']} |")
    (HERE / "results" / "audit.md").write_text("\n".join(md) + "\n")


if __name__ == "__main__":
    main()
