#!/usr/bin/env python
"""Foundation benchmarks: Mondrian at scale on synthetic CENSUS, and the privacy checkers on Adult.

(a) ``mondrian``: ``ktype.algorithms.run("mondrian", dataset, KAnonymity(k))`` on synthetic
    CENSUS data (Doka et al. Table 2 schema, 8 QIs; ``ktype.datasets.census``). Each size runs
    in a fresh subprocess so that the peak memory (``resource.getrusage().ru_maxrss``) belongs
    to that size alone. Recorded: data generation time, Dataset construction (encoding) time,
    Numba warm-up time, Mondrian wall time (with its built-in verification), number of
    equivalence classes, smallest class, and peak RSS after the data and after the run.
(b) ``checkers``: time (ms) of each privacy model's independent ``check(release)`` on Adult
    (30,162 rows, 8 QIs, sensitive ``salary-class``): KAnonymity, the ℓ-diversity family,
    TCloseness, and KConcealment on a (k,k) release. Models that are not importable yet are
    skipped with a note.

No timing assertions: the script only records numbers. Results go to
``benchmarks/results/foundation[-quick].json`` and ``.md`` (see ``benchmarks/README.md``).

Usage::

    python benchmarks/bench_foundation.py --quick          # small configuration (~1 min)
    python benchmarks/bench_foundation.py                  # full: 1M and 10M rows, all of Adult
    python benchmarks/bench_foundation.py --only checkers --repeat 7
    python benchmarks/bench_foundation.py --only mondrian --sizes 10000000 --runs 3   # the 10M goal (#13 item 5)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"

FULL = {"sizes": [1_000_000, 10_000_000], "adult_rows": None, "kc_rows": None, "repeat": 5}
QUICK = {"sizes": [20_000, 100_000], "adult_rows": 5_000, "kc_rows": 2_000, "repeat": 3}


def maxrss_mb() -> float:
    """Peak resident set size of this process so far, in MiB (Linux reports KiB)."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(rss / (1024 * 1024 if sys.platform == "darwin" else 1024), 1)


# ---------------------------------------------------------------------------- workers (subprocess)
def worker_mondrian(n: int, k: int, seed: int) -> dict[str, Any]:
    """One Mondrian run on ``n`` synthetic CENSUS rows (runs in its own process)."""
    out: dict[str, Any] = {"n": n, "k": k, "qis": 8, "seed": seed}
    try:
        from ktype.algorithms import get_algorithm, run
        from ktype.models.kanonymity import KAnonymity

        get_algorithm("mondrian")
    except Exception as e:  # noqa: BLE001 - report any import problem as a skip
        out["skipped"] = f"mondrian not available: {type(e).__name__}: {e}"
        return out
    from ktype import Dataset
    from ktype.datasets import CENSUS_SCHEMA, census, census_dataset, census_hierarchy
    from ktype.models._base import equivalence_classes

    out["rss_start_mb"] = maxrss_mb()
    # warm-up: compile (or load from the numba cache) on a tiny table, timed separately; tiny
    # k-anonymity jobs take the numpy partitioner, so the compiled core is forced here
    import ktype.algorithms.mondrian as mondrian_module

    limit = getattr(mondrian_module, "_NUMPY_MAX_ROWS", None)
    if limit is not None:
        mondrian_module._NUMPY_MAX_ROWS = 0
    t = time.perf_counter()
    run("mondrian", census_dataset(2_000, rng=seed), KAnonymity(k))
    out["warmup_s"] = round(time.perf_counter() - t, 3)
    if limit is not None:
        mondrian_module._NUMPY_MAX_ROWS = limit

    t = time.perf_counter()
    df = census(n, rng=seed)
    out["generate_s"] = round(time.perf_counter() - t, 3)
    t = time.perf_counter()
    hier = {c: census_hierarchy(c) for c in CENSUS_SCHEMA}
    ds = Dataset(df, quasi_identifiers=list(CENSUS_SCHEMA), hierarchies=hier, name="census-synthetic")
    out["dataset_s"] = round(time.perf_counter() - t, 3)
    del df
    out["rss_after_data_mb"] = maxrss_mb()

    out["load_before"] = [round(x, 2) for x in os.getloadavg()]
    t = time.perf_counter()
    c = time.process_time()  # all threads of this process: CPU time may exceed wall time
    rel = run("mondrian", ds, KAnonymity(k))
    out["mondrian_s"] = round(time.perf_counter() - t, 3)
    out["mondrian_cpu_s"] = round(time.process_time() - c, 3)
    out["load_after"] = [round(x, 2) for x in os.getloadavg()]
    out["rss_peak_mb"] = maxrss_mb()
    timings = rel.provenance.get("timings", {})
    out["algorithm_s"] = timings.get("algorithm_s")
    out["verification_s"] = timings.get("verification_s")
    out["compile_s"] = timings.get("compile_s")
    class_of, g = equivalence_classes(rel)
    import numpy as np

    sizes = np.bincount(class_of[class_of >= 0], minlength=g)
    out["classes"] = int(g)
    out["smallest_class"] = int(sizes.min()) if g else 0
    out["mean_class"] = round(float(sizes.mean()), 2) if g else 0.0
    out["suppressed"] = rel.n_suppressed
    return out


