#!/usr/bin/env python
"""Risk-analysis benchmarks (ktype.risk, issue #14).

(a) ``reid``: ``reidentification_risk`` (prosecutor, journalist and marketer together) on
    Adult (30,162 rows, 8 QIs) and on a 1,000,000-row synthetic CENSUS table (Doka et al.
    Table 2 schema, 8 QIs), without population information, with a sampling fraction of 0.1,
    and (Adult) with a population table; also on a Mondrian k=10 release of each. Goal:
    all three models < 2 s on 1M rows.
(b) ``suda``: ``suda(max_size=4)`` on Adult (goal < 30 s), plus max_size 2, 3.
(c) ``others``: population uniqueness (all four estimators), individual risk, risk drivers on
    both tables.
(d) ``accuracy``: population-uniqueness estimates against simulated truth (CENSUS-schema
    population of 100,000 on Age, Gender, Race, Marital Status, Education Level; samples at
    fractions 0.01..0.5, two draws each): estimate / truth.

Each timing is the median of ``--repeat`` runs after one warm-up (numba compilation is not
timed). ``uptime`` load is recorded before and after: numbers taken under load are
pessimistic. No timing assertions. Results: ``benchmarks/results/bench_risk.json`` and
``.md``.

Usage::

    python benchmarks/bench_risk.py            # full (1M rows)
    python benchmarks/bench_risk.py --quick    # 100k rows, fewer repeats
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def timed(fn, repeat: int) -> tuple[float, Any]:
    out = fn()  # warm-up (numba compilation, caches)
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t)
    return round(statistics.median(ts), 4), out


def bench(n_big: int, repeat: int) -> dict[str, Any]:
    import ktype
    from ktype._grouping import group_rows
    from ktype.datasets import census, census_dataset
    from ktype.risk import (
        individual_risk,
        population_uniqueness,
        reidentification_risk,
        risk_drivers,
        suda,
    )

    res: dict[str, Any] = {"load_before": load(), "reid": [], "suda": [], "others": [], "accuracy": []}
    adult = ktype.load_adult()
    t = time.perf_counter()
    big = census_dataset(n_big, rng=0)
    res["census_build_s"] = round(time.perf_counter() - t, 3)
    tables = {"adult": adult, f"census-{n_big}": big}
    for name, ds in tables.items():
        rel = ktype.anonymize(ds, k=10, algorithm="mondrian")
        cases = [("input", ds, {}), ("input", ds, {"sampling_fraction": 0.1}),
                 ("mondrian k=10", rel, {}), ("mondrian k=10", rel, {"sampling_fraction": 0.1})]
        if name == "adult":
            pop = pd.concat([ds.data] * 3, ignore_index=True)
            cases.append(("input", ds, {"population": pop}))
            cases.append(("mondrian k=10", rel, {"population": pop}))
        for what, obj, kw in cases:
            sec, r = timed(lambda obj=obj, kw=kw: reidentification_risk(obj, **kw), repeat)
            pinfo = "none" if not kw else ("fraction 0.1" if "sampling_fraction" in kw else "population table (3x)")
            res["reid"].append({"table": name, "rows": ds.n, "data": what, "population": pinfo, "seconds": sec,
                                "prosecutor_highest": r.prosecutor.highest, "prosecutor_average": round(r.prosecutor.average, 5),
                                "journalist_average": round(r.journalist.average, 5), "marketer": round(r.marketer, 5),
                                "load": load()})
            print(res["reid"][-1], flush=True)
        for label, fn in [
            ("population_uniqueness (4 models), fraction 0.1", lambda ds=ds: population_uniqueness(ds, sampling_fraction=0.1)),
            ("individual_risk, fraction 0.1", lambda ds=ds: individual_risk(ds, sampling_fraction=0.1)),
            ("risk_drivers", lambda ds=ds: risk_drivers(ds)),
        ]:
            sec, _ = timed(fn, max(1, repeat // 2))
            res["others"].append({"table": name, "rows": ds.n, "what": label, "seconds": sec, "load": load()})
            print(res["others"][-1], flush=True)
    for m in (2, 3, 4):
        sec, s = timed(lambda m=m: suda(adult, max_size=m), repeat)
        sm = s.summary()
        res["suda"].append({"table": "adult", "rows": adult.n, "max_size": m, "seconds": sec, "records_with_msu": sm["records_with_msu"],
                            "msus": sm["msus"], "msus_by_size": sm["msus_by_size"], "load": load()})
        print(res["suda"][-1], flush=True)
    # (d) accuracy of the population-uniqueness estimators against simulated truth
    qis = ["Age", "Gender", "Race", "Marital Status", "Education Level"]
    N = 100_000
    pop = census(N, rng=1)
    gid, _ = group_rows(np.column_stack([pd.factorize(pop[c])[0] for c in qis]))
    truth = int((np.bincount(gid) == 1).sum())
    rng = np.random.default_rng(5)
    for pi in (0.01, 0.05, 0.1, 0.3, 0.5):
        for draw in range(2):
            idx = rng.choice(N, int(pi * N), replace=False)
            s = np.bincount(gid[idx])
            pu = population_uniqueness(s[s > 0], population_size=N)
            res["accuracy"].append({"population": N, "true_uniques": truth, "fraction": pi, "draw": draw,
                                    **{f"{k}/truth": round(v / truth, 3) for k, v in pu.estimates.items()},
                                    "dankar_model": pu.dankar_model})
            print(res["accuracy"][-1], flush=True)
    res["load_after"] = load()
    return res


def env() -> dict[str, Any]:
    import numpy
    import pandas

    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=HERE).stdout.strip()
    except OSError:  # pragma: no cover
        commit = "?"
    return {"python": platform.python_version(), "numpy": numpy.__version__, "pandas": pandas.__version__,
            "cpus": os.cpu_count(), "machine": platform.machine(), "commit": commit,
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


def markdown(res: dict[str, Any], cfg: dict[str, Any]) -> str:
    e = res["env"]
    lines = [f"# bench_risk ({'quick' if cfg['quick'] else 'full'})", "",
             f"{e['date']}, commit `{e['commit'][:10]}`, {e['cpus']} CPUs, Python {e['python']}, numpy {e['numpy']}. "
             f"Load average (1, 5, 15 min) before: {res['load_before']}, after: {res['load_after']} — "
             "the machine is shared; timings under load are pessimistic. Median of "
             f"{cfg['repeat']} runs after a warm-up.", "",
             "## Re-identification risk (prosecutor + journalist + marketer in one call)", "",
             "| table | rows | data | population | seconds | prosecutor highest | prosecutor avg | journalist avg | marketer | load |",
             "|---|---:|---|---|---:|---:|---:|---:|---:|---|"]
    for r in res["reid"]:
        lines.append(f"| {r['table']} | {r['rows']:,} | {r['data']} | {r['population']} | {r['seconds']:.3f} | "
                     f"{r['prosecutor_highest']:.4g} | {r['prosecutor_average']:.4g} | {r['journalist_average']:.4g} | "
                     f"{r['marketer']:.4g} | {r['load']} |")
    lines += ["", "## SUDA on Adult", "", "| max_size | seconds | records with an MSU | MSUs | by size | load |", "|---:|---:|---:|---:|---|---|"]
    for r in res["suda"]:
        lines.append(f"| {r['max_size']} | {r['seconds']:.3f} | {r['records_with_msu']:,} | {r['msus']:,} | {r['msus_by_size']} | {r['load']} |")
    lines += ["", "## Other measures", "", "| table | rows | what | seconds | load |", "|---|---:|---|---:|---|"]
    for r in res["others"]:
        lines.append(f"| {r['table']} | {r['rows']:,} | {r['what']} | {r['seconds']:.3f} | {r['load']} |")
    acc = res["accuracy"]
    if acc:
        lines += ["", f"## Population uniqueness: estimate / truth (CENSUS-schema population of {acc[0]['population']:,}, "
                  f"5 QIs, {acc[0]['true_uniques']:,} true uniques)", "",
                  "| sampling fraction | draw | pitman | zayatz | snb | dankar | dankar uses |", "|---:|---:|---:|---:|---:|---:|---|"]
        for r in acc:
            lines.append(f"| {r['fraction']} | {r['draw']} | {r.get('pitman/truth')} | {r.get('zayatz/truth')} | "
                         f"{r.get('snb/truth')} | {r.get('dankar/truth')} | {r['dankar_model']} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="100,000-row CENSUS table, 2 repeats")
    ap.add_argument("--repeat", type=int, default=None)
    ap.add_argument("--out", type=Path, default=RESULTS)
    a = ap.parse_args()
    cfg = {"quick": a.quick, "n_big": 100_000 if a.quick else 1_000_000, "repeat": a.repeat or (2 if a.quick else 3)}
    res = bench(cfg["n_big"], cfg["repeat"])
    res["env"] = env()
    res["config"] = cfg
    a.out.mkdir(parents=True, exist_ok=True)
    stem = "bench_risk-quick" if a.quick else "bench_risk"
    for suffix, text in ((".json", json.dumps(res, indent=2, default=str)), (".md", markdown(res, cfg))):
        tmp = a.out / f".{stem}{suffix}.tmp"
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(a.out / f"{stem}{suffix}")
    print(markdown(res, cfg))


if __name__ == "__main__":
    main()
