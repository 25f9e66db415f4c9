"""Why randomized k-concealment can lose more than agglomerative k-anonymity at large k.

Runs the randomized pipeline of ``ktype.algorithms.local.k_concealment`` step by step with the
library's own functions (Algorithm 6 = ``randomized_k1``, then ``one_k_completion`` (Alg 3) and
``k_conceal`` (Alg 5) in the random orders the pipeline draws), with the seeds that ``run.py``
uses for Fig. 9 (``k + 1000·s``), and records the LM after each step: Algorithm 2's
generalization R̃_0, the R̃_1 alternatives on the rows the coin gave them, Algorithm 6's output,
and the release after Algorithms 3 and 5. Every step-by-step release is checked against the real
run (``ktype.algorithms.run("k_concealment", ..., randomized=True)``, as in ``run.py``): the
script stops if their LMs differ.

    python experiments/kconcealment/explain_fig9.py [--n 3000] [--ks 10 50 100] [--seeds 5]

Writes ``results/fig9_explained.md`` (or ``--out``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from kc_data import adult  # noqa: E402
from run import randomized_seed  # noqa: E402

from ktype.algorithms import run  # noqa: E402
from ktype.algorithms.local import (  # noqa: E402
    Problem,
    agglomerative_clusters,
    cluster_boxes,
    k1_expansion,
    k_conceal,
    one_k_completion,
    randomized_k1,
)
from ktype.models.ktype_models import KConcealment  # noqa: E402

COLUMNS = (
    "R0 (Alg 2)",
    "share of rows given R1",
    "R1 on those rows",
    "R0 on the other rows",
    "Alg 6 output",
    "after Alg 3",
    "release (after Alg 5)",
    "real run",
)


def decompose(ds, p: Problem, k: int, seed: int) -> dict:
    """The randomized pipeline of ``k_concealment`` step by step, with the generator ``run`` makes of ``seed``."""
    rng = np.random.default_rng(seed)  # what ktype.algorithms.run makes of an int seed
    n = p.n
    LO0, HI0 = k1_expansion(p, k)
    LO, HI, stats = randomized_k1(p, k, q=2 * (k - 1), rng=rng)
    o3, o5 = rng.permutation(n), rng.permutation(n)  # the pipeline's orders for Algorithms 3 and 5
    LO3, HI3 = one_k_completion(p, LO, HI, k, order=o3)
    LO5, HI5 = k_conceal(p, LO3, HI3, k, order=o5)
    real = run("k_concealment", ds, KConcealment(k), measure="loss_metric", randomized=True, rng=seed, q=2 * (k - 1))
    real_lm = p.table_cost(real.lo, real.hi)
    release = p.table_cost(LO5, HI5)
    if abs(real_lm - release) > 1e-12:
        raise SystemExit(f"k={k} seed={seed}: step-by-step release LM {release} != real run {real_lm}")
    took1 = ~((LO == LO0).all(axis=1) & (HI == HI0).all(axis=1))  # R̃_1 != R̃_0 by construction (Alg 6 redraws)
    cost = p.record_costs(LO, HI)
    cost0 = p.record_costs(LO0, HI0)
    return {
        "R0 (Alg 2)": float(cost0.mean()),
        "share of rows given R1": float(took1.mean()),
        "R1 on those rows": float(cost[took1].mean()),
        "R0 on the other rows": float(cost0[~took1].mean()),
        "Alg 6 output": float(cost.mean()),
        "after Alg 3": p.table_cost(LO3, HI3),
        "release (after Alg 5)": release,
        "real run": real_lm,
        "fallback rows": stats["fallback_rows"],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--ks", nargs="*", type=int, default=[10, 50, 100])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--out", type=Path, default=HERE / "results")
    args = ap.parse_args(argv)
    ds = adult(n=args.n)
    p = Problem.from_dataset(ds, "loss_metric")
    lines = [
        "# Why randomized k-concealment loses to agglomerative at large k (LM, Adult sample)",
        "",
        f"`python experiments/kconcealment/explain_fig9.py --n {args.n} --ks {' '.join(map(str, args.ks))} "
        f"--seeds {args.seeds}`: Adult sample of n = {ds.n:,}, LM (average per record, in [0, 1]). The randomized "
        "pipeline of `k_concealment` run step by step with the library's functions and the seeds of `run.py` "
        f"(k + 1000·s, s = 0..{args.seeds - 1}); the last step equals the real run "
        '(`run("k_concealment", randomized=True)`) for every seed (checked). Randomized columns: mean [min, max] '
        "over the seeds. R1 = the closure of the record and k-1 records drawn from its q = 2(k-1) nearest "
        "neighbours; Algorithm 6 gives it to a row by a fair coin, R0 (Algorithm 2) to the others.",
        "",
        "| k | agglomerative | basic k-concealment release | " + " | ".join(COLUMNS) + " | seeds: release LM |",
        "|---|---|---|" + "---|" * len(COLUMNS) + "---|",
    ]
    for k in args.ks:
        agg = p.table_cost(*cluster_boxes(p, agglomerative_clusters(p, k)))
        basic = p.table_cost(*k_conceal(p, *one_k_completion(p, *k1_expansion(p, k), k), k))
        seeds = [randomized_seed(k, s) for s in range(args.seeds)]
        runs = [decompose(ds, p, k, seed) for seed in seeds]
        cells = []
        for key in COLUMNS:
            v = np.array([r[key] for r in runs])
            cells.append(f"{v.mean():.4f} [{v.min():.4f}, {v.max():.4f}]")
        per_seed = ", ".join(f"{s}: {r['release (after Alg 5)']:.4f}" for s, r in zip(seeds, runs))
        lines.append(f"| {k} | {agg:.4f} | {basic:.4f} | " + " | ".join(cells) + f" | {per_seed} |")
        print(lines[-1], flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "fig9_explained.md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
