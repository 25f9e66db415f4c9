"""Reproduce the experiments of Tassa, Mazza & Gionis, "k-Concealment" (§9, Figures 5-10).

One command::

    python experiments/kconcealment/run.py            # full configuration (hours; see README)
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
}
QUICK = {
    "n": {"artificial": 300, "adult": 300, "cmc": 300, "nursery": 300},
    "ks": [10, 20],
}
MEDIUM = {
    "n": {"artificial": 5000, "adult": 3000, "cmc": None, "nursery": 3000},
    "ks": list(range(10, 101, 10)),
}
FIGURES = {"artificial": "fig5", "adult": "fig6", "cmc": "fig7", "nursery": "fig8"}
ELL = {"adult": 1.1, "nursery": 2.0}


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

    def get(self, key: str, compute) -> dict | None:
        if key in self.rows:
            return dict(self.rows[key])
        if self.cached_only:
            return None
        res = compute()
        self.rows[key] = res
        if self.path is not None:
            line = pd.DataFrame([{"key": key, **res, "date": time.strftime("%Y-%m-%d %H:%M")}])
            line.to_csv(self.path, mode="a", header=not self.path.exists(), index=False)
        return dict(res)


CACHE = RunCache(None)


def _cached(key: str, name: str, ds, model, measure: str, problems: dict, **opts) -> dict | None:
    return CACHE.get(key, lambda: _one(name, ds, model, measure, problems, **opts))


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
                    ("k-concealment", "k_concealment", KConcealment(k), {}),
                ):
                    key = f"{dname}|{ds.n}|{k}|{measure}|{algo}"
                    res = _cached(key, name, ds, model, measure, problems, **opts)
                    if res is None:
                        continue
                    rows.append({"dataset": dname, "n": ds.n, "k": k, "measure": measure, "algorithm": algo, **res})
                    log(
                        f"{dname:10s} n={ds.n:6d} k={k:3d} {measure} {algo:15s} loss={res['loss']:.4f} ({res['seconds']:.1f}s)"
                    )
        if rows:
            out[FIGURES[dname]] = pd.DataFrame(rows)
    return out


def experiment2(cfg: dict, log, seed: int = 0) -> pd.DataFrame:
    ds = LOADERS["adult"](n=cfg["n"]["adult"])
    problems = {m: Problem.from_dataset(ds, MEASURE[m]) for m in ("lm", "em")}
    rows = []
    for k in cfg["ks"]:
        for measure in cfg.get("measures", ("lm", "em")):
            for algo, name, model, opts in (
                ("agglomerative", "agglomerative", KAnonymity(k), {}),
                ("k-concealment", "k_concealment", KConcealment(k), {}),
                (
                    "randomized k-concealment",
                    "k_concealment",
                    KConcealment(k),
                    {"randomized": True, "rng": seed + k, "q": 2 * (k - 1)},
                ),
            ):
                key = f"adult|{ds.n}|{k}|{measure}|{algo}" + (f"|seed={seed + k}" if "rng" in opts else "")
                res = _cached(key, name, ds, model, measure, problems, **opts)
                if res is None:
                    continue
                rows.append({"dataset": "adult", "n": ds.n, "k": k, "measure": measure, "algorithm": algo, **res})
                log(f"fig9 k={k:3d} {measure} {algo:25s} loss={res['loss']:.4f} ({res['seconds']:.1f}s)")
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
                res = _cached(key, name, ds, model, "lm", problems, **opts)
                if res is None:
                    continue
                rows.append({"dataset": dname, "n": ds.n, "l": ell, "k": k, "measure": "lm", "algorithm": algo, **res})
                log(f"fig10 {dname} l={ell} k={k:3d} {algo:28s} loss={res['loss']:.4f} ({res['seconds']:.1f}s)")
    return pd.DataFrame(rows)


def plot(df: pd.DataFrame, path: Path, title: str, measures=("lm", "em"), by: str = "dataset") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = [(b, m) for b in df[by].unique() for m in measures if ((df[by] == b) & (df["measure"] == m)).any()]
    fig, axes = plt.subplots(1, len(groups), figsize=(5 * len(groups), 3.6), squeeze=False)
    for ax, (b, m) in zip(axes[0], groups):
        sub = df[(df[by] == b) & (df["measure"] == m)]
        for algo, g in sub.groupby("algorithm", sort=False):
            ax.plot(g["k"], g["loss"], marker="o", label=algo)
        ax.set_title(f"{b} ({m.upper()})")
        ax.set_xlabel("k")
        ax.set_ylabel("information loss")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _md(piv: pd.DataFrame) -> str:
    """A pivot table as markdown (no optional dependency)."""
    idx = list(piv.index.names)
    cols = [str(c) for c in piv.columns]
    out = ["| " + " | ".join(idx + cols) + " |", "|" + "---|" * (len(idx) + len(cols))]
    for key, row in piv.iterrows():
        key = key if isinstance(key, tuple) else (key,)
        out.append("| " + " | ".join([str(x) for x in key] + [f"{v:.4f}" for v in row.to_numpy()]) + " |")
    return "\n".join(out)


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
        lines.append("## Experiment 2 (Fig. 9): randomization on Adult")
        piv = fig9.pivot_table(index=["measure", "k"], columns="algorithm", values="loss").dropna()
        lines.append(_md(piv))
        r = piv.get("randomized k-concealment")
        if r is not None:
            ok1 = bool((r >= piv["k-concealment"] - 1e-12).all())
            ok2 = bool((r < piv["agglomerative"]).all())
            lines.append("")
            lines.append(
                f"Randomized loses at least as much as basic: {ok1}; randomized still below agglomerative: {ok2}."
            )
        lines.append("")
    if fig10 is not None and len(fig10):
        lines.append("## Experiment 3 (Fig. 10): ℓ-diversity (LM)")
        piv = fig10.pivot_table(index=["dataset", "l", "k"], columns="algorithm", values="loss").dropna()
        lines.append(_md(piv))
        better = bool((piv["k-concealment + l-diversity"] < piv["agglomerative + Alg 8"]).all())
        lines.append("")
        lines.append(f"k-concealment keeps its advantage under ℓ-diversity everywhere: {better}.")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small samples and k in {10, 20} (minutes)")
    ap.add_argument(
        "--medium", action="store_true", help="artificial n=5000, CMC full, Adult/Nursery samples of 3000; k=10..100"
    )
    ap.add_argument("--out", type=Path, default=HERE / "results")
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
    ap.add_argument("--fresh", action="store_true", help="ignore (and replace) the cache of finished runs")
    ap.add_argument(
        "--cached-only",
        action="store_true",
        help="compute nothing: build the figures and summary from the finished runs in the cache",
    )
    args = ap.parse_args(argv)
    preset = QUICK if args.quick else MEDIUM if args.medium else FULL
    cfg = {"n": dict(preset["n"]), "ks": list(preset["ks"]), "measures": tuple(args.measures)}
    if args.ks:
        cfg["ks"] = args.ks
    if args.n:
        cfg["n"] = {d: args.n for d in cfg["n"]}
    args.out.mkdir(parents=True, exist_ok=True)
    preset_name = "quick" if args.quick else "medium" if args.medium else "full"
    cache_path = args.cache or args.out / f"runs-{preset_name}.csv"
    if args.fresh and cache_path.exists():
        cache_path.unlink()
    global CACHE
    CACHE = RunCache(cache_path)
    CACHE.cached_only = args.cached_only

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
                f"{fig}: information loss, k-anonymity vs k-concealment",
            )
    fig9 = None
    if "exp2" not in args.skip and "adult" in args.datasets:
        fig9 = experiment2(cfg, log)
        fig9.to_csv(args.out / "fig9_randomization_adult.csv", index=False)
        plot(fig9, args.out / "fig9_randomization_adult.png", "fig9: cost of randomization (Adult)")
    fig10 = None
    if "exp3" not in args.skip:
        fig10 = experiment3(cfg, log, args.datasets)
        fig10.to_csv(args.out / "fig10_ldiversity.csv", index=False)
        plot(fig10, args.out / "fig10_ldiversity.png", "fig10: l-diversity (LM)", measures=("lm",))
    text = summarize(figs, fig9, fig10, preset_name, cfg)
    (args.out / "summary.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
