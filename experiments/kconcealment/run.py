"""Reproduce the experiments of Tassa, Mazza & Gionis, "k-Concealment" (§9, Figures 5-10).

One command::

    python experiments/kconcealment/run.py --full     # paper sizes into results/full (hours; resumes; see README)
    python experiments/kconcealment/run.py --quick    # small samples, k in {10, 20} (CI)

Outputs (``experiments/kconcealment/results/`` or ``--out``): one CSV and one PNG per
figure, and ``summary.md`` saying whether k-concealment loses less information than
k-anonymity (agglomerative and forest) in every configuration.

* Experiment 1 (Fig. 5-8): LM and EM of agglomerative, forest and basic k-concealment on
  the artificial data, Adult, CMC and Nursery for k = 10, 20, ..., 100.
* Experiment 2 (Fig. 9): Adult, agglomerative vs basic vs randomized k-concealment
  (q = 2(k-1)).
* Experiment 3 (Fig. 10): LM of agglomerative + Algorithm 8 (w = 0.15) vs k-concealment +
  the ℓ-diversity variant of Algorithm 7; Adult ℓ = 1.1, Nursery ℓ = 2.

Every release goes through ``ktype.algorithms.run``, i.e. it is verified by the
independent checker of its model before its loss is recorded. Loss values are the
paper's Π (Eq. 2): average LM (in [0, 1]) or average EM (bits per attribute).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from kc_data import LOADERS  # noqa: E402

from ktype.algorithms import run  # noqa: E402
from ktype.algorithms.local import Problem  # noqa: E402
from ktype.models.kanonymity import KAnonymity  # noqa: E402
from ktype.models.ktype_models import KConcealment  # noqa: E402
from ktype.models.ldiversity import FrequencyLDiversity  # noqa: E402

FULL = {
    "n": {"artificial": 5000, "adult": None, "cmc": None, "nursery": None},
    "ks": list(range(10, 101, 10)),
    "seeds": 5,
}
QUICK = {
    "n": {"artificial": 300, "adult": 300, "cmc": 300, "nursery": 300},
    "ks": [10, 20],
    "seeds": 2,
}
MEDIUM = {
    "n": {"artificial": 5000, "adult": 3000, "cmc": None, "nursery": 3000},
    "ks": list(range(10, 101, 10)),
    "seeds": 5,
}
#: the setup of each dataset, stated in the summary beside the results it affects (details: ``kc_data.py``)
DATA_NOTES = [
    "**Hierarchies (every figure).** The paper names its datasets but not their generalizations (values were grouped "
    "'together ... that are semantically close'); the hierarchies here are ours (`kc_data.py`), and every loss "
    "depends on them.",
    "**Adult (Figs. 6, 9, 10): fnlwgt is binned before anonymization.** Its ~28,000 distinct values are replaced by "
    "bins of width 10,000, which are the hierarchy's leaves (then groups of width 50,000 and 200,000). A record that "
    "keeps its fnlwgt leaf counts as unchanged (no loss on that attribute) although the bin already hides the exact "
    "value. Raw fnlwgt values, nearly one per record, would force far more generalization, so Adult's losses are not "
    "comparable with a run on raw values (the methods are compared on the same binned data). All 14 attributes are "
    "QIs, as in the paper; the other 13 use ARX hierarchies for workclass, education, marital-status, occupation, "
    "race, sex, native-country; age and hours-per-week intervals of width 5/10/20; education-num 2/4/8; relationship "
    "in three pairs; capital-gain and capital-loss cut at a few thresholds. 45,222 rows (train + test without "
    "missing values), sensitive = salary class.",
    "**CMC (Fig. 7)**: 1,473 rows (the paper prints 1,500); ages 5/10/20, education and occupation in pairs, "
    "children 2/4/8, the binary attributes flat. **Nursery (Figs. 8, 10)**: 12,960 rows, adjacent values grouped. "
    "**Artificial (Fig. 5)**: the paper's value probabilities and subset families, 5,000 rows, attributes "
    "independent.",
    "Smaller presets (`--medium`, `--quick`) use seeded samples of Adult and Nursery (sizes above).",
]
FIGURES = {"artificial": "fig5", "adult": "fig6", "cmc": "fig7", "nursery": "fig8"}
ELL = {"adult": 1.1, "nursery": 2.0}

#: one colour per method in every figure (k-anonymity: blues/oranges, k-concealment: greens/reds)
COLORS = {
    "agglomerative": "tab:blue",
    "forest": "tab:orange",
    "k-concealment": "tab:green",
    "randomized k-concealment": "tab:red",
    "agglomerative + Alg 8": "tab:blue",
    "k-concealment + l-diversity": "tab:green",
}


#: the paper's figure labels (kept in the result files and cache keys) -> ktype.measures names
MEASURE = {"lm": "loss_metric", "em": "entropy"}


class RunCache:
    """Finished runs, appended to a CSV as soon as each one ends (``--cache``).

    A long full-size run can be interrupted and resumed: runs already in the file are not
    recomputed. Experiments 1 and 2 share their agglomerative and basic k-concealment runs.
    Delete the file (or pass ``--fresh``) after changing the algorithms.
    """

    FIELDS = ("loss", "seconds", "algorithm_s")

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.rows: dict[str, dict] = {}
        if path is not None and path.exists():
            for rec in pd.read_csv(path, dtype={"key": str}).to_dict("records"):
                self.rows[rec["key"]] = {f: rec[f] for f in self.FIELDS}

    cached_only = False
    #: algorithms that may be computed (None: all); the others are read from the cache only
    algorithms: set[str] | None = None

    def get(self, key: str, compute, algo: str | None = None) -> dict | None:
        if key in self.rows:
            return dict(self.rows[key])
        if self.cached_only or (self.algorithms is not None and algo not in self.algorithms):
            return None
        res = compute()
        self.rows[key] = res
        if self.path is not None:
            line = pd.DataFrame([{"key": key, **res, "date": time.strftime("%Y-%m-%d %H:%M")}])
            line.to_csv(self.path, mode="a", header=not self.path.exists(), index=False)
        return dict(res)


CACHE = RunCache(None)


def _cached(key: str, name: str, ds, model, measure: str, problems: dict, algo: str, **opts) -> dict | None:
    return CACHE.get(key, lambda: _one(name, ds, model, measure, problems, **opts), algo)


def _one(name: str, ds, model, measure: str, problems: dict, **opts) -> dict:
    t = time.perf_counter()
    rel = run(name, ds, model, measure=MEASURE[measure], **opts)
    sec = time.perf_counter() - t
    X = ds.X[rel.source]
    assert ((rel.lo <= X) & (X <= rel.hi)).all()
    return {
        "loss": problems[measure].table_cost(rel.lo, rel.hi),
        "seconds": round(sec, 3),
        "algorithm_s": rel.provenance.get("timings", {}).get("algorithm_s"),
    }


def experiment1(cfg: dict, datasets: list[str], log) -> dict[str, pd.DataFrame]:
    out = {}
    for dname in datasets:
        ds = LOADERS[dname](n=cfg["n"][dname])
        problems = {m: Problem.from_dataset(ds, MEASURE[m]) for m in ("lm", "em")}
        rows = []
        for k in cfg["ks"]:
            if k > ds.n:
                continue
            for measure in cfg.get("measures", ("lm", "em")):
                for algo, name, model, opts in (
                    ("agglomerative", "agglomerative", KAnonymity(k), {}),
                    ("forest", "forest", KAnonymity(k), {}),
                    ("k-concealment", "k_concealment", KConcealment(k), {"randomized": False}),
                ):
                    key = f"{dname}|{ds.n}|{k}|{measure}|{algo}"
                    res = _cached(key, name, ds, model, measure, problems, algo, **opts)
                    if res is None:
                        continue
                    rows.append({"dataset": dname, "n": ds.n, "k": k, "measure": measure, "algorithm": algo, **res})
                    log(
                        f"{dname:10s} n={ds.n:6d} k={k:3d} {measure} {algo:15s} loss={res['loss']:.4f} ({res['seconds']:.1f}s)"
                    )
        if rows:
            out[FIGURES[dname]] = pd.DataFrame(rows)
    return out


def randomized_seed(k: int, s: int) -> int:
    """Seed of the s-th randomized run at k (s = 0 is the seed of the earlier one-seed runs)."""
    return k + 1000 * s


def experiment2(cfg: dict, log) -> pd.DataFrame:
    """Fig. 9; randomized k-concealment once per seed (``cfg["seeds"]`` seeds, one row each)."""
    ds = LOADERS["adult"](n=cfg["n"]["adult"])
    problems = {m: Problem.from_dataset(ds, MEASURE[m]) for m in ("lm", "em")}
    rows = []
    for k in cfg["ks"]:
        for measure in cfg.get("measures", ("lm", "em")):
            runs = [
                ("agglomerative", "agglomerative", KAnonymity(k), {}, None),
                ("k-concealment", "k_concealment", KConcealment(k), {"randomized": False}, None),
            ]
            for s in range(cfg["seeds"]):
                seed = randomized_seed(k, s)
                opts = {"randomized": True, "rng": seed, "q": 2 * (k - 1)}
                runs.append(("randomized k-concealment", "k_concealment", KConcealment(k), opts, seed))
            for algo, name, model, opts, seed in runs:
                key = f"adult|{ds.n}|{k}|{measure}|{algo}" + (f"|seed={seed}" if seed is not None else "")
                res = _cached(key, name, ds, model, measure, problems, algo, **opts)
                if res is None:
                    continue
                rows.append(
                    {"dataset": "adult", "n": ds.n, "k": k, "measure": measure, "algorithm": algo, "seed": seed, **res}
                )
                log(f"fig9 k={k:3d} {measure} {algo:25s} seed={seed} loss={res['loss']:.4f} ({res['seconds']:.1f}s)")
    return pd.DataFrame(rows)


def experiment3(cfg: dict, log, datasets: list[str]) -> pd.DataFrame:
    rows = []
    for dname, ell in ELL.items():
        if dname not in datasets:
            continue
        ds = LOADERS[dname](n=cfg["n"][dname])
        problems = {"lm": Problem.from_dataset(ds, MEASURE["lm"])}
        for k in cfg["ks"]:
            if k > ds.n:
                continue
            for algo, name, model, opts in (
                ("agglomerative + Alg 8", "agglomerative", KAnonymity(k), {"l": ell, "w": 0.15}),
                ("k-concealment + l-diversity", "k_concealment", [KConcealment(k), FrequencyLDiversity(ell)], {}),
            ):
                key = f"{dname}|{ds.n}|{k}|lm|{algo}|l={ell}"
                res = _cached(key, name, ds, model, "lm", problems, algo, **opts)
                if res is None:
                    continue
                rows.append({"dataset": dname, "n": ds.n, "l": ell, "k": k, "measure": "lm", "algorithm": algo, **res})
                log(f"fig10 {dname} l={ell} k={k:3d} {algo:28s} loss={res['loss']:.4f} ({res['seconds']:.1f}s)")
    return pd.DataFrame(rows)


#: y-axis labels with units (the loss is the paper's Π, Eq. 2: an average over records)
YLABEL = {"lm": "LM, average per record (0 = exact, 1 = suppressed)", "em": "EM, average bits per attribute"}


def plot(df: pd.DataFrame, path: Path, title: str, ks: list[int], measures=("lm", "em"), by: str = "dataset") -> None:
    """One panel per (dataset, measure); one colour per method (``COLORS``) in every figure.

    Missing k values stay gaps (the series is reindexed on ``ks``, so no line is drawn across
    a k that was not run); methods run with several seeds show the mean with min-max bars.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = [(b, m) for b in df[by].unique() for m in measures if ((df[by] == b) & (df["measure"] == m)).any()]
    fig, axes = plt.subplots(1, len(groups), figsize=(5.6 * len(groups), 4.2), squeeze=False)
    ks = sorted(ks)
    for ax, (b, m) in zip(axes[0], groups):
        sub = df[(df[by] == b) & (df["measure"] == m)]
        for algo in [a for a in COLORS if a in set(sub["algorithm"])]:
            g = sub[sub["algorithm"] == algo].groupby("k")["loss"].agg(["mean", "min", "max", "count"]).reindex(ks)
            color = COLORS[algo]
            if g["count"].max() > 1:
                seeds = int(g["count"].max())
                ax.errorbar(
                    ks,
                    g["mean"],
                    yerr=[g["mean"] - g["min"], g["max"] - g["mean"]],
                    marker="o",
                    ms=4,
                    capsize=3,
                    color=color,
                    label=f"{algo} (mean, bars: min-max of up to {seeds} seeds)",
                )
            else:
                ax.plot(ks, g["mean"], marker="o", ms=4, color=color, label=algo)
        n = int(sub["n"].iloc[0])
        extra = f", l = {sub['l'].iloc[0]:g}" if "l" in sub and sub["l"].notna().any() else ""
        ax.set_title(f"{b}, n = {n:,}{extra} ({m.upper()})", fontsize=10)
        ax.set_xlabel("k")
        ax.set_xticks(ks)
        ax.set_ylabel(YLABEL[m])
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


