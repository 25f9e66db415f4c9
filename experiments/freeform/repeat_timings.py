"""Repeat the short and the suspicious timings of the freeform experiments (``run.py``).

A single timing of a sub-second run on a shared machine can be off by a factor of two, so
the verdicts that rest on such timings are re-measured here several times::

    python experiments/freeform/repeat_timings.py              # all three parts, appended to results/
    python experiments/freeform/repeat_timings.py --parts fig6 --repeats 7

Parts (each appends one row per measurement, with the 1-minute load, to a CSV in ``--out``):

* ``fig6``: Fig. 6's runtime with one partition per machine (the lexicographic sort of the
  whole table + the first partition, run.py's ``parallel_seconds``), every (n, k, method),
  ``--repeats`` times, repeats outermost -> ``fig6_timing_repeats.csv``.
* ``partition``: the time of one partition for each method and partition size P, on
  ``--blocks`` partitions spread over the lexicographic order of a 100,000-row table, to
  see which sizes take equal time here (the paper tuned P = 250 / 150 / 100 for Greedy /
  SortGreedy / Hungarian on its machine) -> ``partition_times.csv``.
* ``fig8``: the Fig. 8 points whose CPU time stands out of their curve (``FIG8_POINTS``),
  run again with the current code; GCP must equal the committed one -> ``fig8_repeats.csv``.
* ``fig8-scipy`` (not in the default): Greedy on Adult 1,000 rows at k = 100 / 150 with scipy's maximum
  bipartite matching patched back in, next to ktype's -> ``fig8_scipy_matching.csv``.
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import time
from pathlib import Path

import numpy as np
import pandas as pd
import run as R

from ktype.algorithms.freeform import heuristics
from ktype.algorithms.freeform._prep import Problem
from ktype.data.bundled import load_adult
from ktype.datasets.synthetic import census_dataset

HERE = Path(__file__).resolve().parent
#: (data, n, k, method, repeats): the outliers of fig8_runtime.png and, for scale, their neighbours
FIG8_POINTS = [
    ("adult", 1000, 50, "greedy", 3),
    ("adult", 1000, 100, "greedy", 3),
    ("adult", 1000, 150, "greedy", 3),
    ("census", 10000, 10, "sortgreedy", 1),
    ("census", 10000, 30, "sortgreedy", 1),
]
#: partition sizes timed per method (the paper's size first)
PART_SIZES = {"greedy": [250], "sortgreedy": [150, 175, 200, 250], "hungarian": [100, 125, 150, 175, 200]}


def _commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=HERE
        ).stdout.strip()
    except OSError:
        return ""


def _writer(path: Path, cols: list[str]):
    new = not path.exists()
    fh = path.open("a", newline="")
    w = csv.DictWriter(fh, fieldnames=cols)
    if new:
        w.writeheader()
    return fh, w


def fig6_repeats(out: Path, repeats: int, sizes: list[int], ks: list[int]) -> None:
    cols = [
        "n",
        "k",
        "method",
        "repeat",
        "sort_seconds",
        "sort_cpu_seconds",
        "one_seconds",
        "one_cpu_seconds",
        "parallel_seconds",
        "parallel_cpu_seconds",
        "load",
        "commit",
    ]
    fh, w = _writer(out / "fig6_timing_repeats.csv", cols)
    data = {n: census_dataset(n, rng=1) for n in sizes}  # the tables of run.py's fig6
    commit = _commit()
    for r in range(repeats):
        for n in sizes:
            ds = data[n]
            c0, t0 = time.process_time(), time.perf_counter()
            order = Problem.from_dataset(ds).order
            sw, sc = time.perf_counter() - t0, time.process_time() - c0
            for k in ks:
                for m in ("greedy", "sortgreedy", "hungarian", "nh"):
                    one = R.measure(m, ds.subset(np.sort(order[: R.PARTITION[m]])), k)
                    w.writerow(
                        {
                            "n": n,
                            "k": k,
                            "method": m,
                            "repeat": r,
                            "sort_seconds": sw,
                            "sort_cpu_seconds": sc,
                            "one_seconds": one["seconds"],
                            "one_cpu_seconds": one["cpu_seconds"],
                            "parallel_seconds": sw + one["seconds"],
                            "parallel_cpu_seconds": sc + one["cpu_seconds"],
                            "load": round(os.getloadavg()[0], 2),
                            "commit": commit,
                        }
                    )
            fh.flush()
            print(f"fig6 repeat {r} n={n} sort={sw:.3f}s load={os.getloadavg()[0]:.2f}", flush=True)
    fh.close()


def partition_times(out: Path, repeats: int, blocks: int, ks: list[int], n: int = 100_000) -> None:
    cols = ["n", "k", "method", "P", "block", "repeat", "seconds", "cpu_seconds", "load", "commit"]
    fh, w = _writer(out / "partition_times.csv", cols)
    ds = census_dataset(n, rng=1)
    order = Problem.from_dataset(ds).order
    commit = _commit()
    for r in range(repeats):
        for k in ks:
            for b in range(blocks):
                start = b * (n - 250) // max(blocks - 1, 1)  # blocks spread over the lexicographic order
                for m, sizes in PART_SIZES.items():
                    for P in sizes:
                        if k > (P + 2) // 2:
                            continue
                        one = R.measure(m, ds.subset(np.sort(order[start : start + P])), k)
                        w.writerow(
                            {
                                "n": n,
                                "k": k,
                                "method": m,
                                "P": P,
                                "block": b,
                                "repeat": r,
                                "seconds": one["seconds"],
                                "cpu_seconds": one["cpu_seconds"],
                                "load": round(os.getloadavg()[0], 2),
                                "commit": commit,
                            }
                        )
            fh.flush()
            print(f"partition repeat {r} k={k} load={os.getloadavg()[0]:.2f}", flush=True)
    fh.close()


def fig8_repeats(out: Path) -> None:
    """The re-runs of ``FIG8_POINTS``; resumes (points already in the CSV are not re-run)."""
    cols = ["data", "n", "k", "method", "repeat", "gcp", "seconds", "cpu_seconds", "load", "commit"]
    path = out / "fig8_repeats.csv"
    have = set()
    if path.exists():
        have = {(r.data, r.n, r.k, r.method, r.repeat) for r in pd.read_csv(path).itertuples()}
    fh, w = _writer(path, cols)
    commit = _commit()
    heuristics.DENSE_LIMIT = max(heuristics.DENSE_LIMIT, 16000)  # as run.py --full: the dense methods unpartitioned
    for data, n, k, m, reps in FIG8_POINTS:
        if all((data, n, k, m, r) in have for r in range(reps)):
            continue
        ds = census_dataset(n, rng=2) if data == "census" else load_adult(n=n)  # the tables of run.py's fig8
        for r in range(reps):
            if (data, n, k, m, r) in have:
                continue
            res = R.measure(m, ds, k)
            w.writerow(
                {
                    "data": data,
                    "n": n,
                    "k": k,
                    "method": m,
                    "repeat": r,
                    **res,
                    "load": round(os.getloadavg()[0], 2),
                    "commit": commit,
                }
            )
            fh.flush()
            print(
                f"fig8 {data} n={n} k={k} {m} rep {r}: gcp={res['gcp']:.4f} cpu={res['cpu_seconds']:.2f}s", flush=True
            )
    fh.close()


def fig8_scipy_matching(out: Path) -> None:
    """Adult 1,000, Greedy, k = 100 and 150 once more with scipy's maximum bipartite matching in the random
    decomposition and the checker (ktype used it until its own Hopcroft-Karp replaced it) -> fig8_scipy_matching.csv."""
    from scipy.sparse.csgraph import maximum_bipartite_matching as scipy_matching

    import ktype.algorithms.freeform._prep as prep
    import ktype.models._graph as graph

    def old(g):
        return scipy_matching(g, perm_type="column")

    cols = ["data", "n", "k", "method", "matching", "gcp", "seconds", "cpu_seconds", "load", "commit"]
    fh, w = _writer(out / "fig8_scipy_matching.csv", cols)
    ds = load_adult(n=1000)
    for k in (100, 150):
        for name, fn in (("scipy", old), ("ktype", None)):
            saved = prep.maximum_bipartite_matching, graph.maximum_bipartite_matching
            if fn is not None:
                prep.maximum_bipartite_matching = graph.maximum_bipartite_matching = fn
            try:
                res = R.measure("greedy", ds, k)
            finally:
                prep.maximum_bipartite_matching, graph.maximum_bipartite_matching = saved
            w.writerow(
                {
                    "data": "adult",
                    "n": 1000,
                    "k": k,
                    "method": "greedy",
                    "matching": name,
                    **res,
                    "load": round(os.getloadavg()[0], 2),
                    "commit": _commit(),
                }
            )
            fh.flush()
            print(f"fig8 adult k={k} greedy, {name} matching: cpu={res['cpu_seconds']:.2f}s", flush=True)
    fh.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=HERE / "results")
    ap.add_argument(
        "--parts", nargs="+", default=["fig6", "partition", "fig8"], choices=["fig6", "partition", "fig8", "fig8-scipy"]
    )
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--blocks", type=int, default=5)
    a = ap.parse_args()
    warm = census_dataset(40, rng=0)  # compile the numba kernels before the first timed run
    for m in R.ALGOS:
        if m != "mip":
            R.measure(m, warm, 3)
    if "fig6" in a.parts:
        fig6_repeats(a.out, a.repeats, R.FULL["fig6"]["sizes"], R.FULL["fig6"]["ks"])
    if "partition" in a.parts:
        partition_times(a.out, max(1, a.repeats // 2), a.blocks, R.FULL["fig6"]["ks"])
    if "fig8" in a.parts:
        fig8_repeats(a.out)
    if "fig8-scipy" in a.parts:
        fig8_scipy_matching(a.out)


if __name__ == "__main__":
    main()
