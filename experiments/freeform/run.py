"""Reproduce the experiments of Doka et al., "k-Anonymization by Freeform Generalization" (§8, Figs. 6-10).

One command::

    python experiments/freeform/run.py            # the committed configuration (largest feasible here)
    python experiments/freeform/run.py --full     # the paper's sizes (hours on 2 cores, see FULL)
    python experiments/freeform/run.py --quick    # small configuration (CI, about two minutes)
    python experiments/freeform/run.py --tiny     # smallest configuration (the slow-marked test)

Outputs (``experiments/freeform/results/`` or ``--out``): one CSV and one PNG per figure and
``summary.md`` judging the paper's claims point by point. Every measured point is appended to
its CSV as soon as it is done, so a killed run loses nothing: running the same command again
(``--resume``, the default) skips the points already in the CSVs; ``--fresh`` starts over.
``--only``, ``--max-n``, ``--methods``, ``--ks`` and ``--ds`` restrict a run to some points (to measure
the cheap ones first); the points left out stay listed as missing in the summary.
``--summary-only`` redraws the figures and rewrites the summary from the CSVs.

Data: the IPUMS CENSUS extract is not available, so the CENSUS-schema generator
(``ktype.datasets.census``, Table 2 schema, independent skewed marginals) stands in; Fig. 8
is also run on the bundled Adult (first rows, its 8 demographic QIs). Every release goes
through the registry, i.e. it is verified by its model's independent checker before its GCP
(Eq. 3, data-range normalisation) is recorded. Methods: ``greedy``, ``sortgreedy``,
``hungarian`` (freeform, this paper), ``mip`` (optimum, tiny tables), ``mincostflow``,
``nh`` (ring reconstruction) and ``k-c`` (ktype's k-concealment, run without its
randomization as in the paper; its cells are hierarchy nodes, so its GCP counts the
leaves of each node). Each point records wall seconds, CPU seconds (process time, all
threads) and the 1-minute load average.

Fig. 6 runtimes: the paper runs one partition per machine and charges "time to partition +
time to process one partition, including extraction of the k random assignments" (§8.1);
NH gets the same parallelism budget (its partitioning + as many tuples as one Greedy
partition, 250). ``parallel_seconds`` emulates exactly that (the lexicographic sort of the
whole table + one run on the first partition's rows); ``seconds`` is the whole partitioned
run on this machine.

The paper's configuration is ``FULL``. The committed default (``RUN``) keeps every size and k
of the paper except where a method cannot finish on 2 shared cores before the deadline (the
per-point times are in the CSVs; the reductions are listed in ``REDUCED`` and in
``summary.md``). SortGreedy and Hungarian keep a dense m x m weight matrix (O(m^2) memory;
m = 64,000 would need 33 GB), so even ``FULL`` runs them unpartitioned only up to 16,000 rows.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from ktype.algorithms import get_algorithm
from ktype.algorithms.freeform import heuristics
from ktype.algorithms.freeform._prep import Problem
from ktype.data.bundled import load_adult
from ktype.datasets.synthetic import CENSUS_SCHEMA, census_dataset
from ktype.measures import gcp
from ktype.models.freeform import FreeformKAnonymity
from ktype.models.ktype_models import KConcealment

HERE = Path(__file__).resolve().parent
TABLE2 = list(CENSUS_SCHEMA)  # Table 2 order; the first d attributes for Fig. 9
FIGS = ("fig6", "fig7", "fig8", "fig9", "fig10")

ALGOS = {
    "greedy": ("freeform_greedy", {}),
    "sortgreedy": ("freeform_sortgreedy", {}),
    "hungarian": ("freeform_hungarian", {}),
    "mip": ("freeform_mip", {"time_limit": 900.0}),
    "mincostflow": ("freeform_mincostflow", {}),
    "nh": ("freeform_nh", {}),
    "k-c": ("k_concealment", {}),
}
DENSE = ("sortgreedy", "hungarian")
FREEFORM = ("greedy", "sortgreedy", "hungarian")
PRIOR = ("nh", "k-c")
#: §8.1 partition sizes (equal time budget per partition); NH's budget is one Greedy partition
PARTITION = {"greedy": 250, "sortgreedy": 150, "hungarian": 100, "nh": 250}

_K8 = [10, 30, 50, 100, 150]  # "k from 10 to 150" (grid not given)
_SIZES10 = [1000, 2000, 4000, 8000, 16000, 32000, 64000]
#: the paper's configuration (§8) plus Adult in Fig. 8, which the paper did not run (added here);
#: "max" = largest table a method runs on
FULL = {
    "fig6": {"sizes": [10000, 50000, 100000, 250000, 500000], "ks": [10, 30, 50]},
    "fig7": {"tables": 100, "ks": [2, 3, 4, 5, 6, 7], "runtime_sizes": [8, 10, 12, 14]},
    "fig8": {"sizes": [1000, 10000], "ks": _K8, "adult": [1000, 10000], "max": {"mincostflow": 1000}},
    "fig9": {"sizes": [10000], "ks": [30, 50], "ds": [2, 3, 4, 5, 6, 7, 8], "max": {}},
    "fig10": {"sizes": _SIZES10, "ks": [15, 50], "max": {"sortgreedy": 16000, "hungarian": 16000}},
}
#: the committed configuration: FULL minus what could not finish on 2 cores shared by 8 jobs
#: (load 14-40 during the run: ~0.1 CPU second per wall second) before the deadline (see REDUCED)
RUN = {
    "fig6": {"sizes": [10000, 50000], "ks": [10, 30]},
    "fig7": {"tables": 100, "ks": [2, 3, 4, 5, 6], "runtime_sizes": [8, 10, 12, 14]},
    "fig8": {
        "sizes": [1000, 10000],
        "ks": _K8,
        "adult": [1000],
        "max": {"sortgreedy": 1000, "hungarian": 1000, "mincostflow": 1000},
        "ks_at": {"mincostflow": [10, 30, 50], 10000: [10, 50, 150]},
    },
    "fig9": {
        "sizes": [1000, 10000],
        "ks": [30, 50],
        "ds": [2, 3, 4, 5, 6, 7, 8],
        "max": {"sortgreedy": 1000, "hungarian": 1000},
        "ds_at": {10000: [2, 4, 6, 8]},
    },
    "fig10": {
        "sizes": _SIZES10,
        "ks": [15, 50],
        "max": {"sortgreedy": 2000, "hungarian": 2000, "k-c": 16000},
        "greedy_max": {15: 32000, 50: 16000},
    },
}
#: the next step towards FULL (``--extended``): RUN plus the most valuable missing points, cheapest
#: per value first (Fig. 10 to 64,000 rows and dense methods to 8,000; Fig. 6 to 500,000 rows and
#: k = 50; Fig. 8 Adult 10,000 and every k on 10,000 rows; Fig. 9 every d on 10,000 rows; Fig. 7
#: k = 7). It resumes from the committed CSVs; its points not yet measured are listed in summary.md
EXTENDED = {
    "fig6": {"sizes": [10000, 50000, 100000, 250000, 500000], "ks": [10, 30, 50]},
    "fig7": {"tables": 100, "ks": [2, 3, 4, 5, 6, 7], "runtime_sizes": [8, 10, 12, 14]},
    "fig8": {
        "sizes": [1000, 10000],
        "ks": _K8,
        "adult": [1000, 10000],
        "max": {"sortgreedy": 1000, "hungarian": 1000, "mincostflow": 1000},
        "ks_at": {"mincostflow": [10, 30, 50]},
    },
    "fig9": {
        "sizes": [1000, 10000],
        "ks": [30, 50],
        "ds": [2, 3, 4, 5, 6, 7, 8],
        "max": {"sortgreedy": 1000, "hungarian": 1000},
    },
    "fig10": {"sizes": _SIZES10, "ks": [15, 50], "max": {"sortgreedy": 8000, "hungarian": 8000}},
}
#: what RUN leaves out of FULL, and why (per-point CPU times measured on this machine, idle-machine CPU)
REDUCED = [
    "The machine (2 cores) was shared by 8 jobs at load 14-40 during the run, so each of its two niced processes got ~0.08-0.1 CPU second per wall "
    "second: about 10-15 CPU minutes in the time left. `--full` runs the paper's configuration (its CPU cost per point "
    "is in the table below and in `benchmarks/results/freeform*.md`).",
    "Fig. 6: 10,000 and 50,000 rows, k = 10, 30 (paper: the full data, three k; the partitioned runs cost CPU time "
    "linear in n: SortGreedy P=150 on 1,000,000 rows, k = 10 = 70 CPU s).",
    "Fig. 7: k = 2..6 (k = 7 adds 1.6 CPU s of MIP per table); 100 tables as in the paper.",
    "Fig. 8: Adult at 1,000 rows only; 10,000 CENSUS rows at k = 10, 50, 150 and without SortGreedy/Hungarian "
    "(one unpartitioned iteration on 10,000 rows, measured: ~7 CPU s for Hungarian, ~8 CPU s at 2.6 GB peak for "
    "SortGreedy; k = 10..150 = 340 iterations, ~40 CPU min per method and data set); minCostFlow at k = 10, 30, 50 "
    "(an LP over 10^6 edge variables, ~10 CPU s per point).",
    "Fig. 9: SortGreedy and Hungarian on 1,000 rows (paper: the first 10,000); Greedy, NH and k-c on 1,000 rows "
    "(d = 2..8) and on 10,000 rows (d = 2, 4, 6, 8).",
    "Fig. 10: SortGreedy and Hungarian up to 2,000 rows; k-c up to 16,000; Greedy up to 32,000 rows at k = 15 and "
    "16,000 at k = 50 (exact Greedy on 64,000 rows: 95 CPU s at k = 15 on the idle machine, >600 s wall at k = 50 "
    "under load); NH at every size up to 64,000.",
]
#: what EXTENDED adds to RUN and still leaves out of FULL (estimates from the per-point CPU times in the CSVs)
EXTENDED_REDUCED = [
    "RUN's points (a run at load 14-40, then the idle machine, load ~1) plus the EXTENDED points that a third "
    "run measured as ONE process under `nice -n 15` while the 2 cores were shared at load 5-19 (it got 0.01-0.5 "
    "CPU second per wall second, ~9 CPU min in 107 min). The EXTENDED points it did not reach are listed below; "
    "`python experiments/freeform/run.py --extended` measures them (about 65 CPU min in all, estimated below).",
    "Fig. 6: EXTENDED adds 100,000, 250,000 and 500,000 rows and k = 50 (all four methods, ~0.14 / 0.6 / 1.1 CPU ms "
    "per row at k = 10 / 30 / 50: ~27 CPU min for the missing points).",
    "Fig. 7: EXTENDED adds k = 7 (the MIP takes ~1.6 CPU s per table: ~3 CPU min for the 100 tables).",
    "Fig. 8: EXTENDED adds Adult 10,000 and CENSUS 10,000 at every k for Greedy, NH and k-c (~4 CPU min); still "
    "without SortGreedy/Hungarian on 10,000 rows (~7-8 CPU s per matching iteration, 340 iterations per data set: "
    "~40 CPU min per method and data set, 2.6 GB peak) and minCostFlow beyond 1,000 rows (an LP over n^2 edge "
    "variables: 10^8 at 10,000 rows).",
    "Fig. 9: EXTENDED adds d = 3, 5, 7 on 10,000 rows for Greedy, NH and k-c (~2 CPU min); SortGreedy/Hungarian on "
    "10,000 rows would take 80 iterations x 7 d x ~7.5 CPU s = ~70 CPU min per method.",
    "Fig. 10: EXTENDED adds SortGreedy/Hungarian at 4,000 and 8,000 rows (4,000 rows, k = 15: 24 / 17 CPU s, "
    "k = 50: 153 / 90 CPU s; 8,000 rows, k = 50: est. ~500-600 CPU s each, ~1.7 GB) and Greedy and k-c up to "
    "64,000 rows (Greedy on 64,000 rows: 97 CPU s at k = 15, est. ~350 CPU s at k = 50). Not even in EXTENDED: the dense methods on "
    "16,000 rows (SortGreedy's peak grows as n^2: 2.6 GB at 10,000 rows, ~6.6 GB at 16,000, over the 6 GB cap; "
    "Hungarian ~50 CPU s per iteration, ~55 CPU min at k = 50).",
]
MEDIUM = {
    "fig6": {"sizes": [5000, 20000], "ks": [10, 30]},
    "fig7": {"tables": 8, "ks": [2, 3, 4, 5, 6], "runtime_sizes": [8, 10, 12]},
    "fig8": {"sizes": [600], "ks": [10, 30, 50, 100], "adult": [600], "max": {}},
    "fig9": {"sizes": [400], "ks": [30, 50], "ds": [2, 4, 6, 8], "max": {}},
    "fig10": {"sizes": [500, 1000], "ks": [15, 50], "max": {}},
}
QUICK = {
    "fig6": {"sizes": [1000, 2000], "ks": [10]},
    "fig7": {"tables": 4, "ks": [2, 3, 4], "runtime_sizes": [8, 10]},
    "fig8": {"sizes": [300], "ks": [10, 20], "adult": [300], "max": {}},
    "fig9": {"sizes": [300], "ks": [10], "ds": [2, 4, 8], "max": {}},
    "fig10": {"sizes": [250, 500], "ks": [5], "max": {"sortgreedy": 250, "hungarian": 250}},
}
TINY = {
    "fig6": {"sizes": [600], "ks": [5]},
    "fig7": {"tables": 2, "ks": [2, 3], "runtime_sizes": [8]},
    "fig8": {"sizes": [120], "ks": [5, 10], "adult": [120], "max": {}},
    "fig9": {"sizes": [120], "ks": [5], "ds": [2, 8], "max": {}},
    "fig10": {"sizes": [100, 200], "ks": [5], "max": {"sortgreedy": 100, "hungarian": 100}},
}
CONFIGS = {"tiny": TINY, "quick": QUICK, "medium": MEDIUM, "run": RUN, "extended": EXTENDED, "full": FULL}
#: columns of each figure's CSV (identifying columns first)
KEYS = {
    "fig6": ["n", "k", "method"],
    "fig7": ["table", "k", "method"],
    "fig7_runtime": ["n", "k", "method"],
    "fig8": ["data", "n", "k", "method"],
    "fig9": ["n", "d", "k", "method"],
    "fig10": ["n", "k", "method"],
}
VALUES = ["gcp", "seconds", "cpu_seconds", "load"]
#: the differences from the paper's setup, stated in the summary next to the claims they affect
SETUP_DIFFERENCES = [
    "**CENSUS data (Figs. 6-10, every claim but 3-5's tables).** The IPUMS extract is not available; "
    "`ktype.datasets.census` draws the eight Table 2 attributes **independently** of each other, each from a skewed "
    "marginal (no correlation between attributes, unlike real census data). Fig. 7's 14-tuple tables are drawn the same way.",
    "**Adult (Fig. 8; claims 1, 2, 10) is not in the paper**: the Adult panels (the bundled Adult's first 1,000 / "
    "10,000 rows, its 8 demographic QIs) are added here; the paper's Fig. 8 is CENSUS only.",
    "**The k-c baseline (claims 2, 3-5, 7, 8, 11)** is ktype's k-concealment without randomization, as in the paper. "
    "It can publish only nodes of each attribute's hierarchy: any interval of Age and Education Level, and for each "
    "categorical CENSUS attribute with more than 4 values, blocks of 4, 16, 64, ... consecutive values of the domain "
    "order (fan-out 4, `census_hierarchy`), then the whole domain; on Adult, the bundled ARX hierarchies. Its GCP counts "
    "the values under the published node. The freeform methods and NH publish any set of values. The paper does not "
    "say which generalizations its k-c allowed.",
    "**NH (claims 2, 6-8, 11)** is a reconstruction: ring generalization on segments of k..2k-1 rows of the same "
    "lexicographic order the freeform methods use, not Wong et al.'s own partitioning (claim 6b).",
]
#: the last difference; whether the sizes are equal time here is measured by ``repeat_timings.py`` (claim 6c)
PARTITION_NOTE = (
    "**Fig. 6's partition sizes (claim 6)** are the paper's (250 / 150 / 100), which it chose for equal time per "
    "partition on its machine. {measured} Fig. 6 was not re-run with re-tuned sizes."
)
#: repeated timings written by ``repeat_timings.py`` (read by the summary and the plots when present)
EXTRA_FILES = {
    "fig6_rep": "fig6_timing_repeats.csv",
    "partition": "partition_times.csv",
    "fig8_rep": "fig8_repeats.csv",
    "fig8_scipy": "fig8_scipy_matching.csv",
}
EXTRA = {"fig6": ["partition", "blocks", "parallel_seconds", "parallel_cpu_seconds"]}


class Planner:
    """Collect the keys of a configuration's points without running them (for the summary)."""

    planning = True
    max_n = None

    def __init__(self) -> None:
        self.keys: dict[str, list[tuple[str, ...]]] = {}

    def skip(self, n: int) -> bool:
        return False

    def point(self, fig: str, key: dict, fn: Callable[..., dict], *args, **kwargs) -> None:
        self.keys.setdefault(fig, []).append(tuple(str(key[c]) for c in KEYS[fig]))