TITLES = {
    "exp1": "Experiment 1 ({fig}): k-anonymity (agglomerative, forest) vs basic k-concealment (Alg 2-3-5)",
    "fig9": "Experiment 2 (fig9): randomized k-concealment (Alg 6-3-5, q = 2(k-1), one run per seed) "
    "vs basic k-concealment and agglomerative",
    "fig10": "Experiment 3 (fig10): agglomerative + Alg 8 (w = 0.15) vs k-concealment + l-diversity (Alg 7 variant)",
}


def replot(out: Path, ks: list[int]) -> None:
    """Redraw every figure from its CSV in ``out``."""
    for csv in sorted(out.glob("fig*_*.csv")):
        df = pd.read_csv(csv)
        fig = csv.stem.split("_")[0]
        grid = sorted(set(ks) | set(df["k"].tolist()))
        if fig == "fig9":
            plot(df, csv.with_suffix(".png"), TITLES["fig9"], grid)
        elif fig == "fig10":
            plot(df, csv.with_suffix(".png"), TITLES["fig10"], grid, measures=("lm",))
        else:
            plot(df, csv.with_suffix(".png"), TITLES["exp1"].format(fig=fig), grid)


def _md(piv: pd.DataFrame) -> str:
    """A pivot table as markdown (no optional dependency)."""
    idx = list(piv.index.names)
    cols = [str(c) for c in piv.columns]
    out = ["| " + " | ".join(idx + cols) + " |", "|" + "---|" * (len(idx) + len(cols))]
    for key, row in piv.iterrows():
        key = key if isinstance(key, tuple) else (key,)
        out.append("| " + " | ".join([str(x) for x in key] + [f"{v:.4f}" for v in row.to_numpy()]) + " |")
    return "\n".join(out)