def _timed(fn, repeat: int) -> tuple[list[float], Any]:
    times = []
    res = None
    for _ in range(repeat):
        t = time.perf_counter()
        res = fn()
        times.append((time.perf_counter() - t) * 1000.0)
    return times, res


def _load(module: str, names: list[str]) -> tuple[Any, str | None]:
    """First class found among ``names`` in ``module``; (None, reason) when missing."""
    import importlib

    try:
        mod = importlib.import_module(module)
    except Exception as e:  # noqa: BLE001
        return None, f"{module} not importable yet ({type(e).__name__}: {e})"
    for nm in names:
        if hasattr(mod, nm):
            return getattr(mod, nm), None
    return None, f"{module} has none of {names}"


def _adult(rows: int | None):
    from ktype import load_adult

    return load_adult(n=rows)


def _reference_release(ds, k: int) -> tuple[Any, str]:
    """A k-anonymous class-based release of ``ds``: Mondrian if available, else full-domain levels."""
    import numpy as np

    from ktype.models.kanonymity import KAnonymity
    from ktype.release import Release

    try:
        from ktype.algorithms import run

        return run("mondrian", ds, KAnonymity(k)), f"mondrian k={k}"
    except Exception as e:  # noqa: BLE001
        note = f"mondrian unavailable ({type(e).__name__}); "
    # fallback: the same full-domain level on every attribute (height-capped), suppressing small classes
    levels = np.array([min(1, h.height) for h in ds.hierarchies])
    lo = np.empty_like(ds.X)
    hi = np.empty_like(ds.X)
    for j, (h, lev) in enumerate(zip(ds.hierarchies, levels)):
        llo, lhi = h.level_intervals(int(lev))
        lo[:, j], hi[:, j] = llo[ds.X[:, j]], lhi[ds.X[:, j]]
    from ktype._grouping import group_rows

    ids, g = group_rows(lo, hi)
    sup = np.bincount(ids, minlength=g)[ids] < k
    rel = Release.build(ds, lo, hi, suppressed=sup, recoding="full-domain", levels=levels)
    return rel, note + f"full-domain levels {levels.tolist()} with suppression of classes < {k}"


