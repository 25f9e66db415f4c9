"""Reproduce Figures 11-15 of Xiao, Tao & Koudas, "Transparent anonymization" (TODS 2010, §4).

One command::

    python experiments/transparent/run.py --quick     # CI: 3,000 rows, 2 values per axis, ~1 min
    python experiments/transparent/run.py --medium    # 100k rows, all axis values
    python experiments/transparent/run.py --full      # the paper's 600k rows (and up to 16 copies for Fig. 14; the default)

Data: the synthetic OCC and SAL tables of :mod:`ktype.datasets.occsal` (Table XII domains,
Table XIV correlation ratios; the IPUMS extracts are not redistributable). Pass
``--occ FILE --sal FILE`` to use the real files (:func:`ktype.datasets.occsal.read_occ_sal`).

Methods: Tailor, Ace, Hybrid (transparent), Mondrian (the registered ``mondrian_ldiv``: the precise
ℓ-diverse strict Mondrian, our reading of the Mondrian that §4.1 names among its "two l-diversity generalization
algorithms" without details) and Mask (k = ℓ).
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
    if method == "mondrian":  # the precise ℓ-diverse strict Mondrian (registered as mondrian_ldiv)
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


def suppressed_error(ds, qd: int, s: float, workloads: int, queries: int) -> float:
    """Error of the release that suppresses every QI (each record's box is the whole QI domain;
    sensitive values exact): the floor any useful method has to beat."""
    from ktype.measures.range_query import _answers, actual_answers

    col = ds.sensitive_column(None)
    m_s = len(ds.sensitive_values[col])
    blo = np.zeros((1, ds.r), dtype=np.int64)
    bhi = (np.asarray(ds.domain_sizes, dtype=np.int64) - 1)[None, :]
    pre = np.concatenate([[0], np.cumsum(np.bincount(ds.sensitive_codes[col], minlength=m_s))])[None, :]
    errs = []
    for w in range(workloads):
        wl = range_query_workload(ds, qd=qd, selectivity=s, queries=queries, seed=w)
        est = _answers(blo, bhi, pre.astype(np.int64), wl.lo, wl.hi, wl.s_lo, wl.s_hi)
        act = actual_answers(ds, wl)
        errs.append(float((np.abs(act - est) / np.maximum(act, 0.005 * ds.n)).mean()))
    return float(np.mean(errs))


#: the seeds of table draw i: OCC ``2i``, SAL ``2i + 1`` (draw 0 is the table of the main run)
def draw_seed(name: str, i: int) -> int:
    return 2 * i + (name == "SAL")


def run_draws(cfg: dict, out: Path, draws: int, workloads: int, ls: list[int] | None = None) -> None:
    """Several independent draws of the synthetic OCC/SAL tables (the spread the data adds).

    Every method at every ℓ (qd = 5, s = 6%), the qd and s axes at ℓ = 8, and the all-suppressed
    baseline, each with ``workloads`` workloads of ``cfg["queries"]`` queries; ℓ = 8 first for every
    draw, then the other ℓ. Appended to ``draws.jsonl`` (resumes)."""
    n = cfg["n"]
    store = out / "draws.jsonl"
    done = _load(store)
    sens = {"OCC": "occupation", "SAL": "income"}
    l_main = 8 if 8 in cfg["ls"] else max(cfg["ls"])
    ls = list(ls or cfg["ls"])
    plan = [(i, l_main) for i in range(draws) if l_main in ls]
    plan += [(i, l) for i in range(draws) for l in ls if l != l_main]  # noqa: E741
    warm = occ_sal_dataset(occ_sal(2000, "occupation", rng=5), name="warm-up")
    for m in METHODS:
        anonymize(m, warm, 6)
    cache: dict = {}
    for name in ("OCC", "SAL"):  # the main run's baseline: draw 0 with the main run's workloads
        key = f"draw/{name}/0/suppressed/{n}/{cfg['workloads']}"
        if key not in done:
            ds = occ_sal_dataset(occ_sal(n, sens[name], rng=draw_seed(name, 0)), name=name)
            rec = dict(key=key, kind="suppressed", dataset=name, draw=0, seed=draw_seed(name, 0), n=n,
                       workloads=cfg["workloads"], error=suppressed_error(ds, 5, 0.06, cfg["workloads"], cfg["queries"]),
                       by_qd={str(qd): suppressed_error(ds, qd, 0.06, cfg["workloads"], cfg["queries"]) for qd in cfg["qds"]},
                       by_s={str(s): suppressed_error(ds, 5, s, cfg["workloads"], cfg["queries"]) for s in cfg["ss"]})
            _append(store, rec)
            done[key] = rec
    for i, l in plan:  # noqa: E741
        for name in ("OCC", "SAL"):
            done = _load(store)  # another process may be filling the same store (e.g. other --draw-ls)
            keys = [f"draw/{name}/{i}/{m}/{l}/{n}/{workloads}" for m in METHODS]
            base_key = f"draw/{name}/{i}/suppressed/{n}/{workloads}"
            if all(k in done for k in keys) and base_key in done:
                continue
            if (name, i) not in cache:
                cache.clear()
                cache[(name, i)] = occ_sal_dataset(occ_sal(n, sens[name], rng=draw_seed(name, i)), name=name)
            ds = cache[(name, i)]
            if base_key not in done:
                rec = dict(key=base_key, kind="suppressed", dataset=name, draw=i, seed=draw_seed(name, i), n=n,
                           workloads=workloads, error=suppressed_error(ds, 5, 0.06, workloads, cfg["queries"]),
                           by_qd={str(qd): suppressed_error(ds, qd, 0.06, workloads, cfg["queries"]) for qd in cfg["qds"]},
                           by_s={str(s): suppressed_error(ds, 5, s, workloads, cfg["queries"]) for s in cfg["ss"]})
                _append(store, rec)
                done[base_key] = rec
            for m, key in zip(METHODS, keys):
                if key in done:
                    continue
                c0 = time.process_time()
                try:
                    rel, secs = anonymize(m, ds, l)
                except InfeasibleError as e:
                    rec = dict(key=key, kind="draw", dataset=name, draw=i, seed=draw_seed(name, i), method=m, l=l, n=n,
                               workloads=workloads, error=float("nan"), failed=str(e), load=os.getloadavg()[0])
                    _append(store, rec)
                    done[key] = rec
                    continue
                cpu = time.process_time() - c0
                rec = dict(key=key, kind="draw", dataset=name, draw=i, seed=draw_seed(name, i), method=m, l=l, n=n,
                           workloads=workloads, seconds=secs, cpu_seconds=cpu,
                           error=error(rel, ds, 5, 0.06, workloads, cfg["queries"]), load=os.getloadavg()[0])
                if l == l_main:
                    rec["by_qd"] = {str(qd): error(rel, ds, qd, 0.06, workloads, cfg["queries"]) for qd in cfg["qds"]}
                    rec["by_s"] = {str(s): error(rel, ds, 5, s, workloads, cfg["queries"]) for s in cfg["ss"]}
                _append(store, rec)
                done[key] = rec
                print(f"draw {i} {name} {m} l={l} err={rec['error']:.4f} load={rec['load']:.1f}", flush=True)
                del rel


def run_seed_spread(cfg: dict, out: Path, seeds: int, workloads: int) -> None:
    """The algorithms' own randomness: draw 0, ℓ = 8, the randomized methods with seeds 1..``seeds`` (seed 0 is
    in the draws), error at qd = 5, s = 6% -> ``draws.jsonl`` (kind "seed")."""
    n = cfg["n"]
    store = out / "draws.jsonl"
    sens = {"OCC": "occupation", "SAL": "income"}
    for name in ("OCC", "SAL"):
        done = _load(store)
        ds = None
        for m in ("hybrid", "tailor", "ace", "mask"):
            for sd in range(1, seeds + 1):
                key = f"seed/{name}/0/{m}/8/{n}/{workloads}/{sd}"
                if key in done:
                    continue
                if ds is None:
                    ds = occ_sal_dataset(occ_sal(n, sens[name], rng=draw_seed(name, 0)), name=name)
                if m == "mask":
                    rel = run("mask", ds, FrequencyLDiversity(8), rng=sd)
                else:
                    rel = run(m, ds, TransparentLDiversity(8), rng=sd)
                rec = dict(key=key, kind="seed", dataset=name, draw=0, method=m, l=8, n=n, workloads=workloads,
                           algo_seed=sd, error=error(rel, ds, 5, 0.06, workloads, cfg["queries"]))
                _append(store, rec)
                print(f"seed {sd} {name} {m} err={rec['error']:.4f}", flush=True)
                del rel


#: 1-minute load at or below which a timing counts as idle: the measuring process itself adds ~1
#: on this 2-core machine, so anything up to 1.5 means no other job was running
IDLE_LOAD = 1.5


def _idle_words(load: pd.Series, short: bool = False) -> str:
    if float(load.max()) <= IDLE_LOAD:
        return "idle" if short else ("the machine was **idle** apart from the measurement itself (its own process "
                                     f"makes the load ~1 on {os.cpu_count()} cores)")
    return "not idle" if short else "the machine was **not idle**, so the times are inflated alike at every ℓ"


def run_fig15_repeats(cfg: dict, out: Path, repeats: int) -> None:
    """Fig. 15 again, ``repeats`` times per point (OCC draw 0, base n), each with its load;
    appended to ``fig15_repeats.jsonl``. The repeats interleave ℓ and methods, so a change of
    load during the run falls on every point alike."""
    n = cfg["n"]
    store = out / "fig15_repeats.jsonl"
    done = _load(store)
    warm = occ_sal_dataset(occ_sal(2000, "occupation", rng=5), name="warm-up")
    for m in METHODS:
        anonymize(m, warm, 6)
    ds = occ_sal_dataset(occ_sal(n, "occupation", rng=0), name="OCC")
    for r in range(repeats):
        for l in cfg["ls"]:  # noqa: E741
            for m in METHODS:
                key = f"rep/{m}/{l}/{n}/{r}"
                if key in done:
                    continue
                load0 = os.getloadavg()[0]
                c0 = time.process_time()
                rel, secs = anonymize(m, ds, l)
                cpu = time.process_time() - c0
                del rel
                rec = dict(key=key, method=m, l=l, n=n, repeat=r, seconds=secs, cpu_seconds=cpu, load_before=load0,
                           load=os.getloadavg()[0])
                _append(store, rec)
                done[key] = rec
                print(f"fig15 rep {r} {m} l={l} cpu={cpu:.2f}s wall={secs:.2f}s load={rec['load']:.2f}", flush=True)


#: axis labels with units; one colour per method in every figure
LABELS = {"l": "ℓ", "qd": "query dimensionality qd", "s": "selectivity s (fraction of the domain)", "n": "n (rows)",
          "error": "mean relative error (δ = 0.5% n)", "cpu_seconds": "CPU time (s)"}
COLOURS = {"hybrid": "tab:orange", "mondrian": "tab:red", "tailor": "tab:purple", "ace": "tab:blue", "mask": "tab:green"}


def plot(df: pd.DataFrame, x: str, y: str, path: Path, title: str, logy: bool = False, by_dataset: bool = True,
         draws: pd.DataFrame | None = None, baseline: pd.DataFrame | None = None, repeats: pd.DataFrame | None = None,
         note: str = "") -> None:
    """One panel per dataset. ``draws``: the same points on other table draws (one row per draw), drawn as a
    min-max band; ``baseline``: the all-suppressed release's error per draw (black dashed line: draw 0, grey band:
    the draws); ``repeats``: repeated timings (line = median, bars = min-max), ``df`` then drawn hollow."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = sorted(df["dataset"].unique()) if by_dataset else [None]
    fig, axes = plt.subplots(1, len(groups), figsize=(5.4 * len(groups) + 1.9, 4.0), squeeze=False)
    for ax, g in zip(axes[0], groups):
        sub = df if g is None else df[df["dataset"] == g]
        for m, part in sub.groupby("method"):
            part = part.sort_values(x)
            c = COLOURS.get(str(m))
            if repeats is not None:
                rep = repeats[repeats["method"] == m].groupby(x)[y]
                med, lo, hi = rep.median(), rep.min(), rep.max()
                ax.errorbar(med.index, med.values, yerr=[med.values - lo.values, hi.values - med.values], marker="o",
                            color=c, capsize=3, label=f"{m} (median of {int(rep.size().min())})")
                ax.plot(part[x], part[y], ls="none", marker="o", mfc="none", mec=c, ms=9)
                continue
            ax.plot(part[x], part[y], marker="o", label=m, color=c)
            if draws is not None:
                dd = draws[(draws["dataset"] == g) & (draws["method"] == m)].groupby(x)[y]
                if dd.size().min() > 1:
                    ax.fill_between(dd.min().index, dd.min().values, dd.max().values, color=c, alpha=0.15, lw=0)
        if baseline is not None and g is not None:
            b = baseline[baseline["dataset"] == g]
            b0 = b[b["kind"] == "main"].sort_values(x)
            ax.plot(b0[x], b0[y], color="black", ls="--", lw=1.2, label="all QIs suppressed")
            bb = b[b["kind"] == "draw"].groupby(x)[y]
            if len(bb) and bb.size().min() > 1:
                ax.fill_between(bb.min().index, bb.min().values, bb.max().values, color="grey", alpha=0.15, lw=0)
        ax.set_xlabel(LABELS.get(x, x))
        ax.set_ylabel(LABELS.get(y, y))
        if x in ("l", "qd"):
            ax.set_xticks(sorted(sub[x].unique()))
        ax.set_title(str(g) if g else title, fontsize=10)
        if logy:
            ax.set_yscale("log")
        ax.grid(alpha=0.3)
    handles, labels = axes[0][-1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center right", fontsize=8)
    if by_dataset:
        fig.suptitle(title, fontsize=11)
    bottom = 0.0
    if note:
        fig.text(0.01, 0.01, note, fontsize=7.5, ha="left", va="bottom", wrap=True)
        bottom = 0.12
    fig.tight_layout(rect=(0, bottom, 1 - 1.9 / fig.get_figwidth(), 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def draw_frames(records: dict[str, dict]) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The draws as long tables: errors vs ℓ (Fig. 11 setting), vs qd and vs s (ℓ = 8), and the all-suppressed
    baseline (``axis`` = "l", "qd" or "s")."""
    r11, r12, r13, rb = [], [], [], []
    for rec in records.values():
        if rec["kind"] == "seed":
            continue
        base = dict(dataset=rec["dataset"], draw=rec["draw"], workloads=rec["workloads"])
        if rec["kind"] == "suppressed":
            rb.append(dict(base, axis="main", value=np.nan, error=rec["error"]))
            rb += [dict(base, axis="qd", value=int(q), error=e) for q, e in rec["by_qd"].items()]
            rb += [dict(base, axis="s", value=float(v), error=e) for v, e in rec["by_s"].items()]
            continue
        base["method"] = rec["method"]
        r11.append(dict(base, l=rec["l"], error=rec["error"]))
        r12 += [dict(base, qd=int(q), error=e) for q, e in rec.get("by_qd", {}).items()]
        r13 += [dict(base, s=float(v), error=e) for v, e in rec.get("by_s", {}).items()]
    cols = ["dataset", "draw", "workloads"]
    return (pd.DataFrame(r11, columns=cols + ["method", "l", "error"]),
            pd.DataFrame(r12, columns=cols + ["method", "qd", "error"]),
            pd.DataFrame(r13, columns=cols + ["method", "s", "error"]),
            pd.DataFrame(rb, columns=cols + ["axis", "value", "error"]))


def _trend(frame: pd.DataFrame, x: str) -> pd.DataFrame:
    """Per (dataset, method): the number of consecutive steps along x where the error falls / rises, the error
    at the first and last x, and the steps that rise."""
    rows = []
    for (ds, m), part in frame.groupby(["dataset", "method"]):
        part = part.sort_values(x)
        xs, e = part[x].to_numpy(), part["error"].to_numpy()
        d = np.diff(e)
        rows.append(dict(dataset=ds, method=m, falls=int((d < 0).sum()), rises=int((d > 0).sum()), steps=len(d),
                         first=e[0], last=e[-1],
                         up=[f"{_fmt(xs[i])}→{_fmt(xs[i + 1])}" for i in np.flatnonzero(d > 0)],
                         down=[f"{_fmt(xs[i])}→{_fmt(xs[i + 1])}" for i in np.flatnonzero(d < 0)]))
    return pd.DataFrame(rows)


def _dips(t: pd.Series) -> str:
    """Methods whose time at ℓ = 8 is below both ℓ = 7 and ℓ = 9 (``t`` indexed by (method, l)), with the times."""
    out = []
    for m in t.index.get_level_values(0).unique():
        v = t.xs(m, level=0)
        if {7, 8, 9} <= set(v.index) and v[8] < min(v[7], v[9]):
            out.append(f"{m} ({v[7]:.2f} / {v[8]:.2f} / {v[9]:.2f} s)")
    n = t.index.get_level_values(0).nunique()
    return f"{len(out)}/{n} methods" + (": " + ", ".join(out) if out else "")


def _fmt(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def _spread(d: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    g = d.groupby(keys)["error"]
    return pd.DataFrame({"min": g.min(), "max": g.max(), "draws": g.size()})


def summarize(f11, f12, f13, f14, f15, cfg, out: Path, data_note: str, draws: dict | None = None,
              reps: pd.DataFrame | None = None, seeds: pd.DataFrame | None = None) -> str:
    """The findings, each computed from the tables here: the main run (draw 0, ``cfg['workloads']`` workloads) and,
    when present, the other table draws (``draws``: ``run_draws``) and the repeated Fig. 15 timings (``reps``)."""
    draws = draws or {}
    d8, d11, d12, d13, base, main_base = (draws.get(k) for k in ("l8", "l", "qd", "s", "base", "main_base"))
    have_draws = d8 is not None and len(d8) and d8["draw"].nunique() > 1
    nd = int(d8["draw"].nunique()) if have_draws else 1
    dw = int(d8["workloads"].iloc[0]) if have_draws else cfg["workloads"]
    have_l = d11 is not None and len(d11) and d11["draw"].nunique() > 1
    ndl = int(d11["draw"].nunique()) if have_l else 1
    dls = sorted(int(x) for x in d11["l"].unique()) if have_l else []
    L = ["# Transparent anonymization (TODS 2010) §4: reproduction summary", "",
         f"Data: {data_note}. Base n = {cfg['n']:,}; {cfg['workloads']} workload(s) of {cfg['queries']} queries per point; "
         f"ℓ ∈ {list(cfg['ls'])}, qd ∈ {list(cfg['qds'])}, s ∈ {list(cfg['ss'])}; one run per point (algorithm seed 0)."]
    if have_draws:
        L.append(
            f"The figures' lines and the numbers called *main run* are one draw of the synthetic tables (OCC seed 0, SAL "
            f"seed 1). The verdicts rest on **{nd} independent draws** of both tables at the same n (draw i: OCC seed 2i, "
            f"SAL seed 2i+1; draw 0 = the main run's tables) at ℓ = 8 (Figs. 12-13 and claims 1-2, 4-5)"
            + (f" and on {ndl} of them at ℓ ∈ {dls} (Fig. 11, claims 3 and 6)" if have_l else " (the other ℓ were not "
               "redrawn: claims 3 and 6 rest on the main run only)")
            + f", each point with {dw} workload of {cfg['queries']} queries "
            "(workload seed 0); the figures shade their min-max. `draws.jsonl` holds them. The synthetic tables match "
            "only the domains and the QI-sensitive correlation ratios of the real OCC/SAL, and their marginals are "
            "near-uniform.")
        sp8 = d8.groupby(["dataset", "method"])["error"].agg(lambda v: v.max() - v.min())
        L.append(f"Redrawing the table moves an error at ℓ = 8 by up to {sp8.max():.3f} (max - min over the draws; "
                 + ", ".join(f"{ds} {m} {v:.3f}" for (ds, m), v in sp8.items()) + ").")
        if seeds is not None and len(seeds):
            s0 = d8[d8["draw"] == 0][["dataset", "method", "error"]].assign(algo_seed=0)
            ss = pd.concat([s0[s0["method"].isin(seeds["method"].unique())], seeds[["dataset", "method", "error", "algo_seed"]]])
            ssp = ss.groupby(["dataset", "method"])["error"].agg(lambda v: v.max() - v.min())
            L.append(f"The algorithms' own seed (seeds 0-{int(ss['algo_seed'].max())}, draw 0, ℓ = 8) moves it by at most "
                     f"{ssp.max():.4f} (" + ", ".join(f"{ds} {m} {v:.4f}" for (ds, m), v in ssp.items()) + ").")
    if main_base is not None and len(main_base):
        L.append("**Baseline**: the release that suppresses every QI (each record's box the whole QI domain, sensitive "
                 "values exact) — a method that is not below it gives no useful answers on this workload. It is the black "
                 "dashed line in Figs. 11-13.")
    L += ["", "## Findings, point by point", ""]

    def err(frame, ds, m, l=8):  # noqa: E741
        v = frame[(frame["dataset"] == ds) & (frame["method"] == m) & (frame["l"] == l)]["error"]
        return float(v.mean()) if len(v) else float("nan")

    def base_err(ds, axis="main", value=None, draw=None):
        if base is None or not len(base):
            return pd.Series(dtype=float)
        b = base[(base["dataset"] == ds) & (base["axis"] == axis)]
        if value is not None:
            b = b[np.isclose(b["value"].astype(float), float(value))]
        if draw is not None:
            b = b[b["draw"] == draw]
        return b["error"]

    dsets = sorted(f11["dataset"].unique())
    others = ("tailor", "ace", "mask")
    # 1. ranking at ℓ = 8
    L.append("1. **Hybrid ≈ Mondrian ≪ Tailor, Ace, Mask on error** (Fig. 11, ℓ = 8, qd = 5, s = 6%).")
    ok_main = True
    for ds in dsets:
        h = err(f11, ds, "hybrid")
        vals = {m: err(f11, ds, m) for m in ("mondrian", *others)}
        ok_main &= all(h < vals[m] for m in others)
        line = f"  - {ds}, main run: hybrid {h:.3f}, " + ", ".join(f"{m} {v:.3f}" for m, v in vals.items())
        mb = main_base[(main_base["dataset"] == ds) & (main_base["axis"] == "main")]["error"] if main_base is not None else []
        if len(mb):
            line += f"; all suppressed {float(mb.iloc[0]):.3f}"
        L.append(line + ".")
    if have_draws:
        sp = _spread(d8, ["dataset", "method"])
        for ds in dsets:
            bs = base_err(ds)
            L.append(f"  - {ds}, {nd} draws (min-max): " + ", ".join(
                f"{m} {sp.loc[(ds, m), 'min']:.3f}-{sp.loc[(ds, m), 'max']:.3f}" for m in METHODS if (ds, m) in sp.index)
                + (f"; all suppressed {bs.min():.3f}-{bs.max():.3f}" if len(bs) else "") + ".")
        piv = d8.pivot_table(index=["dataset", "draw"], columns="method", values="error")
        h_best = (piv["hybrid"] < piv[list(others)].min(axis=1))
        ratio = piv["hybrid"] / piv["mondrian"]
        tail_best = piv[["hybrid", "tailor", "ace", "mask"]].idxmin(axis=1)
        L.append(f"   Hybrid below Tailor, Ace and Mask in {int(h_best.sum())} of {len(piv)} (table, draw); "
                 f"lowest of the four transparent/masking methods: " + ", ".join(
                     f"{m} {c}" for m, c in tail_best.value_counts().items())
                 + f". Hybrid / Mondrian error ratio {ratio.min():.2f}-{ratio.max():.2f} (1.0 = equal).")
        if base is not None and len(base):
            bm = base[base["axis"] == "main"].set_index(["dataset", "draw"])["error"]
            above = {m: int((piv[m] >= bm.reindex(piv.index)).sum()) for m in METHODS}
            L.append("   At or above the all-suppressed error, (table, draw) out of "
                     f"{len(piv)}: " + ", ".join(f"{m} {v}" for m, v in above.items()) + ".")
        verdict = ("holds" if h_best.all() else "does not hold" if not h_best.any()
                   else f"holds in {int(h_best.sum())}/{len(piv)} (table, draw)")
        L.append(f"   **Verdict: Hybrid better than Tailor, Ace and Mask — {verdict}; Hybrid ≈ Mondrian — "
                 + ("holds (ratio within 1.5)" if ratio.between(1 / 1.5, 1.5).all() else
                    f"no: Hybrid's error is {ratio.min():.2f}-{ratio.max():.2f}× Mondrian's") + "**.")
    else:
        L.append(f"   **Verdict (one draw): {'holds' if ok_main else 'does not hold'}**.")
    # 2. max error < 10% (Fig. 12)
    hm = f12[f12["method"].isin(["hybrid", "mondrian"])]
    mx = hm.groupby("method")["error"].max()
    line = (f"2. **Hybrid's and Mondrian's maximum error < 10%** (Fig. 12, qd = 2..5): main run max Hybrid "
            f"{mx.get('hybrid', float('nan')):.3f}, Mondrian {mx.get('mondrian', float('nan')):.3f}")
    if have_draws:
        dm = d12[d12["method"].isin(["hybrid", "mondrian"])].groupby(["method", "dataset", "draw"])["error"].max()
        below = dm.groupby(level="method").apply(lambda v: int((v < 0.10).sum()))
        rng_ = dm.groupby(level="method").agg(["min", "max"])
        line += (f"; over {nd} draws the maximum per (table, draw) is Hybrid {rng_.loc['hybrid', 'min']:.3f}-"
                 f"{rng_.loc['hybrid', 'max']:.3f}, Mondrian {rng_.loc['mondrian', 'min']:.3f}-{rng_.loc['mondrian', 'max']:.3f}; "
                 f"below 10% in Hybrid {below['hybrid']}/{2 * nd}, Mondrian {below['mondrian']}/{2 * nd} (table, draw)")
        ok = int(below.sum()) == 4 * nd
        line += f": **{'holds' if ok else 'does not hold' if int(below.sum()) == 0 else 'does not hold on every draw'}**."
    else:
        line += f": **{'holds' if (mx < 0.10).all() else 'does not hold'}**."
    L.append(line)
    # 3. Ace worse on SAL than on OCC
    if {"OCC", "SAL"} <= set(f11["dataset"]):
        a = f11[f11["method"] == "ace"].groupby("dataset")["error"].mean()
        line = f"3. **Ace is worse on SAL than on OCC** (mean over ℓ): main run OCC {a['OCC']:.3f}, SAL {a['SAL']:.3f}"
        if have_l:
            ad = d11[d11["method"] == "ace"].groupby(["draw", "dataset"])["error"].mean().unstack()
            w = int((ad["SAL"] > ad["OCC"]).sum())
            line += (f"; over {ndl} draws (mean over ℓ ∈ {dls}): SAL above OCC in {w}/{len(ad)} (OCC {ad['OCC'].min():.3f}-{ad['OCC'].max():.3f}, "
                     f"SAL {ad['SAL'].min():.3f}-{ad['SAL'].max():.3f}): **{'holds' if w == len(ad) else 'holds in ' + str(w) + '/' + str(len(ad)) + ' draws'}**.")
        else:
            line += f": **{'holds' if a['SAL'] > a['OCC'] else 'does not hold'}**."
        L.append(line)
    # 4-6. trends, curve by curve
    for num, (frame, dframe, x, what, fig) in enumerate((
            (f12, d12, "qd", "falls as qd grows", "Fig. 12, ℓ = 8, s = 6%"),
            (f13, d13, "s", "falls as s grows", "Fig. 13, ℓ = 8, qd = 5"),
            (f11, d11, "l", "rises with ℓ", "Fig. 11, qd = 5, s = 6%")), start=4):
        want = "rises" if x == "l" else "falls"
        tr = _trend(frame, x)
        mono = tr[tr[want] == tr["steps"]]
        L.append(f"{num}. **Error {what}** ({fig}). Main run, curve by curve (error at the first → last {LABELS.get(x, x).split(' (')[0]}; "
                 f"the steps against the claim):")
        for ds in dsets:
            t = tr[tr["dataset"] == ds]
            against = "down" if want == "rises" else "up"
            L.append(f"  - {ds}: " + "; ".join(
                f"{r.method} {r.first:.3f} → {r.last:.3f}" + (f" ({', '.join(getattr(r, against))} {'fall' if want == 'rises' else 'rise'})"
                                                           if getattr(r, against) else " (monotone)")
                for r in t.itertuples()))
        verdict = f"{want} monotonically on {len(mono)}/{len(tr)} (table, method) curves"
        ends = int(((tr["last"] > tr["first"]) if want == "rises" else (tr["last"] < tr["first"])).sum())
        verdict += f", {want.rstrip('s')}s from the first to the last value on {ends}/{len(tr)}"
        if dframe is not None and len(dframe) and dframe["draw"].nunique() > 1:
            dd = [(_trend(g, x), i) for i, g in dframe.groupby("draw")]
            ndx = dframe["draw"].nunique()
            mono_d = sum(int((t[want] == t["steps"]).sum()) for t, _ in dd)
            ends_d = sum(int(((t["last"] > t["first"]) if want == "rises" else (t["last"] < t["first"])).sum()) for t, _ in dd)
            tot_d = sum(len(t) for t, _ in dd)
            per = pd.concat([t.assign(draw=i) for t, i in dd])
            per["mono"] = per[want] == per["steps"]
            by_m = per.groupby(["dataset", "method"])["mono"].sum()
            over = f"{ndx} draws" + (f", ℓ ∈ {sorted(int(v) for v in dframe['l'].unique())}" if x == "l" else "")
            verdict += (f"; over {over}: monotone on {mono_d}/{tot_d} curves, first-to-last on {ends_d}/{tot_d}; "
                        "monotone in how many draws per curve: " + ", ".join(
                            f"{ds} {m} {int(v)}/{ndx}" for (ds, m), v in by_m.items()))
        L.append(f"   **Verdict: {verdict}**.")
    # 7. linearity
    L.append("7. **Roughly linear time** (Fig. 14, time vs n; main run, one timing per point):")
    for m, part in f14.groupby("method"):
        part = part.sort_values("n")
        if len(part) >= 2:
            slope = np.polyfit(np.log(part["n"]), np.log(part["cpu_seconds"]), 1)[0]
            L.append(f"  - **{m}**: log-log slope of CPU time {slope:.2f} over n = {part['n'].min():,}..{part['n'].max():,} "
                     f"({'roughly linear' if slope < 1.3 else 'superlinear'}); largest n took {part['cpu_seconds'].iloc[-1]:.1f} s CPU, "
                     f"{part['seconds'].iloc[-1]:.1f} s wall.")
    # 8. time vs l
    L.append("8. **Tailor and Hybrid get faster as ℓ grows; Ace, Mondrian and Mask are insensitive to ℓ** (Fig. 15, OCC).")
    if "load" in f15:
        lo8 = f15[f15["l"] == 8]["load"]
        lon = f15[f15["l"] != 8]["load"]
        L.append(f"   The main run timed each point once: ℓ = 8 at load {lo8.min():.1f}-{lo8.max():.1f}, the other ℓ at load "
                 f"{lon.min():.1f}-{lon.max():.1f}. ℓ = 8 below both ℓ = 7 and 9 (a dip) for {_dips(f15.groupby(['method', 'l'])['cpu_seconds'].median())} "
                 "(hollow markers): it follows that difference in load; CPU time depends on the load too (shared caches "
                 "and cores), less than wall time does.")
    if reps is not None and len(reps):
        g = reps.groupby(["method", "l"])["cpu_seconds"]
        med, lo, hi = g.median().unstack(), g.min().unstack(), g.max().unstack()
        ls = sorted(reps["l"].unique())
        L.append(f"   Re-measured {int(g.size().min())}× per point, repeats interleaved over ℓ and methods "
                 f"(`fig15_repeats.jsonl`), at load {reps['load'].min():.1f}-{reps['load'].max():.1f} (median "
                 f"{reps['load'].median():.1f}): " + _idle_words(reps["load"]) + ". Median CPU s [min, max] per ℓ:")
        for m in med.index:
            L.append(f"  - **{m}**: " + ", ".join(f"ℓ={l_} {med.loc[m, l_]:.2f} [{lo.loc[m, l_]:.2f}, {hi.loc[m, l_]:.2f}]" for l_ in ls)
                     + f"; ℓ = {ls[0]} → {ls[-1]}: {100 * (med.loc[m, ls[-1]] / med.loc[m, ls[0]] - 1):+.0f}%.")
        L.append(f"   With the repeats interleaved over ℓ under one load, a dip at ℓ = 8 remains for {_dips(g.median())}.")
        faster = [m for m in med.index if hi.loc[m, ls[-1]] < lo.loc[m, ls[0]]]
        flat = [m for m in med.index if abs(med.loc[m, ls[-1]] / med.loc[m, ls[0]] - 1) < 0.15]
        L.append(f"   Faster at ℓ = {ls[-1]} than at ℓ = {ls[0]} with no overlap of the repeats' ranges: "
                 f"{', '.join(faster) or 'none'}; median within ±15% from ℓ = {ls[0]} to {ls[-1]}: {', '.join(flat) or 'none'}. "
                 "**Verdict: Tailor and Hybrid faster — "
                 + ("holds" if {"tailor", "hybrid"} <= set(faster) else
                    "Tailor only" if "tailor" in faster else "Hybrid only" if "hybrid" in faster else "does not hold")
                 + "; Ace, Mondrian, Mask insensitive — "
                 + ("holds" if {"ace", "mondrian", "mask"} <= set(flat) else
                    f"{', '.join(sorted({'ace', 'mondrian', 'mask'} & set(flat))) or 'none of them'} only") + "**.")
    else:
        for m, part in f15.groupby("method"):
            part = part.sort_values("l")
            t = part["cpu_seconds"].to_numpy()
            L.append(f"  - **{m}**: {t[0]:.2f} s CPU at ℓ = {part['l'].iloc[0]} → {t[-1]:.2f} s at ℓ = {part['l'].iloc[-1]}.")
    L += ["", "The paper also says Mask is superlinear in n and Hybrid anonymizes ~10M tuples in < 5 min (C++).", "",
          "Caveats: synthetic data matching only the domains and the QI-sensitive correlation ratios of OCC/SAL; "
          "one algorithm run per point (seed 0); times under shared load (each with its load in the records).", ""]
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
                r15.append(dict(base, l=rec["l"], seconds=rec["seconds"], cpu_seconds=rec["cpu_seconds"], load=rec.get("load")))
            for qd, e in rec.get("by_qd", {}).items():
                r12.append(dict(base, qd=int(qd), error=e))
            for s, e in rec.get("by_s", {}).items():
                r13.append(dict(base, s=float(s), error=e))
        else:
            r14.append(dict(dataset="OCC", method=rec["method"], n=rec["n"], seconds=rec["seconds"], cpu_seconds=rec["cpu_seconds"],
                            peak_rss_gib=rec.get("peak_rss_gib")))
    cols = {11: ["dataset", "method", "l", "error", "seconds", "cpu_seconds"], 12: ["dataset", "method", "qd", "error"],
            13: ["dataset", "method", "s", "error"], 14: ["dataset", "method", "n", "seconds", "cpu_seconds", "peak_rss_gib"],
            15: ["dataset", "method", "l", "seconds", "cpu_seconds", "load"]}
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
    ap.add_argument("--draws", type=int, default=0,
                    help="also run N independent draws of the synthetic tables (draws.jsonl; see run_draws)")
    ap.add_argument("--draw-workloads", type=int, default=1, help="workloads per point in the draws (default 1)")
    ap.add_argument("--draw-ls", type=int, nargs="+", help="only these ℓ in the draws (default: every ℓ of the preset)")
    ap.add_argument("--algo-seeds", type=int, default=0,
                    help="also run the randomized methods with seeds 1..N on draw 0 at ℓ = 8 (draws.jsonl)")
    ap.add_argument("--fig15-repeats", type=int, default=0, help="re-measure Fig. 15 N times per point (fig15_repeats.jsonl)")
    ap.add_argument("--only-extra", action="store_true",
                    help="run only --draws / --fig15-repeats (not the main grid), then write the summary")
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
    if args.fig15_repeats and not args.summary_only:
        run_fig15_repeats(cfg, out, args.fig15_repeats)
    if args.algo_seeds and not args.summary_only:
        run_seed_spread(cfg, out, args.algo_seeds, args.draw_workloads)
    if args.draws and not args.summary_only:
        run_draws(cfg, out, args.draws, args.draw_workloads, args.draw_ls)
    if not args.summary_only and not args.only_extra:
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
    if f11.empty:  # e.g. --only-extra into a new --out: nothing of the main grid to draw or judge
        print(f"No points of the main grid in {out}; the extra measurements are in draws.jsonl / fig15_repeats.jsonl.")
        return 0
    for name, frame in (("fig11_error_vs_l", f11), ("fig12_error_vs_qd", f12), ("fig13_error_vs_s", f13),
                        ("fig14_time_vs_n", f14), ("fig15_time_vs_l", f15)):
        frame.to_csv(out / f"{name}.csv", index=False)
    d11, d12, d13, dbase = draw_frames(_load(out / "draws.jsonl"))
    main_base = dbase[(dbase["workloads"] == cfg["workloads"]) & (dbase["draw"] == 0)]  # the main run's tables
    dbase = dbase[dbase["workloads"] == (int(d11["workloads"].iloc[0]) if len(d11) else -1)]
    # only complete draws: every method on both tables at ℓ = 8 (with the qd and s axes) for Figs. 12-13 and
    # claims 1-2; and, for the ℓ curves, at every ℓ that draw 0 has for every method and table
    n_cells = 2 * len(METHODS)
    full8 = [i for i, g in d12.groupby("draw") if g[["dataset", "method"]].drop_duplicates().shape[0] == n_cells]
    cnt = d11[d11["draw"] == 0].groupby("l").size() if len(d11) else pd.Series(dtype=int)
    draw_ls = sorted(int(x) for x in cnt[cnt == n_cells].index)
    full_l = [i for i, g in d11.groupby("draw") if g[g["l"].isin(draw_ls)].groupby("l").size().reindex(draw_ls).eq(n_cells).all()]
    d11l = d11[d11["draw"].isin(full_l) & d11["l"].isin(draw_ls)]
    d11 = d11[d11["draw"].isin(full8)]
    d12, d13 = d12[d12["draw"].isin(full8)], d13[d13["draw"].isin(full8)]
    dbase = dbase[dbase["draw"].isin(full8)]
    reps = pd.DataFrame(list(_load(out / "fig15_repeats.jsonl").values()))
    nd = d11["draw"].nunique() if len(d11) else 0
    w = f"n = {n:,}, {cfg['workloads']}×{cfg['queries']} queries"
    shade = f"; shaded: min-max of {nd} table draws" if nd > 1 else ""

    def bl(axis: str, x: str) -> pd.DataFrame | None:
        b = pd.concat([main_base.assign(kind="main"), dbase.assign(kind="draw")])
        b = b[b["axis"] == axis].rename(columns={"value": x})
        return b if len(b) else None

    b11 = bl("main", "l")
    if b11 is not None:  # the baseline does not depend on ℓ: one value per draw, drawn across the ℓ axis
        b11 = pd.concat([b11.assign(l=v) for v in cfg["ls"]])
    shade11 = ""
    if d11l["draw"].nunique() > 1:
        shade11 = f"; shaded: min-max of {d11l['draw'].nunique()} table draws at ℓ = {sorted(int(v) for v in d11l['l'].unique())}"
    plot(f11, "l", "error", out / "fig11_error_vs_l.png", f"Fig. 11: error vs ℓ (qd 5, s 6%; {w}{shade11})", logy=True,
         draws=d11l if d11l["draw"].nunique() > 1 else None, baseline=b11)
    plot(f12, "qd", "error", out / "fig12_error_vs_qd.png", f"Fig. 12: error vs qd (ℓ 8, s 6%; {w}{shade})", logy=True,
         draws=d12 if nd > 1 else None, baseline=bl("qd", "qd"))
    plot(f13, "s", "error", out / "fig13_error_vs_s.png", f"Fig. 13: error vs s (ℓ 8, qd 5; {w}{shade})", logy=True,
         draws=d13 if nd > 1 else None, baseline=bl("s", "s"))
    plot(f14, "n", "cpu_seconds", out / "fig14_time_vs_n.png", "Fig. 14: CPU time vs n (OCC, ℓ = 8)", by_dataset=False)
    note15 = ""
    if len(reps):
        note15 = (f"Lines: median of {int(reps.groupby(['method', 'l']).size().min())} repeats (bars: min-max) at load "
                  f"{reps['load'].min():.1f}-{reps['load'].max():.1f} ({_idle_words(reps['load'], short=True)}). Hollow: the main run's single timings "
                  "(ℓ = 8 at load < 1, the other ℓ at load 10-13).")
    plot(f15, "l", "cpu_seconds", out / "fig15_time_vs_l.png", f"Fig. 15: CPU time vs ℓ (OCC, n = {n:,})", by_dataset=False,
         repeats=reps if len(reps) else None, note=note15)
    draws = {"l8": d11[d11["l"] == 8], "l": d11l, "qd": d12, "s": d13, "base": dbase, "main_base": main_base}
    seeds = pd.DataFrame([r for r in _load(out / "draws.jsonl").values() if r["kind"] == "seed"])
    print(summarize(f11, f12, f13, f14, f15, cfg, out, data_note, draws, reps if len(reps) else None,
                    seeds if len(seeds) else None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