def fig9_summary(fig9: pd.DataFrame) -> list[str]:
    """Experiment 2 table: randomized k-concealment as mean, sd and range over its seeds."""
    lines = ["## Experiment 2 (Fig. 9): randomization on Adult", ""]
    rnd = fig9[fig9.algorithm == "randomized k-concealment"].groupby(["measure", "k"])["loss"]
    stats = rnd.agg(["mean", "std", "min", "max", "count"])
    piv = fig9[fig9.algorithm != "randomized k-concealment"].pivot_table(
        index=["measure", "k"], columns="algorithm", values="loss"
    )
    tab = piv.join(stats, how="outer")
    lines.append(
        "| measure | k | agglomerative | k-concealment | randomized: mean | sd | min | max | seeds | "
        "randomized < agglomerative |"
    )
    lines.append("|---|---|---|---|---|---|---|---|---|---|")

    def f(v):
        return "" if pd.isna(v) else f"{v:.4f}"

    verdicts = []
    for (m, k), row in tab.iterrows():
        agg, rmean, rmax = row.get("agglomerative"), row.get("mean"), row.get("max")
        if pd.isna(agg) or pd.isna(rmean):
            cmp = "n/a"
        elif rmax < agg:
            cmp = "yes, every seed"
        elif rmean < agg:
            cmp = "mean only"
        else:
            cmp = "no"
        if cmp != "n/a":
            verdicts.append((m, k, cmp))
        seeds = "" if pd.isna(row.get("count")) else int(row["count"])
        lines.append(
            f"| {m} | {k} | {f(agg)} | {f(row.get('k-concealment'))} | {f(rmean)} | {f(row.get('std'))} | "
            f"{f(row.get('min'))} | {f(rmax)} | {seeds} | {cmp} |"
        )
    lines.append("")
    both = tab.dropna(subset=["mean", "k-concealment"])
    if len(both):
        ok1 = bool((both["min"] >= both["k-concealment"] - 1e-12).all())
        lines.append(f"Every randomized run loses at least as much as basic k-concealment: {ok1}.")
    for m in sorted({v[0] for v in verdicts}):
        lose = [k for mm, k, c in verdicts if mm == m and c == "no"]
        win = [k for mm, k, c in verdicts if mm == m and c != "no"]
        lines.append(
            f"- {m.upper()}: randomized (mean over seeds) below agglomerative at k = {win or 'none'}; "
            f"not below at k = {lose or 'none'}."
        )
    lines.append("")
    return lines