def worker_checkers(rows: int | None, k: int, repeat: int) -> dict[str, Any]:
    """Time every available checker on one class-based Adult release."""
    ds = _adult(rows)
    rel, how = _reference_release(ds, k)
    out: dict[str, Any] = {"dataset": f"adult ({ds.n} rows, {ds.r} QIs, sensitive {ds.sensitive[0]})", "release": how,
                           "release_rows": rel.n, "suppressed": rel.n_suppressed, "repeat": repeat, "checks": []}
    specs: list[tuple[str, str, list[str], dict]] = [
        ("ktype.models.kanonymity", "KAnonymity", ["KAnonymity"], {"k": k}),
        ("ktype.models.ldiversity", "DistinctLDiversity(l=2)", ["DistinctLDiversity"], {"l": 2}),
        ("ktype.models.ldiversity", "EntropyLDiversity(l=1.5)", ["EntropyLDiversity"], {"l": 1.5}),
        ("ktype.models.ldiversity", "RecursiveCLDiversity(c=3, l=2)", ["RecursiveCLDiversity"], {"c": 3.0, "l": 2}),
        ("ktype.models.ldiversity", "FrequencyLDiversity(l=1.2)", ["FrequencyLDiversity"], {"l": 1.2}),
        ("ktype.models.ldiversity", "PSensitivity(p=2)", ["PSensitivity"], {"p": 2}),
        ("ktype.models.tcloseness", "TCloseness(t=0.2, equal)", ["TCloseness"], {"t": 0.2, "distance": "equal"}),
        ("ktype.models.tcloseness", "TCloseness(t=0.2, ordered)", ["TCloseness"], {"t": 0.2, "distance": "ordered"}),
    ]
    for module, label, names, params in specs:
        entry: dict[str, Any] = {"model": label if "KAnonymity" not in label else f"KAnonymity(k={k})"}
        cls, why = _load(module, names)
        if cls is None:
            entry["skipped"] = why
        else:
            try:
                model = cls(**params)
                times, res = _timed(lambda m=model: m.check(rel), repeat)
                entry.update(_time_stats(times))
                entry["satisfied"] = bool(res.satisfied)
                entry["failing_records"] = int((~res.per_record).sum())
            except Exception as e:  # noqa: BLE001
                entry["skipped"] = f"error: {type(e).__name__}: {e}"
        out["checks"].append(entry)
    return out


def worker_kconcealment(rows: int | None, k: int, repeat: int) -> dict[str, Any]:
    """Time the KConcealment checker on a (k,k)-anonymous Adult release."""
    out: dict[str, Any] = {"model": f"KConcealment(k={k})", "repeat": repeat}
    cls, why = _load("ktype.models.ktype_models", ["KConcealment"])
    if cls is None:
        out["skipped"] = why
        return out
    ds = _adult(rows)
    out["dataset"] = f"adult ({ds.n} rows)"
    rel, how = None, ""
    kk_cls, _ = _load("ktype.models.ktype_models", ["KKAnonymity", "KK"])
    if kk_cls is not None:  # a registered (k,k)-anonymizer, if there is one
        try:
            from ktype.algorithms import all_algorithms, run

            for info in all_algorithms():
                if kk_cls in info.models and info.recoding == "local":
                    t = time.perf_counter()
                    rel = run(info.name, ds, kk_cls(k), **({"rng": 0} if info.randomized else {}))
                    how = f"{info.name} (k,k) k={k}, built in {time.perf_counter() - t:.2f} s"
                    break
        except Exception as e:  # noqa: BLE001
            how = f"(k,k) algorithm failed ({type(e).__name__}: {e}); "
            rel = None
    if rel is None:
        rel, how2 = _reference_release(ds, k)
        how += how2 + " (k-anonymous, hence (k,k)-anonymous)"
    out["release"] = how
    try:
        model = cls(k)
        times, res = _timed(lambda: model.check(rel), repeat)
        out.update(_time_stats(times))
        out["satisfied"] = bool(res.satisfied)
    except Exception as e:  # noqa: BLE001
        out["skipped"] = f"error: {type(e).__name__}: {e}"
        out["traceback"] = traceback.format_exc(limit=3)
    return out


def _time_stats(times_ms: list[float]) -> dict[str, float]:
    return {
        "median_ms": round(statistics.median(times_ms), 3),
        "min_ms": round(min(times_ms), 3),
        "max_ms": round(max(times_ms), 3),
    }


# ---------------------------------------------------------------------------- driver
def _spawn(args: list[str], timeout: float) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", *args]
    t = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"skipped": f"timed out after {timeout:.0f} s", "args": args}
    wall = round(time.perf_counter() - t, 3)
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-6:])
        return {"skipped": f"worker failed (exit {proc.returncode})", "stderr": tail, "args": args}
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    res = json.loads(lines[-1])
    res["process_wall_s"] = wall
    return res