def missing_points(cfg: dict, res: dict[str, pd.DataFrame]) -> dict[str, list[tuple[str, ...]]]:
    """The points of ``cfg`` not in the CSVs (a run stopped before they were measured)."""
    plan = Planner()
    for fig in FIGS:
        globals()[fig](cfg[fig], plan)
    out = {}
    for fig, keys in plan.keys.items():
        have = set()
        if fig in res:
            have = {tuple(str(v) for v in r) for r in res[fig][KEYS[fig]].itertuples(index=False)}
        miss = [k for k in keys if k not in have]
        if miss:
            out[fig] = miss
    return out


class Recorder:
    """Append each measured point to its figure's CSV at once; skip points already there."""

    def __init__(
        self,
        out: Path,
        resume: bool,
        max_n: int | None = None,
        methods: list[str] | None = None,
        ks: list[int] | None = None,
        ds: list[int] | None = None,
    ) -> None:
        self.out = out
        self.resume = resume
        self.max_n = max_n
        self.methods = set(methods) if methods else None
        self.ks = set(ks) if ks else None
        self.ds = set(ds) if ds else None
        self.done: dict[str, set[tuple[str, ...]]] = {}

    planning = False

    def skip(self, n: int) -> bool:
        """Points on ``n`` rows are left for a later run (``--max-n``)."""
        return self.max_n is not None and n > self.max_n

    def _cols(self, fig: str) -> list[str]:
        return KEYS[fig] + VALUES + EXTRA.get(fig, [])

    def _done(self, fig: str) -> set[tuple[str, ...]]:
        if fig not in self.done:
            path = self.out / f"{fig}.csv"
            keys: set[tuple[str, ...]] = set()
            if path.exists() and self.resume:
                df = pd.read_csv(path, dtype=str)
                if list(df.columns) != self._cols(fig):
                    raise SystemExit(
                        f"{path} has other columns than this version writes; use --fresh or another --out."
                    )
                keys = {tuple(r) for r in df[KEYS[fig]].itertuples(index=False)}
            elif path.exists():
                path.unlink()
            self.done[fig] = keys
        return self.done[fig]

    def point(self, fig: str, key: dict, fn: Callable[..., dict], *args, **kwargs) -> None:
        tkey = tuple(str(key[c]) for c in KEYS[fig])
        done = self._done(fig)
        if tkey in done or self.skip(int(key.get("n", 0))):
            return
        if (self.methods and key["method"] not in self.methods) or (self.ks and int(key["k"]) not in self.ks):
            return  # left for another run (--methods, --ks)
        if self.ds and "d" in key and int(key["d"]) not in self.ds:
            return  # left for another run (--ds: Fig. 9 only)
        row = {**key, **fn(*args, **kwargs), "load": round(os.getloadavg()[0], 2)}
        path = self.out / f"{fig}.csv"
        new = not path.exists()
        with path.open("a", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=self._cols(fig))
            if new:
                w.writeheader()
            w.writerow({c: row.get(c, "") for c in self._cols(fig)})
        done.add(tkey)
        print(
            f"{fig} "
            + " ".join(f"{c}={key[c]}" for c in KEYS[fig])
            + f" gcp={row['gcp']:.4f} cpu={row['cpu_seconds']:.2f}s",
            flush=True,
        )


