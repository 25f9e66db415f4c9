"""Where Tailor stops on the synthetic OCC/SAL data (docs/transparent.md, "Does Tailor stop too early?").

    python experiments/transparent/tailor_leaves.py [--n 600000] [--l 8] [--sensitive occupation]

Prints Tailor's leaves (size, largest value count c, 2ℓc / size: > 1 means the leaf is not
2ℓ-diverse, so Fig. 3 line 3 does not split it) and the number of leaves for ℓ = 2..10.
"""

from __future__ import annotations

import argparse

import numpy as np

from ktype.algorithms.transparent import prepare, tailor_groups
from ktype.datasets.occsal import occ_sal, occ_sal_dataset


def leaves(ds, sens: str, l: int):  # noqa: E741
    group, g = tailor_groups(prepare(ds, sens, l, np.random.default_rng(0)))
    s = ds.sensitive_codes[sens]
    sizes = np.bincount(group, minlength=g)
    hist = np.zeros((g, int(s.max()) + 1), dtype=np.int64)
    np.add.at(hist, (group, s), 1)
    return group, sizes, hist.max(axis=1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=600_000)
    ap.add_argument("--l", type=int, default=8)
    ap.add_argument("--sensitive", default="occupation", choices=["occupation", "income"])
    a = ap.parse_args()
    df = occ_sal(a.n, a.sensitive, rng=0 if a.sensitive == "occupation" else 1)
    ds = occ_sal_dataset(df)
    print(f"n = {a.n:,}, largest value share in the table {np.bincount(ds.sensitive_codes[a.sensitive]).max() / a.n:.4f}")
    group, sizes, c = leaves(ds, a.sensitive, a.l)
    X = df[["age", "gender", "education", "birthplace"]].to_numpy()
    print("| leaf | size | c | 2ℓc | 2ℓc / size | box (age, gender, education, birthplace) |")
    for j in range(len(sizes)):
        rows = X[group == j]
        box = ", ".join(f"{lo}-{hi}" if lo != hi else f"{lo}" for lo, hi in zip(rows.min(0), rows.max(0)))
        print(f"| {j} | {sizes[j]:,} | {c[j]:,} | {2 * a.l * c[j]:,} | {2 * a.l * c[j] / sizes[j]:.2f} | {box} |")
    for l in (2, 4, 6, 8, 10):  # noqa: E741
        _, sz, _ = leaves(ds, a.sensitive, l)
        print(f"ℓ = {l}: {len(sz):,} leaves, median size {int(np.median(sz)):,}, largest {sz.max():,}")


if __name__ == "__main__":
    main()