def summarize(
    figs: dict[str, pd.DataFrame], fig9: pd.DataFrame | None, fig10: pd.DataFrame | None, preset: str, cfg: dict
) -> str:
    lines = ["# k-concealment experiments: summary", ""]
    sizes = ", ".join(f"{d}: {'all rows' if n is None else n}" for d, n in cfg["n"].items())
    lines.append(f"Configuration: {preset} -- sizes {sizes}; k in {cfg['ks']}.")
    lines.append(
        "Loss = average LM (0..1) or average EM (bits); lower is better. Every release was verified by its model's checker."
    )
    for df in figs.values():
        d = df.dataset.iloc[0]
        lines.append(f"- {d}: n = {df.n.iloc[0]:,}, k in {sorted(df.k.unique().tolist())}")
    lines.append("")
    lines += ["## Data and hierarchies: where the setup differs from the paper's", ""]
    lines += [f"- {x}" for x in DATA_NOTES]
    lines.append("")
    wins, total, losses = 0, 0, []
    for df in figs.values():
        for (d, k, m), g in df.groupby(["dataset", "k", "measure"]):
            if set(g.algorithm) != {"agglomerative", "forest", "k-concealment"}:
                continue  # an incomplete cell (resumed run, --cached-only)
            kc = float(g.loc[g.algorithm == "k-concealment", "loss"].iloc[0])
            ka = float(g.loc[g.algorithm != "k-concealment", "loss"].min())
            total += 1
            if kc < ka:
                wins += 1
            else:
                losses.append(f"{d} k={k} {m}: k-concealment {kc:.4f} vs best k-anonymity {ka:.4f}")
    verdict = "**yes**" if wins == total else "**no**"
    lines.append(f"## Experiment 1 (Fig. 5-8): does k-concealment lose less than k-anonymity everywhere? {verdict}")
    lines.append(
        f"k-concealment (basic) beat both agglomerative and forest in {wins} of {total} (dataset, k, measure) cells."
    )
    lines += [f"- exception: {x}" for x in losses]
    lines.append("")
    if fig9 is not None and len(fig9):
        lines += fig9_summary(fig9)
    if fig10 is not None and len(fig10):
        lines.append("## Experiment 3 (Fig. 10): ℓ-diversity (LM)")
        piv = fig10.pivot_table(index=["dataset", "l", "k"], columns="algorithm", values="loss").dropna()
        lines.append(_md(piv))
        pair = ("k-concealment + l-diversity", "agglomerative + Alg 8")
        lines.append("")
        if all(c in piv.columns for c in pair) and len(piv):
            better = bool((piv[pair[0]] < piv[pair[1]]).all())
            lines.append(f"k-concealment keeps its advantage under ℓ-diversity everywhere: {better}.")
        else:
            lines.append("No (dataset, ℓ, k) cell has both methods yet: no verdict.")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small samples and k in {10, 20} (minutes)")
    ap.add_argument(
        "--medium", action="store_true", help="artificial n=5000, CMC full, Adult/Nursery samples of 3000; k=10..100"
    )
    ap.add_argument(
        "--full",
        action="store_true",
        help="paper sizes (the default preset) with results in results/full (resumes its cache of finished runs)",
    )
    ap.add_argument("--out", type=Path, default=None, help="default: results/ (results/full with --full)")
    ap.add_argument("--datasets", nargs="*", default=list(LOADERS))
    ap.add_argument("--ks", nargs="*", type=int, default=None)
    ap.add_argument("--n", type=int, default=None, help="override every dataset's size (a seeded sample)")
    ap.add_argument("--skip", nargs="*", default=[], choices=["exp1", "exp2", "exp3"])
    ap.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="CSV of finished runs to resume from (default: <out>/runs-<preset>.csv)",
    )
    ap.add_argument("--measures", nargs="*", default=["lm", "em"], choices=["lm", "em"])
    ap.add_argument("--seeds", type=int, default=None, help="randomized runs per k (default 5; --quick 2)")
    ap.add_argument(
        "--algorithms",
        nargs="*",
        default=None,
        choices=list(COLORS),
        help="compute only these methods (the others are taken from the cache, as with --cached-only)",
    )
    ap.add_argument(
        "--replot",
        action="store_true",
        help="only redraw the PNGs from the figure CSVs already in --out (e.g. results without a run cache)",
    )
    ap.add_argument("--fresh", action="store_true", help="ignore (and replace) the cache of finished runs")
    ap.add_argument(
        "--cached-only",
        action="store_true",
        help="compute nothing: build the figures and summary from the finished runs in the cache",
    )
    args = ap.parse_args(argv)
    if args.out is None:
        args.out = HERE / "results" / ("full" if args.full else "")
    preset = QUICK if args.quick else MEDIUM if args.medium else FULL
    cfg = {"n": dict(preset["n"]), "ks": list(preset["ks"]), "measures": tuple(args.measures), "seeds": preset["seeds"]}
    if args.seeds is not None:
        cfg["seeds"] = args.seeds
    if args.ks:
        cfg["ks"] = args.ks
    if args.n:
        cfg["n"] = {d: args.n for d in cfg["n"]}
    args.out.mkdir(parents=True, exist_ok=True)
    preset_name = "quick" if args.quick else "medium" if args.medium else "full"
    if args.replot:
        replot(args.out, cfg["ks"])
        return 0
    cache_path = args.cache or args.out / f"runs-{preset_name}.csv"
    if args.fresh and cache_path.exists():
        cache_path.unlink()
    global CACHE
    CACHE = RunCache(cache_path)
    CACHE.cached_only = args.cached_only
    CACHE.algorithms = set(args.algorithms) if args.algorithms is not None else None

    def log(msg: str) -> None:
        print(msg, flush=True)

    figs: dict[str, pd.DataFrame] = {}
    if "exp1" not in args.skip:
        figs = experiment1(cfg, args.datasets, log)
        for fig, df in figs.items():
            df.to_csv(args.out / f"{fig}_{df.dataset.iloc[0]}.csv", index=False)
            plot(
                df,
                args.out / f"{fig}_{df.dataset.iloc[0]}.png",
                TITLES["exp1"].format(fig=fig),
                cfg["ks"],
            )
    fig9 = None
    if "exp2" not in args.skip and "adult" in args.datasets:
        fig9 = experiment2(cfg, log)
        fig9.to_csv(args.out / "fig9_randomization_adult.csv", index=False)
        plot(
            fig9,
            args.out / "fig9_randomization_adult.png",
            TITLES["fig9"],
            cfg["ks"],
        )
    fig10 = None
    if "exp3" not in args.skip:
        fig10 = experiment3(cfg, log, args.datasets)
        fig10.to_csv(args.out / "fig10_ldiversity.csv", index=False)
        plot(
            fig10,
            args.out / "fig10_ldiversity.png",
            TITLES["fig10"],
            cfg["ks"],
            measures=("lm",),
        )
    text = summarize(figs, fig9, fig10, preset_name, cfg)
    (args.out / "summary.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