def environment() -> dict[str, Any]:
    import numpy
    import pandas

    env = {
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "numpy": numpy.__version__,
        "pandas": pandas.__version__,
    }
    try:
        import numba

        env["numba"] = numba.__version__
    except ImportError:
        pass
    try:
        env["git_commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True, timeout=10).stdout.strip()
    except Exception:  # noqa: BLE001
        pass
    return env


def to_markdown(res: dict[str, Any]) -> str:
    lines = [f"# Foundation benchmark ({'quick' if res['quick'] else 'full'})", ""]
    env = res["environment"]
    lines.append(", ".join(f"{k}: {v}" for k, v in env.items()))
    lines.append("")
    lines.append(f"Command: `{res['command']}`")
    lines.append("")
    if "mondrian" in res:
        lines += ["## Mondrian, k-anonymity, synthetic CENSUS (8 QIs)", ""]
        lines.append("Mondrian (s) = `run(\"mondrian\", ...)` wall time, verification included; CPU (s) = the "
                     "process's CPU time over all its threads during that call. With `--runs N` each run is a fresh "
                     "process; the first line of a size is the median run (by wall time), the others are the single runs.")
        lines.append("")
        lines.append("| rows | k | run | generate (s) | Dataset (s) | Mondrian (s) | CPU (s) | of which verify (s) | classes | smallest | mean size | peak RSS after data (MiB) | peak RSS (MiB) | load 1/5/15 min | note |")
        lines.append("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
        for r in res["mondrian"]:
            if "skipped" in r:
                lines.append(f"| {r.get('n', '')} | {r.get('k', '')} | | | | | | | | | | | | | skipped: {r['skipped']} |")
                continue
            runs = r.get("runs") or [r]
            for i, x in enumerate([r] + (runs if len(runs) > 1 else [])):
                if "skipped" in x:
                    lines.append(f"| {r['n']:,} | {r['k']} | {i} | | | | | | | | | | | | skipped: {x['skipped']} |")
                    continue
                label = f"median of {len(runs)}" if i == 0 and len(runs) > 1 else (str(i) if len(runs) > 1 else "1")
                load = "/".join(str(v) for v in x.get("load_before", []))
                lines.append(
                    f"| {x['n']:,} | {x['k']} | {label} | {x['generate_s']} | {x['dataset_s']} | {x['mondrian_s']} | {x.get('mondrian_cpu_s')} | "
                    f"{x.get('verification_s')} | {x['classes']:,} | {x['smallest_class']} | {x['mean_class']} | {x['rss_after_data_mb']} | "
                    f"{x['rss_peak_mb']} | {load} | warm-up {x['warmup_s']} s |"
                )
        lines.append("")
    if "checkers" in res:
        c = res["checkers"]
        lines += ["## Checkers on Adult", ""]
        if "skipped" in c:
            lines.append(f"skipped: {c['skipped']}")
        else:
            lines.append(f"Dataset: {c['dataset']}. Release: {c['release']} ({c['release_rows']} rows, {c['suppressed']} suppressed). "
                         f"Median of {c['repeat']} runs.")
            lines.append("")
            lines.append("| model | median (ms) | min (ms) | max (ms) | satisfied | note |")
            lines.append("|---|---:|---:|---:|---|---|")
            rows = list(c["checks"])
            if "kconcealment" in res:
                rows.append(res["kconcealment"])
            for e in rows:
                if "skipped" in e:
                    lines.append(f"| {e['model']} | | | | | skipped: {e['skipped']} |")
                else:
                    note = e.get("release", "") if e is res.get("kconcealment") else ""
                    lines.append(f"| {e['model']} | {e['median_ms']} | {e['min_ms']} | {e['max_ms']} | {e['satisfied']} | {note} |")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="small configuration: 20k/100k CENSUS rows, 5,000 Adult rows")
    p.add_argument("--only", choices=["mondrian", "checkers"], help="run one part only")
    p.add_argument("--sizes", type=int, nargs="+", help="CENSUS sizes for Mondrian (overrides the configuration)")
    p.add_argument("--k", type=int, default=10, help="k for Mondrian and the checkers (default 10)")
    p.add_argument("--repeat", type=int, help="repetitions per checker (default 5, quick 3)")
    p.add_argument("--seed", type=int, default=0, help="seed of the synthetic data")
    p.add_argument("--runs", type=int, default=1, help="Mondrian runs per size, each in a fresh process (median reported)")
    p.add_argument("--timeout", type=float, default=3600.0, help="seconds per subprocess (default 3600)")
    p.add_argument("--out", type=Path, default=RESULTS, help="output folder (default benchmarks/results)")
    p.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    a = p.parse_args(argv)

    if a.worker:
        kind, *rest = a.worker
        if kind == "mondrian":
            res = worker_mondrian(int(rest[0]), int(rest[1]), int(rest[2]))
        elif kind == "checkers":
            res = worker_checkers(None if rest[0] == "all" else int(rest[0]), int(rest[1]), int(rest[2]))
        elif kind == "kconcealment":
            res = worker_kconcealment(None if rest[0] == "all" else int(rest[0]), int(rest[1]), int(rest[2]))
        else:
            raise SystemExit(f"unknown worker {kind!r}")
        print(json.dumps(res))
        return 0

    cfg = dict(QUICK if a.quick else FULL)
    if a.sizes:
        cfg["sizes"] = a.sizes
    repeat = a.repeat or cfg["repeat"]
    res: dict[str, Any] = {"quick": a.quick, "command": " ".join(["python", "benchmarks/bench_foundation.py", *(argv if argv is not None else sys.argv[1:])]),
                           "environment": environment(), "config": {**cfg, "k": a.k, "repeat": repeat, "seed": a.seed}}
    if a.only in (None, "mondrian"):
        res["mondrian"] = []
        for n in cfg["sizes"]:
            runs = []
            for i in range(a.runs):
                print(f"[mondrian] n={n:,} k={a.k} run {i + 1}/{a.runs} ...", flush=True)
                x = _spawn(["mondrian", str(n), str(a.k), str(a.seed)], a.timeout)
                x.setdefault("n", n)
                x.setdefault("k", a.k)
                print("   ", json.dumps(x), flush=True)
                runs.append(x)
            ok = sorted((x for x in runs if "skipped" not in x), key=lambda x: x["mondrian_s"])
            r = dict(ok[(len(ok) - 1) // 2]) if ok else dict(runs[0])
            r["runs"] = runs
            res["mondrian"].append(r)
    if a.only in (None, "checkers"):
        rows = "all" if cfg["adult_rows"] is None else str(cfg["adult_rows"])
        print(f"[checkers] adult rows={rows} ...", flush=True)
        res["checkers"] = _spawn(["checkers", rows, str(a.k), str(repeat)], a.timeout)
        print("   ", json.dumps(res["checkers"]), flush=True)
        kc_rows = "all" if cfg["kc_rows"] is None else str(cfg["kc_rows"])
        print(f"[kconcealment] adult rows={kc_rows} ...", flush=True)
        res["kconcealment"] = _spawn(["kconcealment", kc_rows, str(a.k), str(repeat)], a.timeout)
        res["kconcealment"].setdefault("model", f"KConcealment(k={a.k})")
        print("   ", json.dumps(res["kconcealment"]), flush=True)

    a.out.mkdir(parents=True, exist_ok=True)
    stem = "foundation-quick" if a.quick else "foundation"
    if a.only:
        stem += f"-{a.only}"
    from ktype.io._files import atomic_write_text

    atomic_write_text(a.out / f"{stem}.json", json.dumps(res, indent=2) + "\n")
    atomic_write_text(a.out / f"{stem}.md", to_markdown(res) + "\n")
    print(f"wrote {a.out / (stem + '.json')} and {a.out / (stem + '.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
