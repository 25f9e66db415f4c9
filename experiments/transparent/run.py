"""Reproduce Figures 11-15 of Xiao, Tao & Koudas, "Transparent anonymization" (TODS 2010, §6).

One command::

    python experiments/transparent/run.py --quick     # CI: 3,000 rows, 2 values per axis, ~1 min
    python experiments/transparent/run.py --medium    # 100k rows, all axis values
    python experiments/transparent/run.py --full      # the paper's 600k rows (and up to 16 copies for Fig. 14; the default)

Data: the synthetic OCC and SAL tables of :mod:`ktype.datasets.occsal` (Table XII domains,
Table XIV correlation ratios; the IPUMS extracts are not redistributable). Pass
``--occ FILE --sal FILE`` to use the real files (:func:`ktype.datasets.occsal.read_occ_sal`).

Methods: Tailor, Ace, Hybrid (transparent), Mondrian (the registered ``mondrian_ldiv``: the precise
ℓ-diverse strict Mondrian of spec §3.7(a), the paper's unspecified "ℓ-diversity variant") and Mask (k = ℓ).
Tailor, Ace and Mask are timed up to 2.4M rows in Fig. 14, Hybrid and Mondrian up to 16 copies (9.6M).

Figures (``--out``, default ``experiments/transparent/results/<preset>``), each as CSV and PNG:

* fig11_error_vs_l   — query error vs ℓ (qd = 5, s = 6%), OCC and SAL
* fig12_error_vs_qd  — error vs qd (ℓ = 8, s = 6%)
* fig13_error_vs_s   — error vs s (ℓ = 8, qd = 5)
* fig14_time_vs_n    — anonymization time vs n (OCC, ℓ = 8; n = copies × base n)
* fig15_time_vs_l    — anonymization time vs ℓ (OCC, base n)

and ``summary.md``, which states point by point whether the paper's findings hold here.
Errors are the mean relative error of ``--workloads`` seeded workloads of 1,000 queries
(δ = 0.5% n). Times are wall-clock and CPU (process) time of ``ktype.algorithms.run`` (verification
included) on a shared 2-core machine; the figures plot CPU time (wall time depends on the load).

Results are appended to ``records.jsonl`` in the output directory as each point finishes; a run
that is interrupted resumes where it stopped, and ``--summary-only`` writes the CSV/PNG/summary
from the points done so far.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]

from ktype.algorithms import run  # noqa: E402
from ktype.datasets.occsal import occ_sal, occ_sal_dataset, read_occ_sal  # noqa: E402
from ktype.exceptions import InfeasibleError  # noqa: E402
from ktype.measures import range_query_errors, range_query_workload  # noqa: E402
from ktype.models import FrequencyLDiversity, TransparentLDiversity  # noqa: E402

METHODS = ("hybrid", "mondrian", "tailor", "ace", "mask")
PRESETS = {
    "quick": dict(n=3000, ls=(6, 8), qds=(2, 5), ss=(0.02, 0.06), copies=(1, 2), workloads=1, queries=300,
                  time_methods=METHODS),
    "medium": dict(n=100_000, ls=(6, 7, 8, 9, 10), qds=(2, 3, 4, 5), ss=(0.02, 0.04, 0.06, 0.08, 0.10),
                   copies=(1, 2, 4), workloads=2, queries=1000, time_methods=METHODS),
    "full": dict(n=600_000, ls=(6, 7, 8, 9, 10), qds=(2, 3, 4, 5), ss=(0.02, 0.04, 0.06, 0.08, 0.10),
                 copies=(1, 2, 4, 8, 16), workloads=3, queries=1000, time_methods=METHODS),
    # what fits a shared, loaded 2-core machine in about 75 minutes: the paper's 600k rows, but
    # ℓ ∈ {6, 8, 10}, s ∈ {2, 6, 10}%, one workload per point (Fig. 14 as in --full)
    "reduced": dict(n=600_000, ls=(8, 6, 10), qds=(2, 3, 4, 5), ss=(0.02, 0.06, 0.10), copies=(1, 2, 4, 8, 16), workloads=1,
                    queries=1000, time_methods=METHODS),
}


def anonymize(method: str, ds, l: int):  # noqa: E741
    t0 = time.perf_counter()
    if method == "mondrian":  # the precise ℓ-diverse Mondrian of spec §3.7(a) (registered as mondrian_ldiv)
        rel = run("mondrian_ldiv", ds, FrequencyLDiversity(l))
    elif method == "mask":
        rel = run("mask", ds, FrequencyLDiversity(l), rng=0)
    else:
        rel = run(method, ds, TransparentLDiversity(l), rng=0)
    return rel, time.perf_counter() - t0


def error(rel, ds, qd: int, s: float, workloads: int, queries: int) -> float:
    errs = [range_query_errors(rel, range_query_workload(ds, qd=qd, selectivity=s, queries=queries, seed=w)).mean()
            for w in range(workloads)]
    return float(np.mean(errs))


#: axis labels with units; one colour per method in every figure
LABELS = {"l": "ℓ", "qd": "query dimensionality qd", "s": "selectivity s (fraction of the domain)", "n": "n (rows)",
          "error": "mean relative error (δ = 0.5% n)", "cpu_seconds": "CPU time (s)"}
COLOURS = {"hybrid": "tab:orange", "mondrian": "tab:red", "tailor": "tab:purple", "ace": "tab:blue", "mask": "tab:green"}


def plot(df: pd.DataFrame, x: str, y: str, path: Path, title: str, logy: bool = False, by_dataset: bool = True) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = sorted(df["dataset"].unique()) if by_dataset else [None]
    fig, axes = plt.subplots(1, len(groups), figsize=(5 * len(groups), 3.6), squeeze=False)
    for ax, g in zip(axes[0], groups):
        sub = df if g is None else df[df["dataset"] == g]
        for m, part in sub.groupby("method"):
            part = part.sort_values(x)
            ax.plot(part[x], part[y], marker="o", label=m, color=COLOURS.get(str(m)))
        ax.set_xlabel(LABELS.get(x, x))
        ax.set_ylabel(LABELS.get(y, y))
        if x in ("l", "qd"):
            ax.set_xticks(sorted(sub[x].unique()))
        ax.set_title(str(g) if g else title, fontsize=10)
        if logy:
            ax.set_yscale("log")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    if by_dataset:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def decreasing_share(df: pd.DataFrame, x: str) -> tuple[int, int]:
    """(#consecutive pairs where the error decreases as x grows, #pairs), over methods and datasets."""
    dec = tot = 0
    for _, part in df.groupby(["dataset", "method"]):
        e = part.sort_values(x)["error"].to_numpy()
        dec += int((np.diff(e) < 0).sum())
        tot += len(e) - 1
    return dec, tot


def summarize(f11, f12, f13, f14, f15, cfg, out: Path, data_note: str) -> str:
    L = ["# Transparent anonymization (TODS 2010) §6: reproduction summary", "",
         f"Data: {data_note}. Base n = {cfg['n']:,}; {cfg['workloads']} workload(s) of {cfg['queries']} queries per point; "
         f"ℓ ∈ {list(cfg['ls'])}, qd ∈ {list(cfg['qds'])}, s ∈ {list(cfg['ss'])}. Load average at the end: "
         f"{os.getloadavg()[0]:.1f} (shared 2-core machine).", "", "## Findings, point by point", ""]
    d8 = f11[f11["l"] == 8] if 8 in set(f11["l"]) else f11[f11["l"] == f11["l"].max()]

    def err(ds, m, frame=d8):
        v = frame[(frame["dataset"] == ds) & (frame["method"] == m)]["error"]
        return float(v.mean()) if len(v) else float("nan")

    # 1. ranking
    lines = []
    ok_rank = True
    for ds in sorted(d8["dataset"].unique()):
        h, mo = err(ds, "hybrid"), err(ds, "mondrian")
        others = {m: err(ds, m) for m in ("tailor", "ace", "mask")}
        better = all(h < v for v in others.values())
        ok_rank &= better
        lines.append(f"  - {ds}: Hybrid {h:.3f}, Mondrian {mo:.3f}, " + ", ".join(f"{m} {v:.3f}" for m, v in others.items()))
    L.append(f"1. **Hybrid ≈ Mondrian ≪ Tailor, Ace, Mask on error** (Fig. 11, ℓ = 8): Hybrid better than Tailor, Ace and Mask: "
             f"**{'holds' if ok_rank else 'does not hold'}**.")
    L += lines
    ratio = [err(ds, "hybrid") / err(ds, "mondrian") for ds in sorted(d8["dataset"].unique())]
    L.append(f"   Hybrid / Mondrian error ratio: {', '.join(f'{r:.2f}' for r in ratio)} "
             f"({'nearly equal' if all(0.67 <= r <= 1.5 for r in ratio) else 'not nearly equal'} by a factor-1.5 test).")
    # 2. max error < 10%
    hm = f12[f12["method"].isin(["hybrid", "mondrian"])]
    mx = hm.groupby("method")["error"].max()
    L.append(f"2. **Hybrid's and Mondrian's maximum error < 10%** (Fig. 12): max Hybrid {mx.get('hybrid', float('nan')):.3f}, "
             f"Mondrian {mx.get('mondrian', float('nan')):.3f}: **{'holds' if (mx < 0.10).all() else 'does not hold'}**.")
    # 3. Ace worse on SAL
    if {"OCC", "SAL"} <= set(f11["dataset"]):
        a_occ = f11[(f11["dataset"] == "OCC") & (f11["method"] == "ace")]["error"].mean()
        a_sal = f11[(f11["dataset"] == "SAL") & (f11["method"] == "ace")]["error"].mean()
        L.append(f"3. **Ace is worse on SAL than on OCC** (mean over ℓ): OCC {a_occ:.3f}, SAL {a_sal:.3f}: "
                 f"**{'holds' if a_sal > a_occ else 'does not hold'}**.")
    # 4-6. trends
    for num, (frame, x, what) in enumerate(((f12, "qd", "falls as qd grows (Fig. 12)"), (f13, "s", "falls as s grows (Fig. 13)")), start=4):
        dec, tot = decreasing_share(frame, x)
        L.append(f"{num}. **Error {what}**: {dec} of {tot} consecutive steps decrease: "
                 f"**{'holds' if dec >= 0.8 * tot else ('mostly holds' if dec >= 0.5 * tot else 'does not hold')}**.")
    inc = tot = 0
    for _, part in f11.groupby(["dataset", "method"]):
        e = part.sort_values("l")["error"].to_numpy()
        inc += int((np.diff(e) > 0).sum())
        tot += len(e) - 1
    L.append(f"6. **Error rises with ℓ** (Fig. 11): {inc} of {tot} steps increase: "
             f"**{'holds' if inc >= 0.8 * tot else ('mostly holds' if inc >= 0.5 * tot else 'does not hold')}**.")
    # 7. linearity
    L.append("7. **Roughly linear time** (Fig. 14, time vs n):")
    for m, part in f14.groupby("method"):
        part = part.sort_values("n")
        if len(part) >= 2:
            slope = np.polyfit(np.log(part["n"]), np.log(part["cpu_seconds"]), 1)[0]
            L.append(f"  - **{m}**: log-log slope of CPU time {slope:.2f} over n = {part['n'].min():,}..{part['n'].max():,} "
                     f"({'roughly linear' if slope < 1.3 else 'superlinear'}); largest n took {part['cpu_seconds'].iloc[-1]:.1f} s CPU, "
                     f"{part['seconds'].iloc[-1]:.1f} s wall.")
    # 8. time vs l
    L.append("8. **Time vs ℓ** (Fig. 15):")
    for m, part in f15.groupby("method"):
        part = part.sort_values("l")
        t = part["cpu_seconds"].to_numpy()
        L.append(f"  - **{m}**: {t[0]:.2f} s CPU at ℓ = {part['l'].iloc[0]} → {t[-1]:.2f} s at ℓ = {part['l'].iloc[-1]}.")
    L += ["", "The paper: Tailor and Hybrid get faster as ℓ grows; Ace, Mondrian and Mask are insensitive to ℓ; Mask is superlinear "
          "in n; Hybrid anonymizes ~10M tuples in < 5 min (C++).", "",
          "Caveats: synthetic data matching only the domains and the QI-sensitive correlation ratios of OCC/SAL; "
          "one run per point for the algorithms (seed 0); times under shared load.", ""]
    text = "\n".join(L)
    (out / "summary.md").write_text(text)
    return text


def _load(path: Path) -> dict[str, dict]:
    """Records already computed (one JSON object per line, keyed by ``key``): the run resumes."""
    done: dict[str, dict] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                done[rec["key"]] = rec
    return done


def _append(path: Path, rec: dict) -> None:
    with path.open("a") as f:
        f.write(json.dumps(rec) + "\n")
        f.flush()
        os.fsync(f.fileno())


def frames(records: dict[str, dict]) -> tuple[pd.DataFrame, ...]:
    """The five figures' tables from the records (whatever part of the grid is done)."""
    r11, r12, r13, r14, r15 = [], [], [], [], []
    for rec in records.values():
        if rec["kind"] == "anon":
            base = dict(dataset=rec["dataset"], method=rec["method"])
            r11.append(dict(base, l=rec["l"], error=rec["error"], seconds=rec["seconds"], cpu_seconds=rec["cpu_seconds"]))
            if rec["dataset"] == "OCC":
                r15.append(dict(base, l=rec["l"], seconds=rec["seconds"], cpu_seconds=rec["cpu_seconds"]))
            for qd, e in rec.get("by_qd", {}).items():
                r12.append(dict(base, qd=int(qd), error=e))
            for s, e in rec.get("by_s", {}).items():
                r13.append(dict(base, s=float(s), error=e))
        else:
            r14.append(dict(dataset="OCC", method=rec["method"], n=rec["n"], seconds=rec["seconds"], cpu_seconds=rec["cpu_seconds"],
                            peak_rss_gib=rec.get("peak_rss_gib")))
    cols = {11: ["dataset", "method", "l", "error", "seconds", "cpu_seconds"], 12: ["dataset", "method", "qd", "error"],
            13: ["dataset", "method", "s", "error"], 14: ["dataset", "method", "n", "seconds", "cpu_seconds", "peak_rss_gib"],
            15: ["dataset", "method", "l", "seconds", "cpu_seconds"]}
    out = []
    for num, rows in zip((11, 12, 13, 14, 15), (r11, r12, r13, r14, r15)):
        df = pd.DataFrame(rows, columns=cols[num])
        out.append(df.sort_values([c for c in cols[num][:3]]).reset_index(drop=True) if len(df) else df)
    return tuple(out)


def _peak_rss_gib() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true")
    g.add_argument("--medium", action="store_true")
    g.add_argument("--full", action="store_true", help="the paper's sizes (the default)")
    g.add_argument("--reduced", action="store_true", help="600k rows, a smaller grid (see PRESETS)")
    ap.add_argument("--n", type=int, help="override the base number of rows")
    ap.add_argument("--copies", type=int, nargs="+", help="override Fig. 14's copy counts (n = copies x base n)")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--occ", type=Path, help="real OCC file (space-separated, m-invariance format)")
    ap.add_argument("--sal", type=Path, help="real SAL file")
    ap.add_argument("--summary-only", action="store_true", help="write CSV/PNG/summary from the records done so far")
    args = ap.parse_args(argv)
    preset = "quick" if args.quick else "medium" if args.medium else "reduced" if args.reduced else "full"
    cfg = dict(PRESETS[preset])
    if args.n:
        cfg["n"] = args.n
    if args.copies:
        cfg["copies"] = tuple(args.copies)
    out = args.out or ROOT / "experiments" / "transparent" / "results" / preset
    out.mkdir(parents=True, exist_ok=True)
    n = cfg["n"]
    data_note = "real OCC/SAL files" if args.occ or args.sal else "synthetic OCC/SAL (ktype.datasets.occsal)"
    store = out / "records.jsonl"
    done = _load(store)
    if not args.summary_only:
        tables = {"OCC": lambda: read_occ_sal(args.occ, "occ") if args.occ else occ_sal(n, "occupation", rng=0),
                  "SAL": lambda: read_occ_sal(args.sal, "sal") if args.sal else occ_sal(n, "income", rng=1)}
        l_main = 8 if 8 in cfg["ls"] else max(cfg["ls"])
        warm = occ_sal_dataset(occ_sal(2000, "occupation", rng=5), name="warm-up")
        for m in METHODS:  # compile the numba kernels before anything is timed
            anonymize(m, warm, 6)
        # ℓ = l_main first (it also gives Figs. 12-13), so an interrupted run has complete figures early
        ls = [l_main] + [x for x in cfg["ls"] if x != l_main]
        todo = [(l, name, m) for l in ls for name in tables for m in METHODS  # noqa: E741
                if f"anon/{name}/{m}/{l}/{n}" not in done]
        dsets: dict = {}
        for l, name, m in todo:  # noqa: E741
            if name not in dsets:
                dsets[name] = occ_sal_dataset(tables[name](), name=name)
            ds = dsets[name]
            c0 = time.process_time()
            try:
                rel, secs = anonymize(m, ds, l)
            except InfeasibleError as e:  # Mask can find no ℓ-diverse distribution for a group size
                rec = dict(key=f"anon/{name}/{m}/{l}/{n}", kind="anon", dataset=name, method=m, l=l, n=ds.n, seconds=float("nan"),
                           cpu_seconds=float("nan"), error=float("nan"), failed=str(e), load=os.getloadavg()[0])
                _append(store, rec)
                done[rec["key"]] = rec
                print(f"{name} {m} l={l} FAILED: {e}", flush=True)
                continue
            cpu = time.process_time() - c0
            rec = dict(key=f"anon/{name}/{m}/{l}/{n}", kind="anon", dataset=name, method=m, l=l, n=ds.n, seconds=secs,
                       cpu_seconds=cpu, error=error(rel, ds, 5, 0.06, cfg["workloads"], cfg["queries"]),
                       load=os.getloadavg()[0])
            if l == l_main:
                rec["by_qd"] = {str(qd): error(rel, ds, qd, 0.06, cfg["workloads"], cfg["queries"]) for qd in cfg["qds"]}
                rec["by_s"] = {str(s): error(rel, ds, 5, s, cfg["workloads"], cfg["queries"]) for s in cfg["ss"]}
            _append(store, rec)
            done[rec["key"]] = rec
            print(f"{name} {m} l={l} {secs:.1f}s (cpu {cpu:.1f}s) err={rec['error']:.4f} load={rec['load']:.1f}", flush=True)
            del rel
        dsets.clear()
        for c in cfg["copies"]:
            todo = [m for m in cfg["time_methods"] if f"time/{m}/{c * n}" not in done
                    and not (c > 1 and m in ("tailor", "ace", "mask") and c * n > 2_400_000)]
            if not todo:
                continue
            big = occ_sal_dataset(occ_sal(n, "occupation", rng=0, copies=c), name="OCC")
            for m in todo:
                c0 = time.process_time()
                try:
                    rel, secs = anonymize(m, big, 8)
                except InfeasibleError as e:
                    print(f"time OCC {m} n={big.n} FAILED: {e}", flush=True)
                    continue
                cpu = time.process_time() - c0
                del rel
                rec = dict(key=f"time/{m}/{c * n}", kind="time", method=m, n=big.n, seconds=secs, cpu_seconds=cpu,
                           peak_rss_gib=_peak_rss_gib(), load=os.getloadavg()[0])
                _append(store, rec)
                done[rec["key"]] = rec
                print(f"time OCC {m} n={big.n} {secs:.1f}s (cpu {cpu:.1f}s) load={rec['load']:.1f}", flush=True)
            del big
    f11, f12, f13, f14, f15 = frames(done)
    for name, frame in (("fig11_error_vs_l", f11), ("fig12_error_vs_qd", f12), ("fig13_error_vs_s", f13),
                        ("fig14_time_vs_n", f14), ("fig15_time_vs_l", f15)):
        frame.to_csv(out / f"{name}.csv", index=False)
    w = f"n = {n:,}, {cfg['workloads']}×{cfg['queries']} queries"
    plot(f11, "l", "error", out / "fig11_error_vs_l.png", f"Fig. 11: error vs ℓ (qd 5, s 6%; {w})", logy=True)
    plot(f12, "qd", "error", out / "fig12_error_vs_qd.png", f"Fig. 12: error vs qd (ℓ 8, s 6%; {w})", logy=True)
    plot(f13, "s", "error", out / "fig13_error_vs_s.png", f"Fig. 13: error vs s (ℓ 8, qd 5; {w})", logy=True)
    plot(f14, "n", "cpu_seconds", out / "fig14_time_vs_n.png", "Fig. 14: CPU time vs n (OCC, ℓ = 8)", by_dataset=False)
    plot(f15, "l", "cpu_seconds", out / "fig15_time_vs_l.png", f"Fig. 15: CPU time vs ℓ (OCC, n = {n:,})", by_dataset=False)
    print(summarize(f11, f12, f13, f14, f15, cfg, out, data_note))
    return 0


if __name__ == "__main__":
    sys.exit(main())
