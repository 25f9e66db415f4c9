#!/usr/bin/env python
"""Full-domain lattice search benchmark (``flash``, the optimal search) on Adult and FARS.

Adult (``shared/data/adult``, 30,162 rows, all 9 columns as quasi-identifiers, ARX
hierarchies: 12,960 lattice nodes) and FARS (``shared/data/fars``, 100,937 rows, 8
quasi-identifiers, ARX hierarchies via ``Hierarchy.from_arx_csv``: 20,736 nodes), for
k ∈ {5, 100}, ``max_suppression`` ∈ {0, 0.04} and the measures non-uniform entropy, loss and
discernibility. Recorded per run, in-process wall time: encoding (frequency set of the
bottom node, level maps) and search, nodes evaluated, feasible / k-minimal counts, optimum
level vector and value. Each configuration is timed ``--repeat`` times (median reported).

No timing assertions. Results: ``benchmarks/results/lattice.json`` and ``lattice.md``.

Usage::

    python benchmarks/bench_lattice.py                 # everything (a few minutes)
    python benchmarks/bench_lattice.py --quick         # Adult, k=5 only
    python benchmarks/bench_lattice.py --data adult --k 5 --suppression 0.04 --measure loss_metric
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd

from ktype.testing.shared_data import shared_data_dir

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
DATA = shared_data_dir()  # ../shared/data beside the repository, $KTYPE_SHARED_DATA, /work/shared/data
MEASURES = ["non_uniform_entropy", "loss_metric", "discernibility"]


def load(name: str):
    from ktype.data.dataset import Dataset
    from ktype.data.hierarchy import Hierarchy

    if name == "adult":
        folder = DATA / "adult"
        df = pd.read_csv(folder / "adult.csv", sep=";", dtype=str)
        qis = list(df.columns)
        hier = {c: Hierarchy.from_arx_csv(folder / f"adult_hierarchy_{c}.csv", name=c) for c in qis}
    elif name == "fars":
        folder = DATA / "fars"
        df = pd.read_csv(folder / "fars_int.csv", sep=";", dtype=str)
        qis = list(df.columns)
        hier = {c: Hierarchy.from_arx_csv(folder / f"fars_int_hierarchy_{c}.csv", name=c) for c in qis}
    else:
        raise SystemExit(f"unknown dataset {name!r}")
    return Dataset(df, quasi_identifiers=qis, hierarchies=hier, name=name)


def config(ds, k: int, sup: float, measure: str) -> dict[str, Any]:
    """The configuration columns of a result row."""
    return {"dataset": ds.name, "n": ds.n, "qis": ds.r, "k": k, "max_suppression": sup, "measure": measure}


def one(ds, k: int, sup: float, measure: str, repeat: int) -> dict[str, Any]:
    from ktype.algorithms.fulldomain._engine import Encoded
    from ktype.algorithms.fulldomain._lattice import run_search
    from ktype.models.kanonymity import KAnonymity

    times, enc_times, res = [], [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        enc = Encoded(ds, (KAnonymity(k),), sup, measure)
        t1 = time.perf_counter()
        res = run_search(enc, "flash")
        t2 = time.perf_counter()
        enc_times.append(t1 - t0)
        times.append(t2 - t0)
    assert res is not None
    return {
        **config(ds, k, sup, measure),
        "wall_s": round(statistics.median(times), 4),
        "encode_s": round(statistics.median(enc_times), 4),
        "nodes": res.n_nodes,
        "nodes_evaluated": res.n_evaluated,
        "feasible": int((res.state == 1).sum()),
        "k_minimal": int(len(res.minimal)),
        "optimum": [int(x) for x in res.optimum],
        "value": res.value,
        "suppressed": res.optimum_suppressed,
    }


def env() -> dict[str, Any]:
    import numba
    import numpy

    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=HERE, capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = ""
    return {
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "pandas": pd.__version__,
        "numba": numba.__version__,
        "cpus": os.cpu_count(),
        "machine": platform.machine(),
        "commit": commit,
        "load_avg": os.getloadavg(),
    }


def write(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def markdown(rows: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    lines = [
        "# Full-domain lattice search (`flash`)",
        "",
        f"Machine: {meta['env']['cpus']} CPUs, load average at start {tuple(round(x, 2) for x in meta['env']['load_avg'])}; "
        f"Python {meta['env']['python']}, numpy {meta['env']['numpy']}, numba {meta['env']['numba']}. "
        f"Median of {meta['repeat']} run(s), in-process, after a warm-up. `wall_s` includes encoding (`encode_s`).",
        "",
        "| data | k | sup | measure | wall_s | encode_s | nodes | evaluated | feasible | k-minimal | optimum | value | suppressed |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['dataset']} | {r['k']} | {r['max_suppression']:.0%} | {r['measure']} | {r['wall_s']:.3f} | {r['encode_s']:.3f} | "
            f"{r['nodes']} | {r['nodes_evaluated']} | {r['feasible']} | {r['k_minimal']} | {r['optimum']} | {r['value']:.6g} | {r['suppressed']} |"
        )
    lines += [
        "",
        "Goals (2-core machine): Adult k=5 at 0% ≤ 0.3 s; at 4% ≤ 2 s; FARS k=5 at 4% ≤ 2 s.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", nargs="*", default=["adult", "fars"])
    ap.add_argument("--k", nargs="*", type=int, default=[5, 100])
    ap.add_argument("--suppression", nargs="*", type=float, default=[0.0, 0.04])
    ap.add_argument("--measure", nargs="*", default=MEASURES)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="Adult, k=5 only")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args(argv)
    if args.quick:
        args.data, args.k = ["adult"], [5]
    meta = {"env": env(), "repeat": args.repeat, "argv": sys.argv[1:]}
    rows: list[dict[str, Any]] = []
    for name in args.data:
        t0 = time.perf_counter()
        ds = load(name)
        print(f"loaded {name}: {ds.n} rows, {ds.r} QIs in {time.perf_counter() - t0:.2f}s", flush=True)
        one(ds.subset(range(min(ds.n, 2000))), 5, 0.04, "loss_metric", 1)  # warm-up (numba, caches)
        for k in args.k:
            for sup in args.suppression:
                for meas in args.measure:
                    r = one(ds, k, sup, meas, args.repeat)
                    rows.append(r)
                    print(json.dumps(r), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    suffix = "" if not args.quick else "-quick"
    write(args.out / f"lattice{suffix}.json", json.dumps({"meta": meta, "results": rows}, indent=1))
    write(args.out / f"lattice{suffix}.md", markdown(rows, meta))


if __name__ == "__main__":
    main()
