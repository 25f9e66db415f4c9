"""Reproduce the experiments of Doka et al., "k-Anonymization by Freeform Generalization" (§8, Figs. 6-10).

One command::

    python experiments/freeform/run.py            # "full" configuration (scaled down, see FULL)
    python experiments/freeform/run.py --quick    # small configuration (CI, about two minutes)
    python experiments/freeform/run.py --medium   # the configuration of the committed results

Outputs (``experiments/freeform/results/`` or ``--out``): one CSV and one PNG per figure and
``summary.md`` judging the paper's claims point by point.

Data: the IPUMS CENSUS extract is not available, so the CENSUS-schema generator
(``ktype.datasets.census``, Table 2 schema, independent skewed marginals) stands in; Fig. 8
is also run on the bundled Adult (first rows, its 8 demographic QIs). Every release goes
through the registry, i.e. it is verified by its model's independent checker before its GCP
(Eq. 3, data-range normalisation) is recorded. Methods: ``greedy``, ``sortgreedy``,
``hungarian`` (freeform, this paper), ``mip`` (optimum, tiny tables), ``mincostflow``,
``nh`` (ring reconstruction) and ``k-c`` (ktype's k-concealment, run without its
randomization as in the paper; its cells are hierarchy nodes, so its GCP counts the
leaves of each node).

Deviations from the paper's configuration (machine: 2 shared cores, not 24): sizes are
scaled down to fit a shared 2-core machine (see ``FULL``: 20 instead of 100 random 14-tuple
tables, 1,000 instead of 10,000 rows in Figs. 8-9, sizes up to 4,000 instead of 64,000 rows in
Fig. 10, k up to 100); SortGreedy and Hungarian run unpartitioned only up to 2,000 rows in
Fig. 10; runtimes are
wall-clock totals on one machine, not per-partition times on parallel machines (Fig. 6).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ktype.algorithms import get_algorithm
from ktype.data.bundled import load_adult
from ktype.datasets.synthetic import CENSUS_SCHEMA, census_dataset
from ktype.measures import gcp
from ktype.models.freeform import FreeformKAnonymity
from ktype.models.ktype_models import KConcealment

HERE = Path(__file__).resolve().parent
TABLE2 = list(CENSUS_SCHEMA)  # Table 2 order; the first d attributes for Fig. 9

ALGOS = {
    "greedy": ("freeform_greedy", {}),
    "sortgreedy": ("freeform_sortgreedy", {}),
    "hungarian": ("freeform_hungarian", {}),
    "mip": ("freeform_mip", {"time_limit": 900.0}),
    "mincostflow": ("freeform_mincostflow", {}),
    "nh": ("freeform_nh", {}),
    "k-c": ("k_concealment", {}),
}
#: §8.1 partition sizes (equal time budget per partition)
PARTITION = {"greedy": 250, "sortgreedy": 150, "hungarian": 100}

FULL = {
    "fig6": {"sizes": [5000, 20000], "ks": [10, 30]},
    "fig7": {"tables": 20, "ks": [2, 3, 4, 5, 6, 7], "runtime_sizes": [8, 10, 12, 14]},
    "fig8": {"sizes": [1000], "ks": [10, 30, 50, 100], "adult": 1000},
    "fig9": {"n": 1000, "ks": [30, 50], "ds": [2, 3, 4, 5, 6, 7, 8]},
    "fig10": {"sizes": [1000, 2000, 4000], "ks": [15, 50], "dense_max": 2000, "kc_max": 2000},
}
MEDIUM = {
    "fig6": {"sizes": [5000, 20000], "ks": [10, 30]},
    "fig7": {"tables": 8, "ks": [2, 3, 4, 5, 6], "runtime_sizes": [8, 10, 12]},
    "fig8": {"sizes": [600], "ks": [10, 30, 50, 100], "adult": 600},
    "fig9": {"n": 400, "ks": [30, 50], "ds": [2, 4, 6, 8]},
    "fig10": {"sizes": [500, 1000], "ks": [15, 50], "dense_max": 1000, "kc_max": 1000},
}
QUICK = {
    "fig6": {"sizes": [1000, 2000], "ks": [10]},
    "fig7": {"tables": 4, "ks": [2, 3, 4], "runtime_sizes": [8, 10]},
    "fig8": {"sizes": [300], "ks": [10, 20], "adult": 300},
    "fig9": {"n": 300, "ks": [10], "ds": [2, 4, 8]},
    "fig10": {"sizes": [250, 500], "ks": [5], "dense_max": 500, "kc_max": 500},
}


def measure(method: str, ds, k: int, **options) -> dict:
    name, base = ALGOS[method]
    algo = get_algorithm(name)
    model = KConcealment(k) if method == "k-c" else FreeformKAnonymity(k)
    opts = {**base, **options}
    if method == "k-c":
        opts.setdefault("randomized", False)
    t0 = time.perf_counter()
    rel = algo.func(ds, model, rng=0, **opts)
    return {"method": method, "k": k, "n": ds.n, "gcp": gcp(rel), "seconds": time.perf_counter() - t0}


def fig6(cfg: dict) -> pd.DataFrame:
    rows = []
    for n in cfg["sizes"]:
        ds = census_dataset(n, rng=1)
        for k in cfg["ks"]:
            for m in ("greedy", "sortgreedy", "hungarian"):
                rows.append({**measure(m, ds, k, partition_size=PARTITION[m]), "partition": PARTITION[m]})
            rows.append({**measure("nh", ds, k), "partition": f"{k}..{2 * k - 1}"})
            print(f"fig6 n={n} k={k}", flush=True)
    df = pd.DataFrame(rows)
    nh = df[df.method == "nh"].set_index(["n", "k"])["seconds"]
    df["runtime_ratio_to_nh"] = [r.seconds / nh[(r.n, r.k)] for r in df.itertuples()]
    return df


def fig7(cfg: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    rows = []
    for t in range(cfg["tables"]):
        ds = census_dataset(14, rng=1000 + t)
        for k in cfg["ks"]:
            for m in ("mip", "greedy", "sortgreedy", "hungarian", "mincostflow", "nh", "k-c"):
                rows.append({**measure(m, ds, k), "table": t})
        print(f"fig7 table {t}", flush=True)
    df = pd.DataFrame(rows)
    avg = df.groupby(["k", "method"])["gcp"].mean().unstack()
    gain = avg.apply(lambda col: (avg["k-c"] - col) / (avg["k-c"] - avg["mip"]))
    g = gain.stack().rename("gain").reset_index()
    out = df.merge(g, on=["k", "method"])
    rt = []
    for n in cfg["runtime_sizes"]:
        ds = census_dataset(n, rng=7)
        k = min(6, (n + 2) // 2)
        for m in ("mip", "greedy", "sortgreedy", "hungarian", "nh", "k-c"):
            rt.append(measure(m, ds, k))
    return out, pd.DataFrame(rt)


def fig8(cfg: dict) -> pd.DataFrame:
    rows = []
    sets = [("census", n, census_dataset(n, rng=2)) for n in cfg["sizes"]]
    sets.append(("adult", cfg["adult"], load_adult(n=cfg["adult"])))
    for data, n, ds in sets:
        for k in cfg["ks"]:
            if k > (ds.n + 2) // 2:
                continue
            methods = ["greedy", "sortgreedy", "hungarian", "nh", "k-c"] + (["mincostflow"] if n <= 1000 else [])
            for m in methods:
                rows.append({**measure(m, ds, k), "data": data})
            print(f"fig8 {data} n={n} k={k}", flush=True)
    return pd.DataFrame(rows)


def fig9(cfg: dict) -> pd.DataFrame:
    rows = []
    base = census_dataset(cfg["n"], rng=3)
    for d in cfg["ds"]:
        ds = census_dataset(cfg["n"], rng=3, quasi_identifiers=TABLE2[:d])
        assert ds.n == base.n
        for k in cfg["ks"]:
            for m in ("greedy", "sortgreedy", "hungarian", "nh", "k-c"):
                rows.append({**measure(m, ds, k), "d": d})
            print(f"fig9 d={d} k={k}", flush=True)
    df = pd.DataFrame(rows)
    g2 = df[df.d == min(cfg["ds"])].set_index(["method", "k"])["gcp"]
    df["slope"] = [(r.gcp - g2[(r.method, r.k)]) / (r.d - min(cfg["ds"])) if r.d > min(cfg["ds"]) else np.nan for r in df.itertuples()]
    return df


def fig10(cfg: dict) -> pd.DataFrame:
    rows = []
    for n in cfg["sizes"]:
        ds = census_dataset(n, rng=4)
        for k in cfg["ks"]:
            for m in ("greedy", "sortgreedy", "hungarian", "nh", "k-c"):
                if m in ("sortgreedy", "hungarian") and n > cfg["dense_max"]:
                    continue
                if m == "k-c" and n > cfg["kc_max"]:
                    continue
                rows.append(measure(m, ds, k))
            print(f"fig10 n={n} k={k}", flush=True)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------- plots
def _plot(df: pd.DataFrame, x: str, y: str, path: Path, *, by: str = "k", logx: bool = False, logy: bool = False, title: str = "") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = sorted(df[by].unique())
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.4), squeeze=False)
    for ax, val in zip(axes[0], panels):
        sub = df[df[by] == val]
        for m, g in sub.groupby("method"):
            g = g.groupby(x)[y].mean()
            ax.plot(g.index, g.values, marker="o", label=m)
        ax.set_title(f"{title} {by}={val}")
        ax.set_xlabel(x)
        ax.set_ylabel(y)
        if logx:
            ax.set_xscale("log")
        if logy:
            ax.set_yscale("log")
    axes[0][-1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------------------- summary
def _order_holds(df: pd.DataFrame, keys: list[str]) -> tuple[int, int, int, int]:
    """Configurations where Hungarian <= SortGreedy and SortGreedy <= Greedy (GCP)."""
    piv = df.pivot_table(index=keys, columns="method", values="gcp")
    piv = piv.dropna(subset=[c for c in ("greedy", "sortgreedy", "hungarian") if c in piv])
    hs = int((piv["hungarian"] <= piv["sortgreedy"] + 1e-12).sum()) if "hungarian" in piv else 0
    sg = int((piv["sortgreedy"] <= piv["greedy"] + 1e-12).sum())
    return hs, sg, len(piv), len(piv)


def _improvement(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    piv = df.pivot_table(index=keys, columns="method", values="gcp")
    ours = piv[[c for c in ("greedy", "sortgreedy", "hungarian") if c in piv]].min(axis=1)
    prior = piv[[c for c in ("nh", "k-c") if c in piv]].min(axis=1)
    return ((prior - ours) / prior * 100).rename("improvement_pct").reset_index()


def summary(res: dict, label: str) -> str:
    L = ["# Freeform generalization experiments (Doka et al. 2015, §8) — summary", ""]
    L.append(
        f"Configuration: {label}; synthetic CENSUS-schema data (the IPUMS extract is not "
        "available) and bundled Adult for Fig. 8. GCP = Eq. 3 with data-range normalisation; every release verified by "
        f"its model's checker. Machine: {os.cpu_count()} shared CPUs, load at the end {os.getloadavg()[0]:.1f}."
    )
    L.append("")
    # claim 1: utility order
    f8, f10 = res.get("fig8"), res.get("fig10")
    if f8 is not None:
        hs, sg, tot, _ = _order_holds(f8, ["data", "n", "k"])
        L.append(
            f"1. **Hungarian ≥ SortGreedy ≥ Greedy in utility** (unpartitioned). Fig. 8 configurations: Hungarian ≤ SortGreedy "
            f"GCP in {hs}/{tot}, SortGreedy ≤ Greedy in {sg}/{tot}."
        )
        if f10 is not None:
            hs2, sg2, tot2, _ = _order_holds(f10[f10.method.isin(["greedy", "sortgreedy", "hungarian"])], ["n", "k"])
            L.append(f"   Fig. 10 (where all three ran): Hungarian ≤ SortGreedy in {hs2}/{tot2}, SortGreedy ≤ Greedy in {sg2}/{tot2}.")
        L.append(f"   Verdict: {'holds' if hs == tot and sg == tot else 'holds in most configurations, not all' if hs + sg >= tot else 'does not hold'}.")
    # claim 2: improvement over prior work grows with k, up to 41%
    if f8 is not None:
        imp = _improvement(f8, ["data", "n", "k"])
        best = imp.loc[imp.improvement_pct.idxmax()]
        parts = []
        for (data, n), g in imp.groupby(["data", "n"]):
            parts.append(f"{data} n={n}: " + ", ".join(f"k={int(r.k)} {r.improvement_pct:.0f}%" for r in g.itertuples()))
        grows = all(g.sort_values("k").improvement_pct.is_monotonic_increasing for _, g in imp.groupby(["data", "n"]))
        L.append(
            "2. **GCP gain over prior work (best of NH, k-c) widens with k, up to 41%.** Best freeform GCP vs best prior: "
            + "; ".join(parts)
            + f". Maximum {best.improvement_pct:.0f}% ({best.data}, n={int(best.n)}, k={int(best.k)}); "
            + ("monotone in k everywhere." if grows else "not monotone in k everywhere.")
        )
    f7 = res.get("fig7")
    if f7 is not None:
        g = f7.groupby(["k", "method"])["gcp"].mean().unstack()
        gain = f7.groupby(["k", "method"])["gain"].first().unstack()
        k2 = g.loc[g.index.min()] if 2 in g.index else None
        mcf_opt = k2 is not None and abs(k2["mincostflow"] - k2["mip"]) < 1e-9
        worse = [int(k) for k in g.index if g.loc[k, "mincostflow"] > g.loc[k, "mip"] + 1e-9]
        L.append(
            f"3. **minCostFlow is optimal at k = 2 and worse for larger k** (Fig. 7, {f7['table'].nunique()} random 14-tuple tables). "
            f"At k = 2 minCostFlow {'equals' if mcf_opt else 'differs from'} the MIP optimum; it is above the optimum for k = {worse}. "
            "Gain (fraction of the k-c → optimum gap closed, from averaged GCPs) per k: "
            + "; ".join(f"k={int(k)}: " + ", ".join(f"{m} {gain.loc[k, m]:.2f}" for m in ("hungarian", "sortgreedy", "greedy", "mincostflow", "nh")) for k in gain.index)
            + "."
        )
        hung_best = all(gain.loc[k, "hungarian"] >= gain.loc[k, m] - 1e-9 for k in gain.index for m in ("sortgreedy", "greedy", "nh"))
        L.append(f"4. **Hungarian is consistently the most nearly optimal heuristic, SortGreedy close behind**: {'holds' if hung_best else 'does not hold in every k'}.")
        nh6 = [int(k) for k in g.index if k >= 6 and g.loc[k, "mincostflow"] > g.loc[k, "nh"]]
        if any(k >= 6 for k in g.index):
            L.append(f"   minCostFlow worse than NH for k ≥ 6: {'yes' if nh6 else 'no'} (k where it is: {nh6}).")
    f6 = res.get("fig6")
    if f6 is not None:
        piv = f6.pivot_table(index=["n", "k"], columns="method", values="gcp")
        gw = int((piv["greedy"] <= piv[["sortgreedy", "hungarian"]].min(axis=1) + 1e-12).sum())
        gnh = int((piv["greedy"] < piv["nh"]).sum())
        ratio = f6[f6.method != "nh"].groupby(["method", "n"])["runtime_ratio_to_nh"].mean().unstack()
        L.append(
            f"5. **Partitioned, equal time budget (Fig. 6; Greedy P=250, SortGreedy P=150, Hungarian P=100)**: Greedy has the "
            f"lowest GCP in {gw}/{len(piv)} configurations; Greedy beats NH in {gnh}/{len(piv)}. Runtime ratio to NH "
            f"(total wall clock, one machine): " + "; ".join(f"{m}: " + ", ".join(f"n={n} {v:.1f}x" for n, v in row.items()) for m, row in ratio.iterrows())
            + ". The paper's ratio counts one partition per machine; here every partition runs on the same 2 cores, so ratios are not comparable in absolute terms."
        )
    f9 = res.get("fig9")
    if f9 is not None:
        dmax = f9.d.max()
        sl = f9[f9.d == dmax].groupby(["k", "method"])["slope"].mean().unstack()
        worst = {int(k): row.idxmax() for k, row in sl.iterrows()}
        robust = {int(k): row[["greedy", "sortgreedy", "hungarian"]].idxmin() for k, row in sl.iterrows()}
        L.append(
            f"6. **k-c degrades worst with d, NH second; SortGreedy and Hungarian most robust** (Fig. 9, slope to d={dmax}): "
            f"steepest per k: {worst}; flattest freeform method per k: {robust}. Slopes: "
            + "; ".join(f"k={int(k)}: " + ", ".join(f"{m} {v:.3f}" for m, v in row.items()) for k, row in sl.iterrows())
            + "."
        )
    if f10 is not None:
        piv = f10.pivot_table(index=["n", "k"], columns="method", values="gcp")
        ours = piv[["greedy"]].min(axis=1)
        beat = int((ours < piv["nh"]).sum())
        kc = piv["k-c"].dropna()
        beat_kc = int((ours[kc.index] < kc).sum())
        L.append(
            f"7. **The new methods beat NH and k-c at every size** (Fig. 10): Greedy < NH in {beat}/{len(piv)}, Greedy < k-c in "
            f"{beat_kc}/{len(kc)} (sizes where k-c ran)."
        )
    L.append("")
    L.append("Figures: " + ", ".join(f"`{k}.png`" for k in res) + "; data in the matching CSV files.")
    return "\n".join(L) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small configuration (CI)")
    ap.add_argument("--medium", action="store_true", help="between quick and full (the committed results)")
    ap.add_argument("--out", type=Path, default=HERE / "results")
    ap.add_argument("--only", nargs="*", choices=["fig6", "fig7", "fig8", "fig9", "fig10"])
    ap.add_argument("--summary-only", action="store_true", help="rewrite summary.md from the CSVs in --out")
    a = ap.parse_args()
    if os.environ.get("KTYPE_FULL") == "1":
        a.quick = False
    cfg = QUICK if a.quick else MEDIUM if a.medium else FULL
    a.out.mkdir(parents=True, exist_ok=True)
    res: dict = {}
    todo = [] if a.summary_only else a.only or ["fig7", "fig8", "fig9", "fig10", "fig6"]
    if "fig6" in todo:
        res["fig6"] = fig6(cfg["fig6"])
        res["fig6"].to_csv(a.out / "fig6.csv", index=False)
        _plot(res["fig6"], "n", "gcp", a.out / "fig6.png", title="GCP, partitioned")
        _plot(res["fig6"][res["fig6"].method != "nh"], "n", "runtime_ratio_to_nh", a.out / "fig6_runtime.png", title="runtime / NH")
    if "fig7" in todo:
        res["fig7"], rt = fig7(cfg["fig7"])
        res["fig7"].to_csv(a.out / "fig7.csv", index=False)
        rt.to_csv(a.out / "fig7_runtime.csv", index=False)
        g = res["fig7"].groupby(["k", "method"], as_index=False)["gain"].first()
        g["all"] = "14 tuples"
        _plot(g, "k", "gain", a.out / "fig7.png", by="all", title="GCP gain vs optimum")
        rt["k"] = "min(6, (n+2)/2)"
        _plot(rt, "n", "seconds", a.out / "fig7_runtime.png", by="k", logx=True, logy=True, title="runtime")
    if "fig8" in todo:
        res["fig8"] = fig8(cfg["fig8"])
        res["fig8"].to_csv(a.out / "fig8.csv", index=False)
        d = res["fig8"].assign(set=lambda x: x.data + " n=" + x.n.astype(str))
        _plot(d, "k", "gcp", a.out / "fig8.png", by="set", title="GCP vs k")
        _plot(d, "k", "seconds", a.out / "fig8_runtime.png", by="set", logy=True, title="runtime")
    if "fig9" in todo:
        res["fig9"] = fig9(cfg["fig9"])
        res["fig9"].to_csv(a.out / "fig9.csv", index=False)
        _plot(res["fig9"], "d", "gcp", a.out / "fig9.png", title="GCP vs d")
    if "fig10" in todo:
        res["fig10"] = fig10(cfg["fig10"])
        res["fig10"].to_csv(a.out / "fig10.csv", index=False)
        _plot(res["fig10"], "n", "gcp", a.out / "fig10.png", logx=True, logy=True, title="GCP vs n")
        _plot(res["fig10"], "n", "seconds", a.out / "fig10_runtime.png", logx=True, logy=True, title="runtime")
    for fig in ("fig6", "fig7", "fig8", "fig9", "fig10"):  # figures of an earlier run (--only)
        if fig not in res and (a.out / f"{fig}.csv").exists():
            res[fig] = pd.read_csv(a.out / f"{fig}.csv")
    res = {f: res[f] for f in ("fig6", "fig7", "fig8", "fig9", "fig10") if f in res}
    label = "quick (CI)" if a.quick else "medium (the committed results)" if a.medium else "full"
    (a.out / "summary.md").write_text(summary(res, label))
    print((a.out / "summary.md").read_text())


if __name__ == "__main__":
    main()