def measure(method: str, ds, k: int, **options) -> dict:
    name, base = ALGOS[method]
    algo = get_algorithm(name)
    model = KConcealment(k) if method == "k-c" else FreeformKAnonymity(k)
    opts = {**base, **options}
    if method == "k-c":
        opts.setdefault("randomized", False)
    c0, t0 = time.process_time(), time.perf_counter()
    rel = algo.func(ds, model, rng=0, **opts)
    return {"gcp": gcp(rel), "seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0}


def _dense_ok(method: str, n: int, cap: dict) -> bool:
    return method not in cap or n <= cap[method]


def fig6(cfg: dict, rec: Recorder) -> None:
    """Partitioned runs (§8.1). ``parallel_seconds``: sort of the whole table + one partition."""
    for n in cfg["sizes"]:
        if rec.skip(n):
            continue
        ds = census_dataset(n, rng=1)
        c0, t0 = time.process_time(), time.perf_counter()
        order = None if rec.planning else Problem.from_dataset(ds).order  # the partitioning: one lexicographic sort
        sort_wall, sort_cpu = time.perf_counter() - t0, time.process_time() - c0
        for k in cfg["ks"]:
            for m in ("greedy", "sortgreedy", "hungarian", "nh"):
                rec.point("fig6", {"n": n, "k": k, "method": m}, _partitioned, m, ds, k, order, sort_wall, sort_cpu)


def _partitioned(m: str, ds, k: int, order: np.ndarray, sort_wall: float, sort_cpu: float) -> dict:
    P = PARTITION[m]
    r = measure(m, ds, k, **({} if m == "nh" else {"partition_size": P}))
    one = measure(m, ds.subset(np.sort(order[:P])), k)  # the first partition of the lexicographic order
    return {
        **r,
        "partition": P if m != "nh" else f"{k}..{2 * k - 1} (budget {P})",
        "blocks": ds.n // P if m != "nh" else ds.n // k,
        "parallel_seconds": sort_wall + one["seconds"],
        "parallel_cpu_seconds": sort_cpu + one["cpu_seconds"],
    }


def fig7(cfg: dict, rec: Recorder) -> None:
    for t in range(cfg["tables"]):
        ds = census_dataset(14, rng=1000 + t)
        for k in cfg["ks"]:
            for m in ("mip", "greedy", "sortgreedy", "hungarian", "mincostflow", "nh", "k-c"):
                rec.point("fig7", {"table": t, "k": k, "method": m}, measure, m, ds, k)
    for n in cfg["runtime_sizes"]:
        ds = census_dataset(n, rng=7)
        k = min(6, (n + 2) // 2)
        for m in ("mip", "greedy", "sortgreedy", "hungarian", "nh", "k-c"):
            rec.point("fig7_runtime", {"n": n, "k": k, "method": m}, measure, m, ds, k)


def fig8(cfg: dict, rec: Recorder) -> None:
    sets = sorted([("census", n) for n in cfg["sizes"]] + [("adult", n) for n in cfg["adult"]], key=lambda s: s[1])
    for data, n in sets:
        if rec.skip(n):
            continue
        ds = census_dataset(n, rng=2) if data == "census" else load_adult(n=n)
        for k in cfg["ks"]:
            if k > (ds.n + 2) // 2:
                continue
            if k not in cfg.get("ks_at", {}).get(n, [k]):
                continue
            for m in ("greedy", "sortgreedy", "hungarian", "nh", "k-c", "mincostflow"):
                if not _dense_ok(m, n, cfg["max"]) or k not in cfg.get("ks_at", {}).get(m, [k]):
                    continue
                rec.point("fig8", {"data": data, "n": n, "k": k, "method": m}, measure, m, ds, k)


def fig9(cfg: dict, rec: Recorder) -> None:
    for n in cfg["sizes"]:
        if rec.skip(n):
            continue
        for d in cfg.get("ds_at", {}).get(n, cfg["ds"]):
            ds = census_dataset(n, rng=3, quasi_identifiers=TABLE2[:d])
            for k in cfg["ks"]:
                for m in ("greedy", "sortgreedy", "hungarian", "nh", "k-c"):
                    if _dense_ok(m, n, cfg["max"]):
                        rec.point("fig9", {"n": n, "d": d, "k": k, "method": m}, measure, m, ds, k)


def fig10(cfg: dict, rec: Recorder) -> None:
    for n in cfg["sizes"]:
        if rec.skip(n):
            continue
        ds = census_dataset(n, rng=4)
        for k in cfg["ks"]:
            for m in ("greedy", "sortgreedy", "hungarian", "nh", "k-c"):
                if _dense_ok(m, n, cfg["max"]) and (m != "greedy" or n <= cfg.get("greedy_max", {}).get(k, n)):
                    rec.point("fig10", {"n": n, "k": k, "method": m}, measure, m, ds, k)


def derive(res: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Derived columns: Fig. 6 runtime ratios to NH, Fig. 7 gain, Fig. 9 slope."""
    if "fig6" in res:
        df = res["fig6"].copy()
        nh = df[df.method == "nh"].set_index(["n", "k"])
        idx = list(zip(df.n, df.k))
        df["runtime_ratio_to_nh"] = [s / nh["seconds"].get(i, np.nan) for s, i in zip(df.seconds, idx)]
        df["parallel_ratio_to_nh"] = [
            s / nh["parallel_seconds"].get(i, np.nan) for s, i in zip(df.parallel_seconds, idx)
        ]
        res["fig6"] = df
    if "fig7" in res:
        df = res["fig7"]
        avg = df.groupby(["k", "method"])["gcp"].mean().unstack()
        gain = avg.apply(lambda col: (avg["k-c"] - col) / (avg["k-c"] - avg["mip"]))
        g = gain.stack().rename("gain").reset_index()
        res["fig7"] = df.drop(columns=[c for c in ("gain",) if c in df]).merge(g, on=["k", "method"])
    if "fig9" in res:
        df = res["fig9"].copy()
        dmin = df.d.min()
        g2 = df[df.d == dmin].set_index(["n", "method", "k"])["gcp"]
        df["slope"] = [
            (r.gcp - g2.get((r.n, r.method, r.k), np.nan)) / (r.d - dmin) if r.d > dmin else np.nan
            for r in df.itertuples()
        ]
        res["fig9"] = df
    return res


# ---------------------------------------------------------------------------- plots
#: one colour and marker per method in every panel and figure
METHOD_STYLE = {
    "greedy": ("tab:blue", "o"),
    "sortgreedy": ("tab:orange", "s"),
    "hungarian": ("tab:green", "^"),
    "mip": ("black", "*"),
    "mincostflow": ("tab:purple", "D"),
    "nh": ("tab:red", "v"),
    "k-c": ("tab:brown", "x"),
}
LABELS = {
    "greedy": "Greedy",
    "sortgreedy": "SortGreedy",
    "hungarian": "Hungarian",
    "mip": "MIP (optimum)",
    "mincostflow": "minCostFlow",
    "nh": "NH",
    "k-c": "k-c",
}
AXIS = {
    "gcp": "GCP",
    "cpu_seconds": "CPU seconds",
    "n": "rows (n)",
    "d": "attributes (d)",
    "slope": "(GCP(d) - GCP(2)) / (d - 2)",
    "gain": "share of k-c -> optimum gap closed",
    "parallel_ratio_to_nh": "runtime / NH",
    "cpu_median": "CPU time / NH's",
}


def _plot(
    df: pd.DataFrame,
    x: str,
    y: str,
    path: Path,
    *,
    by: str = "k",
    logx: bool = False,
    logy: bool = False,
    title: str = "",
    band: tuple[str, str] | None = None,
    ghost: pd.DataFrame | None = None,
    ghost_label: str = "",
    xticks: list | None = None,
    hline: float | None = None,
    note: str = "",
) -> None:
    """One panel per value of ``by``; ``band`` = (min column, max column) drawn as error bars; ``ghost``
    rows (same columns) drawn as hollow markers without lines (e.g. single timings next to repeated ones)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = sorted(df[by].unique())
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels) + 1.6, 3.4), squeeze=False)
    handles: dict[str, object] = {}
    for ax, val in zip(axes[0], panels):
        sub = df[df[by] == val]
        for m in sorted(sub.method.unique(), key=list(METHOD_STYLE).index):
            part = sub[sub.method == m]
            g = part.groupby(x)[y].mean()
            color, marker = METHOD_STYLE[m]
            (handles[m],) = ax.plot(g.index, g.values, marker=marker, color=color, label=LABELS.get(m, m))
            if band is not None:
                lo, hi = part.groupby(x)[band[0]].mean(), part.groupby(x)[band[1]].mean()
                ax.errorbar(
                    g.index,
                    g.values,
                    yerr=[g.values - lo.values, hi.values - g.values],
                    fmt="none",
                    ecolor=color,
                    capsize=3,
                    lw=1,
                )
            if ghost is not None:
                gh = ghost[(ghost[by] == val) & (ghost.method == m)]
                if len(gh):
                    (handles["_ghost"],) = ax.plot(
                        gh[x], gh[y], ls="none", marker=marker, mfc="none", mec=color, ms=9, label=ghost_label
                    )
        ax.set_title(f"{title} ({val})" if by != "k" else f"{title} (k = {val})", fontsize=10)
        ax.set_xlabel(AXIS.get(x, x))
        ax.set_ylabel(AXIS.get(y, y))
        if logx:
            ax.set_xscale("log")
        if logy:
            ax.set_yscale("log")
        if xticks is not None:
            ax.set_xticks(xticks)
            ax.set_xticks([], minor=True)
            ax.set_xticklabels([f"{t:,}" for t in xticks])
        if hline is not None:
            ax.axhline(hline, color="grey", lw=0.8, ls="--")
    order = [m for m in METHOD_STYLE if m in handles]
    hs, labels = [handles[m] for m in order], [LABELS.get(m, m) for m in order]
    if "_ghost" in handles:
        hs.append(handles["_ghost"])
        labels.append(ghost_label)
    fig.legend(hs, labels, loc="center right", fontsize=8)
    bottom = 0.0
    if note:
        fig.text(0.01, 0.01, note, fontsize=7.5, ha="left", va="bottom", wrap=True)
        bottom = 0.1
    fig.tight_layout(rect=(0, bottom, 1 - 1.6 / fig.get_figwidth(), 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------------------- summary
def _order(df: pd.DataFrame, keys: list[str]) -> tuple[int, int, int, list[str]]:
    """Configurations (where all three ran) with Hungarian <= SortGreedy <= Greedy in GCP."""
    piv = df[df.method.isin(FREEFORM)].pivot_table(index=keys, columns="method", values="gcp").dropna()
    hs = piv["hungarian"] <= piv["sortgreedy"] + 1e-12
    sg = piv["sortgreedy"] <= piv["greedy"] + 1e-12
    bad = [
        ", ".join(f"{c}={v}" for c, v in zip(keys, i if isinstance(i, tuple) else (i,))) for i in piv.index[~(hs & sg)]
    ]
    return int(hs.sum()), int(sg.sum()), len(piv), bad


def _improvement(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Best freeform GCP vs best prior (NH, k-c) GCP, in % of the prior's."""
    piv = df.pivot_table(index=keys, columns="method", values="gcp")
    ours = piv[[c for c in FREEFORM if c in piv]].min(axis=1)
    prior = piv[[c for c in PRIOR if c in piv]].min(axis=1)
    keep = ours.notna() & piv["nh"].notna() & piv["k-c"].notna()  # points where every method ran
    piv, ours, prior = piv[keep], ours[keep], prior[keep]
    out = ((prior - ours) / prior * 100).rename("improvement_pct").to_frame()
    out["vs_nh"] = (piv["nh"] - ours) / piv["nh"] * 100
    out["vs_kc"] = (piv["k-c"] - ours) / piv["k-c"] * 100
    return out.reset_index()


def _values(col: pd.Series) -> str:
    v = sorted({int(x) for x in col})
    return ", ".join(map(str, v)) if len(v) <= 7 else f"{v[0]}..{v[-1]}, {len(v)} values"


def _cpu_table(res: dict) -> list[str]:
    L = ["| figure | method | points | CPU s total | CPU s largest point | at |", "|---|---|---|---|---|---|"]
    for fig, df in res.items():
        for m, g in df.groupby("method"):
            top = g.loc[g.cpu_seconds.idxmax()]
            at = ", ".join(f"{c}={top[c]}" for c in KEYS[fig] if c != "method")
            L.append(f"| {fig} | {m} | {len(g)} | {g.cpu_seconds.sum():.2f} | {top.cpu_seconds:.2f} | {at} |")
    return L


def fig6_ratios(rep: pd.DataFrame) -> pd.DataFrame:
    """Per (n, k, method): the runtime with one partition per machine over NH's, within each repeat
    (CPU and wall), as median, min and max over the repeats."""
    nh = rep[rep.method == "nh"].set_index(["n", "k", "repeat"])
    own = rep[rep.method != "nh"].set_index(["n", "k", "repeat"])
    r = pd.DataFrame(
        {
            "method": own["method"],
            "cpu": own["parallel_cpu_seconds"] / nh["parallel_cpu_seconds"].reindex(own.index).to_numpy(),
            "wall": own["parallel_seconds"] / nh["parallel_seconds"].reindex(own.index).to_numpy(),
        }
    ).reset_index()
    g = r.groupby(["n", "k", "method"])
    out = g[["cpu", "wall"]].median().add_suffix("_median")
    out = out.join(g[["cpu", "wall"]].min().add_suffix("_min")).join(g[["cpu", "wall"]].max().add_suffix("_max"))
    out["repeats"] = g.size()
    return out.reset_index()


def equal_time(pt: pd.DataFrame) -> pd.DataFrame:
    """One partition's CPU time per (method, P, k), median over blocks and repeats, and its ratio to Greedy at P=250."""
    med = pt.groupby(["method", "P", "k"])["cpu_seconds"].median().rename("cpu").reset_index()
    g = med[(med.method == "greedy") & (med.P == PARTITION["greedy"])].set_index("k")["cpu"]
    med["ratio_to_greedy"] = med["cpu"] / med["k"].map(g)
    return med


def _fig6_time(f6: pd.DataFrame, rep: pd.DataFrame | None, pt: pd.DataFrame | None) -> list[str]:
    """Claim 6b: the runtime ratio to NH (one partition per machine) and whether the partition sizes are equal time."""
    single = f6[f6.method != "nh"]
    below1 = int((single.parallel_ratio_to_nh < 1).sum())
    text = (
        "6b. **Runtime with one partition per machine (the sort of the whole table + one partition): our methods approach "
        "and eventually surpass NH's as the data grow** (Fig. 6d-f). The first measurement, one timing per point (wall "
        f"seconds, {single.parallel_seconds.min():.2f}-{single.parallel_seconds.max():.2f} s): ratio to NH below 1 at "
        f"{below1}/{len(single)} points."
    )
    verdict = f"surpasses NH at {below1}/{len(single)} single timings (not repeated)"
    if rep is not None and len(rep):
        fr = fig6_ratios(rep)
        reps = int(fr.repeats.min())
        loads = rep["load"]
        cb, wb = int((fr.cpu_median < 1).sum()), int((fr.wall_median < 1).sum())
        cross = int(((fr.cpu_min < 1) & (fr.cpu_max >= 1)).sum())
        top = fr[fr.n == fr.n.max()]
        text += (
            f" Repeated {reps}× per point (load {loads.min():.1f}-{loads.max():.1f}; `fig6_timing_repeats.csv`; "
            "the figure plots the median CPU ratio with min-max bars): median CPU ratio below 1 at "
            f"{cb}/{len(fr)} points ("
            + ", ".join(f"{r.method} n={r.n} k={r.k}: {r.cpu_median:.2f}" for r in fr[fr.cpu_median < 1].itertuples())
            + f"), median wall ratio below 1 at {wb}/{len(fr)}; the CPU ratio's range crosses 1 at "
            f"{cross}/{len(fr)}. Median CPU ratio at n = {int(fr.n.max()):,}: "
            + ", ".join(
                f"{r.method} k={r.k} {r.cpu_median:.2f} [{r.cpu_min:.2f}, {r.cpu_max:.2f}]" for r in top.itertuples()
            )
            + ". The ratio falls towards 1 as n grows because the sort of the whole table, which all methods share, "
            "dominates; our NH reconstruction partitions with the same sort, not with Wong et al.'s more demanding scheme."
        )
        verdict = "approaches 1 — holds; surpasses NH — " + (
            "does not hold" if cb == 0 else f"at {cb}/{len(fr)} points (median CPU ratio)"
        )
    L = [text + f" **Verdict: {verdict}**."]
    if pt is not None and len(pt):
        et = equal_time(pt)
        g = et[(et.method == "greedy") & (et.P == PARTITION["greedy"])].set_index("k")["cpu"]
        parts = []
        for m in ("sortgreedy", "hungarian"):
            sub = et[et.method == m]
            paper = sub[sub.P == PARTITION[m]].set_index("k")["ratio_to_greedy"]
            eq = []
            for k, gk in sub.groupby("k"):
                gk = gk.sort_values("P")
                x, y = gk.P.to_numpy(float), gk.ratio_to_greedy.to_numpy()
                if (y >= 1).any() and (y < 1).any():
                    i = int(np.argmax(y >= 1))
                    p_eq = x[i - 1] + (1 - y[i - 1]) * (x[i] - x[i - 1]) / (y[i] - y[i - 1]) if i else x[0]
                    eq.append(f"k={k} P≈{p_eq:.0f}")
                else:
                    eq.append(f"k={k} P>{int(x.max())}" if (y < 1).all() else f"k={k} P<{int(x.min())}")
            parts.append(
                f"{m} P={PARTITION[m]}: "
                + ", ".join(f"k={k} {v:.2f}×" for k, v in paper.items())
                + " of Greedy's time (equal time at "
                + ", ".join(eq)
                + ")"
            )
        nblk, nrep = pt.block.nunique(), pt.repeat.nunique()
        L.append(
            "6c. **Are the paper's partition sizes equal time here?** One partition's CPU time (median over "
            f"{nblk} partitions spread over the lexicographic order of a {int(pt.n.iloc[0]):,}-row table × {nrep} repeats, "
            f"load {pt.load.min():.1f}-{pt.load.max():.1f}; `partition_times.csv`): Greedy P=250 "
            + ", ".join(f"k={k} {v * 1000:.1f} ms" for k, v in g.items())
            + "; "
            + "; ".join(parts)
            + ". **Verdict: not equal time on this implementation**; the GCPs of claim 6 use the paper's sizes, so "
            "they compare the methods at these time ratios, and Fig. 6 was not re-run with re-tuned sizes."
            if any("×" in p for p in parts)
            else ""
        )
    return L


def _fig8_repeats(f8: pd.DataFrame, rep: pd.DataFrame, scipy_m: pd.DataFrame | None) -> list[str]:
    """Claim 12 (not the paper's): the Fig. 8 timings that stand out of their curves, re-run with the current code."""
    keys = ["data", "n", "k", "method"]
    first = f8.set_index(keys)
    parts, same = [], True
    for key, g in rep.groupby(keys):
        if key not in first.index:
            continue
        f = first.loc[key]
        same &= bool((g.gcp - f.gcp).abs().max() < 1e-12)
        parts.append(
            f"{key[0]} n={key[1]} k={key[2]} {key[3]}: first {f.cpu_seconds:.2f} CPU s (load {f.load:.1f}), "
            f"re-run {g.cpu_seconds.median():.2f} CPU s"
            + (f" (median of {len(g)}, {g.cpu_seconds.min():.2f}-{g.cpu_seconds.max():.2f})" if len(g) > 1 else "")
            + (f" at load {g.load.min():.1f}-{g.load.max():.1f}" if len(g) > 1 else f" at load {g.load.iloc[0]:.1f}")
        )
    text = (
        "12. **Fig. 8's runtime outliers** (not a claim of the paper; `fig8_repeats.csv`, re-run with the current code, "
        f"commit {rep['commit'].iloc[0]}): "
        + "; ".join(parts)
        + f". Same GCP as the first run: {'yes, every re-run' if same else 'NO'}. Re-run, each point lies on its curve. "
        "The first SortGreedy points on CENSUS 10,000 rows (k = 10, 30) were measured in the session in which "
        "SortGreedy's scan was rewritten (the same graphs, 3.1-3.4× faster), the later k after them."
    )
    if scipy_m is not None and len(scipy_m):
        sm = scipy_m.pivot_table(index="k", columns="matching", values="cpu_seconds")
        text += (
            " The first Greedy point on Adult 1,000 rows, k = 100 (19.19 CPU s on the idle machine) predates ktype's own "
            "maximum bipartite matching; with scipy's patched back in (`fig8_scipy_matching.csv`) it takes "
            + ", ".join(f"k = {k}: {r['scipy']:.2f} s (ktype's: {r['ktype']:.2f} s)" for k, r in sm.iterrows())
            + ", so the matching was not the cause; the first measurement is not reproduced, and its cause is unknown."
        )
    return [text + " fig8_runtime.png plots the re-runs' median and marks the first measurement hollow."]


def _fig9_slopes(f9: pd.DataFrame) -> list[str]:
    """Claim 7, judged on the whole slope curve: the order of the slopes at every d > 2 of every (n, k)."""
    piv = f9.pivot_table(index=["n", "k", "d"], columns="method", values="slope").dropna(how="all")
    if piv.empty or not all(m in piv for m in PRIOR):
        return []
    ff = [m for m in FREEFORM if m in piv]
    dense = [m for m in DENSE if m in piv]
    tot = len(piv)
    steep = piv.apply(lambda r: list(r.dropna().sort_values(ascending=False).index), axis=1)
    kc_first = steep.map(lambda o: o[0] == "k-c")
    nh_second = steep.map(lambda o: len(o) > 1 and o[1] == "nh")
    both = kc_first & nh_second
    first = steep.map(lambda o: o[0]).value_counts()
    flatter = piv[ff].max(axis=1) < piv[list(PRIOR)].min(axis=1)  # all three freeform flatter than both priors
    robust = piv[dense].min(axis=1) <= piv[ff].min(axis=1) + 1e-12 if dense else pd.Series(False, index=piv.index)

    def where(mask: pd.Series) -> str:
        parts = []
        for (n, k), g in mask[mask].groupby(level=["n", "k"]):
            parts.append(f"n={n} k={k}: d = {_values(pd.Series(g.index.get_level_values('d')))}")
        return "; ".join(parts) if parts else "nowhere"

    ex = []
    for (n, k), g in piv.groupby(level=["n", "k"]):
        for d in (g.index.get_level_values("d").min(), g.index.get_level_values("d").max()):
            row = piv.loc[(n, k, d)].dropna().sort_values(ascending=False)
            ex.append(f"n={n} k={k} d={d}: " + ", ".join(f"{m} {v:.4f}" for m, v in row.items()))
    verdict = lambda c: "holds" if c == tot else "does not hold" if c == 0 else f"holds at {c}/{tot}"  # noqa: E731
    return [
        "7. **k-c degrades worst with d, NH second; the three freeform methods more robust, SortGreedy and Hungarian "
        "the best** (Fig. 9, slope = (GCP(d) − GCP(2)) / (d − 2), judged at every d = 3..8 of every (n, k), "
        f"{tot} (n, k, d) in all). Steepest method: "
        + ", ".join(f"{m} at {c}/{tot}" for m, c in first.items())
        + f". k-c steepest at {int(kc_first.sum())}/{tot} ({where(kc_first)}); NH second steepest at "
        f"{int(nh_second.sum())}/{tot}; both at {int(both.sum())}/{tot} ({where(both)}). All three freeform methods "
        f"flatter than both NH and k-c at {int(flatter.sum())}/{tot} ({where(flatter)}). SortGreedy or Hungarian "
        f"the flattest freeform method at {int(robust.sum())}/{tot} ({where(robust)}); elsewhere Greedy, whose GCP is "
        "already high at d = 2, grows least. Slopes (steepest first) at the smallest and largest d: "
        + "; ".join(ex)
        + ". **Verdict: k-c worst — "
        + verdict(int(kc_first.sum()))
        + "; NH second — "
        + verdict(int(nh_second.sum()))
        + "; freeform methods more robust — "
        + verdict(int(flatter.sum()))
        + "; SortGreedy/Hungarian the most robust freeform methods — "
        + verdict(int(robust.sum()))
        + "**."
    ]


def _fig9_levels(f9: pd.DataFrame) -> list[str]:
    """Claim 11 (§8.4): "not only do our three algorithms achieve better GCP than the competing NH and k-c
    methods" -- each freeform method against the best prior method at every (n, k, d) of Fig. 9."""
    piv = f9.pivot_table(index=["n", "k", "d"], columns="method", values="gcp")
    ff = [m for m in FREEFORM if m in piv]
    if len(ff) < len(FREEFORM) or not all(m in piv for m in PRIOR):
        return []
    piv = piv.dropna(subset=[*FREEFORM, *PRIOR])
    prior = piv[list(PRIOR)].min(axis=1)
    tot = len(piv)
    big = piv.index.get_level_values("n") == piv.index.get_level_values("n").max()
    nbig = int(piv.index.get_level_values("n").max())
    all3 = piv[ff].max(axis=1) < prior
    best = piv[ff].min(axis=1) < prior
    each = {m: piv[m] < prior for m in ff}

    def where(mask: pd.Series) -> str:
        parts = []
        for (n, k), g in mask[mask].groupby(level=["n", "k"]):
            parts.append(f"n={n} k={k}: d = {_values(pd.Series(g.index.get_level_values('d')))}")
        return "; ".join(parts) if parts else "nowhere"

    rel = (piv[ff].min(axis=1) - prior)[~best]
    worst = ""
    if len(rel):
        t = rel.idxmax()
        worst = (
            f"; where a prior method is lower than the best freeform method, by at most {rel.max():.4f} GCP "
            f"(n={t[0]} k={t[1]} d={t[2]}: {piv.loc[t, ff].min():.4f} vs {prior[t]:.4f})"
        )
    ratio = (piv["greedy"] / piv["k-c"])[big]
    few = ratio[(ratio.index.get_level_values("d") >= 3) & (ratio.index.get_level_values("d") <= 5)]
    by_d = few.groupby(level="d").agg(["min", "max"])
    d2 = ratio[ratio.index.get_level_values("d") == 2]
    at2 = big & (piv.index.get_level_values("d") == 2)
    g2, c2 = piv.loc[at2, "greedy"], piv.loc[at2, "k-c"]
    winners = sorted(set(piv.loc[best, ff].astype(float).idxmin(axis=1)))
    v = lambda mask: f"{int(mask.sum())}/{tot} ({int(mask[big].sum())}/{int(big.sum())} on n={nbig})"  # noqa: E731
    return [
        "11. **Not only do the three freeform algorithms achieve better GCP than NH and k-c, they also resist the "
        "curse of dimensionality better** (§8.4, Fig. 9 GCP panel; claim 7 judges the second half). All three "
        f"freeform methods below both NH and k-c at {v(all3)} (n, k, d): {where(all3)}. Each method alone: "
        + ", ".join(f"{m} {v(mk)}" for m, mk in each.items())
        + f"; the best of the three {v(best)}{worst}. Greedy's GCP over k-c's on n={nbig}, d = 3-5: "
        + ", ".join(f"d = {d}: {r['min']:.1f}-{r['max']:.1f}×" for d, r in by_d.iterrows())
        + (
            f" (d = 2: {d2.min():.0f}-{d2.max():.0f}×, Greedy {g2.min():.4f}-{g2.max():.4f} vs k-c {c2.min():.4f}-{c2.max():.4f})"
            if len(d2)
            else ""
        )
        + ". **Verdict: "
        + (
            "holds"
            if int(all3.sum()) == tot
            else "does not hold"
            if not int(all3.sum())
            else f"holds for all three methods at {int(all3.sum())}/{tot} only"
        )
        + f"; for the best of the three ({' / '.join(winners)}) at {int(best.sum())}/{tot}**."
    ]


def _disagreements(lines: list[str]) -> list[str]:
    """The claims whose verdict is not a plain "holds", one line each (numbers: in the claim)."""
    out = []
    for line in lines:
        num = line.split(".")[0]
        if "Verdict" not in line or not num.rstrip("abc").isdigit():
            continue
        verdict = line[line.index("Verdict") :].strip("*: ")
        if re.search(r"partly|does not hold|holds at|holds in|holds for .* only|not equal|— at \d", verdict):
            title = line.split("**")[1] if line.count("**") >= 2 else line[:60]
            out.append(f"- claim {num}, {title}: {verdict.replace('**', '')}")
    if not out:
        return []
    return ["", "## Where this reproduction disagrees with the paper (numbers in the claims above)", ""] + out


def summary(res: dict, label: str, pngs: list[str], missing: dict | None = None, extra: dict | None = None) -> str:
    extra = extra or {}
    L = ["# Freeform generalization experiments (Doka et al. 2015, §8) — summary", ""]
    loads = pd.concat([df["load"] for df in res.values()]) if res else pd.Series(dtype=float)
    cpu = sum(df.cpu_seconds.sum() for df in res.values())
    L.append(
        f"Configuration: **{label}**; synthetic CENSUS-schema data (the IPUMS extract is not available) and bundled "
        "Adult for Fig. 8. GCP = Eq. 3 with data-range normalisation; every release verified by its model's "
        f"independent checker before its GCP was recorded. Machine: {os.cpu_count()} CPUs shared with other jobs; "
        f"1-minute load during the points {loads.min():.1f}-{loads.max():.1f} (median {loads.median():.1f}), so wall "
        f"times are pessimistic: CPU seconds (process time) are reported beside them. Total CPU time of the points: "
        f"{cpu / 60:.1f} min."
    )
    L.append("")
    L += ["## Where this setup differs from the paper's (each difference names the claims it affects)", ""]
    L += [f"- {x}" for x in SETUP_DIFFERENCES]
    pt = extra.get("partition")
    if pt is not None and len(pt):
        r = equal_time(pt).set_index(["method", "P", "k"])["ratio_to_greedy"]
        measured = (
            "Here they are not equal time: one partition takes "
            + "; ".join(
                f"{m} P={PARTITION[m]} {r.xs((m, PARTITION[m]), level=('method', 'P')).min():.2f}-"
                f"{r.xs((m, PARTITION[m]), level=('method', 'P')).max():.2f}× Greedy's CPU time at P=250 (over k)"
                for m in DENSE
            )
            + " (claim 6c)."
        )
    else:
        measured = "Whether they are equal time on this implementation is not measured here."
    L.append("- " + PARTITION_NOTE.format(measured=measured))
    L.append("")
    if label.startswith(("run", "extended")):
        L += ["## What is reduced from the paper's configuration (`--full` runs it all)", ""]
        L += [f"- {r}" for r in REDUCED]
        L.append("")
    if label.startswith("extended"):
        L += ["## What the extended configuration adds, and what it still leaves out", ""]
        L += [f"- {r}" for r in EXTENDED_REDUCED]
        L.append("")
    if missing:
        L += ["## Points of this configuration not measured (the run was stopped; the same command resumes them)", ""]
        for fig, keys in missing.items():
            df = pd.DataFrame(keys, columns=KEYS[fig])
            size = "table" if fig == "fig7" else "n"
            parts = [f"{m} {len(g)} ({size} = {_values(g[size])})" for m, g in df.groupby("method", sort=False)]
            L.append(f"- {fig}: {len(keys)} points: " + "; ".join(parts))
        L.append("")
    L += ["## The paper's claims, point by point", ""]
    f6, f7, f8, f9, f10 = (res.get(f) for f in FIGS)
    # claim 1: utility order
    parts, tot_all, ok_all = [], 0, 0
    for fig, df, keys in (
        ("Fig. 8", f8, ["data", "n", "k"]),
        ("Fig. 9", f9, ["n", "d", "k"]),
        ("Fig. 10", f10, ["n", "k"]),
    ):
        if df is None:
            continue
        hs, sg, tot, bad = _order(df, keys)
        tot_all += tot
        ok_all += tot - len(bad)
        parts.append(
            f"{fig}: Hungarian ≤ SortGreedy in {hs}/{tot}, SortGreedy ≤ Greedy in {sg}/{tot}"
            + (f" (violated at {'; '.join(bad)})" if bad else "")
        )
    if parts:
        verdict = (
            "holds"
            if ok_all == tot_all
            else "holds in most configurations, not all"
            if ok_all >= tot_all / 2
            else "does not hold"
        )
        L.append(
            "1. **Hungarian ≥ SortGreedy ≥ Greedy in utility** (unpartitioned runs). "
            + "; ".join(parts)
            + f". **Verdict: {verdict}** ({ok_all}/{tot_all})."
        )
    # claim 2: improvement over prior work grows with k, up to 41%
    if f8 is not None:
        imp = _improvement(f8, ["data", "n", "k"])
        best = imp.loc[imp.improvement_pct.idxmax()]
        parts = []
        grows = []
        for (data, n), g in imp.groupby(["data", "n"]):
            g = g.sort_values("k")
            parts.append(
                f"{_set_label(data, n)}: "
                + ", ".join(
                    f"k={int(r.k)} {r.improvement_pct:.0f}% (vs NH {r.vs_nh:.0f}%, vs k-c {r.vs_kc:.0f}%)"
                    for r in g.itertuples()
                )
            )
            grows.append(g.improvement_pct.iloc[-1] > g.improvement_pct.iloc[0])
        L.append(
            "2. **GCP gain over prior work widens as k grows, up to 41%** (Fig. 8; best freeform vs best of NH, k-c). "
            + "; ".join(parts)
            + f". Maximum {best.improvement_pct:.0f}% ({best.data}, n={int(best.n)}, k={int(best.k)}). "
            + f"Gain larger at the largest k than at the smallest in {sum(grows)}/{len(grows)} data sets. **Verdict: "
            + (
                "holds"
                if all(grows) and best.improvement_pct >= 35
                else "partly: "
                + ("the gain widens with k" if all(grows) else "the gain does not widen with k everywhere")
                + (f", maximum {best.improvement_pct:.0f}% vs the paper's 41%" if best.improvement_pct < 35 else "")
            )
            + "**."
        )
    if f7 is not None:
        g = f7.groupby(["k", "method"])["gcp"].mean().unstack()
        gain = f7.groupby(["k", "method"])["gain"].first().unstack()
        per = f7.pivot_table(index=["table", "k"], columns="method", values="gcp")
        ks = sorted(g.index)
        eq2 = (
            int(((per.xs(2, level="k")["mincostflow"] - per.xs(2, level="k")["mip"]).abs() < 1e-9).sum())
            if 2 in ks
            else 0
        )
        ntab = f7["table"].nunique()
        above = {
            int(k): int((per.xs(k, level="k")["mincostflow"] > per.xs(k, level="k")["mip"] + 1e-9).sum())
            for k in ks
            if k > 2
        }
        L.append(
            f"3. **minCostFlow is optimal at k = 2 and worse for larger k** (Fig. 7, {ntab} random 14-tuple tables, k = {ks[0]}..{ks[-1]}). "
            f"At k = 2 minCostFlow equals the MIP optimum on {eq2}/{ntab} tables; it is above the optimum on "
            + ", ".join(f"{v}/{ntab} tables at k = {k}" for k, v in above.items())
            + ". Gain (fraction of the k-c → optimum gap closed, from averaged GCPs) per k: "
            + "; ".join(
                f"k={int(k)}: "
                + ", ".join(
                    f"{m} {gain.loc[k, m]:.3f}" for m in ("hungarian", "sortgreedy", "greedy", "mincostflow", "nh")
                )
                for k in gain.index
            )
            + f". **Verdict: {'holds' if eq2 == ntab and all(v > 0 for v in above.values()) else 'partly'}**."
        )
        hung_best = [
            int(k)
            for k in gain.index
            if all(
                gain.loc[k, "hungarian"] >= gain.loc[k, m] - 1e-9 for m in ("sortgreedy", "greedy", "nh", "mincostflow")
            )
        ]
        sg_second = [int(k) for k in gain.index if gain.loc[k, "sortgreedy"] >= gain.loc[k, "greedy"] - 1e-9]
        L.append(
            f"4. **Hungarian is consistently the most nearly optimal, SortGreedy very close behind** (Fig. 7): Hungarian has the "
            f"highest gain at k = {hung_best} of {[int(k) for k in gain.index]}; SortGreedy ≥ Greedy at k = {sg_second}. "
            f"**Verdict: {'holds' if len(hung_best) == len(gain) and len(sg_second) == len(gain) else 'partly' if hung_best else 'does not hold'}**."
        )
        big = [k for k in g.index if k >= 6]
        if big:
            nh6 = [int(k) for k in big if g.loc[k, "mincostflow"] > g.loc[k, "nh"]]
            L.append(
                "5. **minCostFlow worse than NH for k ≥ 6** (Fig. 7): mean GCP "
                + "; ".join(
                    f"k={int(k)}: minCostFlow {g.loc[k, 'mincostflow']:.4f}, NH {g.loc[k, 'nh']:.4f}" for k in big
                )
                + f". **Verdict: {'holds' if len(nh6) == len(big) else 'does not hold' if not nh6 else 'partly'}**."
            )
    if f6 is not None:
        piv = f6.pivot_table(index=["n", "k"], columns="method", values="gcp").dropna()
        gw = int((piv["greedy"] <= piv[["sortgreedy", "hungarian"]].min(axis=1) + 1e-12).sum())
        sh = int((piv["sortgreedy"] <= piv["hungarian"] + 1e-12).sum())
        gnh = int((piv["greedy"] < piv["nh"]).sum())
        L.append(
            f"6. **Partitioned, equal time budget per partition (Fig. 6; the paper's sizes Greedy P=250, SortGreedy P=150, "
            f"Hungarian P=100)**: Greedy has the lowest GCP in {gw}/{len(piv)} (n, k) configurations, SortGreedy ≤ Hungarian "
            f"in {sh}/{len(piv)}; Greedy beats NH in {gnh}/{len(piv)}. GCP per (n, k): "
            + "; ".join(
                f"n={n} k={k}: "
                + ", ".join(f"{m} {piv.loc[(n, k), m]:.4f}" for m in ("greedy", "sortgreedy", "hungarian", "nh"))
                for n, k in piv.index
            )
            + ". **Verdict**: Greedy beats NH — "
            + ("holds" if gnh == len(piv) else "partly")
            + "; Greedy best under equal time — "
            + ("holds" if gw == len(piv) else "does not hold" if gw == 0 else f"holds at {gw}/{len(piv)}")
            + " (with the paper's partition sizes; whether they are equal time here: 6c)."
        )
        L += _fig6_time(f6, extra.get("fig6_rep"), extra.get("partition"))
    if f9 is not None:
        L += _fig9_slopes(f9)
    if f10 is not None:
        piv = f10.pivot_table(index=["n", "k"], columns="method", values="gcp").dropna(subset=["greedy", "nh"])
        ours = piv[[m for m in FREEFORM if m in piv]].min(axis=1)
        beat = int((ours < piv["nh"]).sum())
        kc = piv["k-c"].dropna()
        beat_kc = int((ours[kc.index] < kc).sum())
        kc_nh = piv.dropna(subset=["k-c"])
        kcw = {int(k): f"{int((g['k-c'] < g['nh']).sum())}/{len(g)}" for k, g in kc_nh.groupby(level="k")}
        small = kc_nh.xs(min(kcw), level="k") if kcw else kc_nh  # the smallest k: k-c below NH at every size?
        wins = int((small["k-c"] < small["nh"]).sum())
        kc_small = "holds" if wins == len(small) else "does not hold" if wins == 0 else "partly"
        L.append(
            f"8. **The new methods beat NH and k-c at every size; k-c beats NH for small k** (Fig. 10, n = {f10.n.min()}..{f10.n.max()}): "
            f"best freeform < NH in {beat}/{len(piv)}, < k-c in {beat_kc}/{len(kc)}; k-c < NH at (k: sizes) {kcw}. "
            + "GCP: "
            + "; ".join(
                f"n={n} k={k}: "
                + ", ".join(f"{m} {piv.loc[(n, k), m]:.4f}" for m in piv.columns if not np.isnan(piv.loc[(n, k), m]))
                for n, k in piv.index
            )
            + ". **Verdict: the new methods best everywhere — "
            + ("holds" if beat == len(piv) and beat_kc == len(kc) else "partly")
            + "; k-c beats NH for small k — "
            + kc_small
            + "**."
        )
    rt = res.get("fig7_runtime")
    if rt is not None:
        piv = rt.pivot_table(index="n", columns="method", values="cpu_seconds")
        L.append(
            "9. **MIP runtime grows inexorably; the polynomial methods stay modest** (Fig. 7b, CPU s per run, k = min(6, (n+2)/2)): "
            + "; ".join(f"n={n}: " + ", ".join(f"{m} {piv.loc[n, m]:.3f}" for m in piv.columns) for n in piv.index)
            + f". MIP grows {piv['mip'].iloc[-1] / max(piv['mip'].iloc[0], 1e-9):.0f}x from n={piv.index[0]} to n={piv.index[-1]}."
        )
    if f8 is not None:
        piv = f8.pivot_table(index=["data", "n", "k"], columns="method", values="gcp").dropna(
            subset=["hungarian", "sortgreedy"]
        )
        if len(piv):
            gap = ((piv["sortgreedy"] - piv["hungarian"]) / piv["hungarian"] * 100).rename("gap").reset_index()
            L.append(
                "10. **The gap between the greedy methods and Hungarian narrows as k grows; SortGreedy ≈ Hungarian for large k** "
                "(Fig. 8, SortGreedy's GCP above Hungarian's, %): "
                + "; ".join(
                    f"{_set_label(d, n)}: "
                    + ", ".join(f"k={int(r.k)} {r.gap:.1f}%" for r in g.sort_values("k").itertuples())
                    for (d, n), g in gap.groupby(["data", "n"])
                )
            )
            narrows = [
                g.sort_values("k").gap.iloc[-1] < g.sort_values("k").gap.iloc[0] for _, g in gap.groupby(["data", "n"])
            ]
            L[-1] += (
                f". Narrower at the largest k than at the smallest in {sum(narrows)}/{len(narrows)} data sets. **Verdict: "
                + ("holds" if all(narrows) else "partly" if any(narrows) else "does not hold")
                + "**."
            )
    if f9 is not None:
        L += _fig9_levels(f9)
    if f8 is not None and extra.get("fig8_rep") is not None:
        L += _fig8_repeats(f8, extra["fig8_rep"], extra.get("fig8_scipy"))
    L += _disagreements(L)
    L += ["", "## CPU time per figure and method", ""] + _cpu_table(res)
    L.append("")
    L.append(
        "Figures: "
        + ", ".join(f"`{k}.png`" for k in res)
        + "; data in the matching CSV files (columns `seconds` = wall, `cpu_seconds`, `load`)."
    )
    return "\n".join(L) + "\n"


def _set_label(data: str, n: int) -> str:
    """Fig. 8 panel name; Adult is not in the paper (added here)."""
    return f"{data} n={n}" + (" - not in the paper" if data == "adult" else "")


def plots(res: dict, out: Path, extra: dict | None = None) -> None:
    extra = extra or {}
    if "fig6" in res:
        f6 = res["fig6"]
        _plot(f6, "n", "gcp", out / "fig6.png", logx=True, title="GCP, partitioned")
        single = f6[f6.method != "nh"]
        rep = extra.get("fig6_rep")
        if rep is not None and len(rep):
            fr = fig6_ratios(rep)
            _plot(
                fr,
                "n",
                "cpu_median",
                out / "fig6_runtime.png",
                logx=True,
                title="runtime / NH, 1 partition/machine",
                band=("cpu_min", "cpu_max"),
                ghost=single.rename(columns={"parallel_ratio_to_nh": "cpu_median"}),
                ghost_label="first timing (wall)",
                hline=1.0,
                note=f"Lines: median CPU-time ratio of {int(fr.repeats.min())} repeats, bars min-max; hollow: the first, "
                "single wall-time measurement. Below the dashed line our method is faster than NH.",
            )
        else:
            _plot(
                single,
                "n",
                "parallel_ratio_to_nh",
                out / "fig6_runtime.png",
                logx=True,
                title="runtime / NH (1 partition/machine)",
                hline=1.0,
            )
    if "fig7" in res:
        g = res["fig7"].groupby(["k", "method"], as_index=False)["gain"].first()
        g["all"] = "14 tuples"
        _plot(g, "k", "gain", out / "fig7.png", by="all", title="GCP gain vs optimum")
    if "fig7_runtime" in res:
        rt = res["fig7_runtime"].assign(k="min(6, (n+2)/2)")
        _plot(
            rt,
            "n",
            "cpu_seconds",
            out / "fig7_runtime.png",
            by="k",
            logx=True,
            logy=True,
            title="CPU time",
            xticks=sorted(int(v) for v in rt.n.unique()),
        )
    if "fig8" in res:
        d = res["fig8"].assign(set=[_set_label(a, n) for a, n in zip(res["fig8"].data, res["fig8"].n)])
        _plot(d, "k", "gcp", out / "fig8.png", by="set", title="GCP vs k")
        rep = extra.get("fig8_rep")
        ghost, note = None, ""
        if rep is not None and len(rep):
            keys = ["data", "n", "k", "method"]
            med = rep.groupby(keys)["cpu_seconds"].median()
            d = d.set_index(keys)
            hit = d.index.isin(med.index)
            ghost = d[hit].reset_index()
            d.loc[hit, "cpu_seconds"] = med.reindex(d.index[hit]).to_numpy()
            d = d.reset_index()
            note = (
                "Hollow: the first measurement of the points re-run with the current code (line: the re-runs' median); "
                "summary.md, claim 12."
            )
        _plot(
            d,
            "k",
            "cpu_seconds",
            out / "fig8_runtime.png",
            by="set",
            logy=True,
            title="CPU time",
            ghost=ghost,
            ghost_label="first measurement",
            note=note,
        )
    if "fig9" in res:
        f9 = res["fig9"].assign(panel=lambda x: "n=" + x.n.astype(str) + " k=" + x.k.astype(str))
        _plot(f9, "d", "gcp", out / "fig9.png", by="panel", title="GCP vs d")
        _plot(f9.dropna(subset=["slope"]), "d", "slope", out / "fig9_slope.png", by="panel", title="slope")
        _plot(f9, "d", "cpu_seconds", out / "fig9_runtime.png", by="panel", logy=True, title="CPU time")
    if "fig10" in res:
        _plot(res["fig10"], "n", "gcp", out / "fig10.png", logx=True, logy=True, title="GCP vs n")
        _plot(res["fig10"], "n", "cpu_seconds", out / "fig10_runtime.png", logx=True, logy=True, title="CPU time")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    size = ap.add_mutually_exclusive_group()
    size.add_argument("--tiny", action="store_true", help="smallest configuration (the slow-marked test)")
    size.add_argument("--quick", action="store_true", help="small configuration (CI, about two minutes)")
    size.add_argument("--medium", action="store_true", help="between quick and the committed one")
    size.add_argument("--extended", action="store_true", help="the committed points plus the next most valuable ones")
    size.add_argument("--full", action="store_true", help="the paper's sizes (hours on 2 cores)")
    ap.add_argument("--out", type=Path, default=HERE / "results")
    ap.add_argument("--only", nargs="*", choices=list(FIGS))
    ap.add_argument("--max-n", type=int, help="only the points on at most this many rows (run small points first)")
    ap.add_argument("--methods", nargs="+", choices=list(ALGOS), help="only the points of these methods")
    ap.add_argument("--ks", type=int, nargs="+", help="only the points with these k")
    ap.add_argument("--ds", type=int, nargs="+", help="only the Fig. 9 points with these d (other figures unaffected)")
    ap.add_argument("--fresh", action="store_true", help="discard the points already in --out (default: resume)")
    ap.add_argument("--summary-only", action="store_true", help="redraw and rewrite summary.md from the CSVs in --out")
    a = ap.parse_args()
    if os.environ.get("KTYPE_FULL") == "1":
        a.full, a.quick, a.tiny, a.medium, a.extended = True, False, False, False, False
    label = next((c for c in ("tiny", "quick", "medium", "extended", "full") if getattr(a, c)), "run")
    cfg = CONFIGS[label]
    dense = max(cfg["fig10"]["max"].get(m, 0) for m in DENSE) if "max" in cfg["fig10"] else 0
    if label == "full" or dense > heuristics.DENSE_LIMIT:  # dense methods unpartitioned on up to 16,000 rows
        heuristics.DENSE_LIMIT = max(heuristics.DENSE_LIMIT, 16000 if label == "full" else dense)
    a.out.mkdir(parents=True, exist_ok=True)
    rec = Recorder(a.out, resume=not a.fresh, max_n=a.max_n, methods=a.methods, ks=a.ks, ds=a.ds)
    if not a.summary_only:  # compile / load the numba kernels before the first timed point
        warm = census_dataset(40, rng=0)
        for m in ALGOS:
            if m != "mip":
                measure(m, warm, 3)
    todo = [] if a.summary_only else a.only or ["fig7", "fig8", "fig10", "fig9", "fig6"]
    for fig in todo:
        globals()[fig](cfg[fig], rec)
    res = {f: pd.read_csv(a.out / f"{f}.csv") for f in (*FIGS, "fig7_runtime") if (a.out / f"{f}.csv").exists()}
    res = derive(res)
    main_res = {f: res[f] for f in (*FIGS, "fig7_runtime") if f in res}
    extra = {key: pd.read_csv(a.out / name) for key, name in EXTRA_FILES.items() if (a.out / name).exists()}
    plots(res, a.out, extra)
    text = summary(
        main_res,
        {
            "run": "run (the committed configuration; `--full` = the paper's)",
            "extended": "extended (the committed configuration plus the next points towards the paper's; `--full` = the paper's)",
            "full": "full (the paper's sizes)",
        }.get(label, label),
        sorted((p.name for p in a.out.glob("*.png")), key=lambda x: (len(x.split("_")[0]), x)),
        missing_points(cfg, res),
        extra,
    )
    (a.out / "summary.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
