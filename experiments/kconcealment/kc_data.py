"""Datasets of the k-concealment experiments (Tassa, Mazza & Gionis §9) with the
hierarchies designed here (the paper only says, of ADULT, that the permissible subsets were
selected "by grouping together values that are semantically close").

* ``artificial`` -- ``ktype.datasets.synthetic.artificial_kconcealment`` (n = 5000, six
  independent attributes with the paper's probabilities and subset families).
* ``adult`` -- UCI Adult, ``adult.data`` + ``adult.test`` without rows containing '?':
  45,222 rows; all 14 attributes are QIs, sensitive = salary class (binary).
  Hierarchies: the ARX hierarchies for workclass, education, marital-status, occupation,
  race, sex, native-country; age and hours-per-week intervals of width 5/10/20;
  education-num widths 2/4/8; relationship {Husband, Wife}, {Own-child, Other-relative},
  {Not-in-family, Unmarried}; capital-gain cut points {1, 3000, 5000, 8000, 15000} /
  {1, 5000, 15000} / {1}; capital-loss {1, 1500, 2000, 2500} / {1, 2000} / {1};
  fnlwgt (a sampling weight with ~28k distinct values) is first coded to bins of width
  10,000 (the leaves), then grouped by widths 50,000 / 200,000.
* ``cmc`` -- UCI CMC, 1,473 rows (the paper prints 1500), 9 QIs, sensitive = contraceptive
  method. Ages widths 5/10/20; education and occupation {1,2},{3,4}; children widths 2/4/8;
  the binary attributes flat.
* ``nursery`` -- UCI Nursery, 12,960 rows, 8 QIs, sensitive = class; every attribute
  groups its semantically adjacent values (see ``NURSERY_GROUPS``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ktype.data.dataset import Dataset
from ktype.data.hierarchy import Hierarchy
from ktype.testing import repo_data  # the repository's data/ (and the bundled ARX Adult hierarchies)

ADULT_COLUMNS = [
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "salary-class",
]


def _sample(df: pd.DataFrame, n: int | None, seed: int) -> pd.DataFrame:
    if n is None or n >= len(df):
        return df.reset_index(drop=True)
    return df.sample(n=n, random_state=seed).reset_index(drop=True)


def adult(n: int | None = None, seed: int = 0) -> Dataset:
    """UCI Adult, 45,222 complete rows (or a seeded random sample of ``n`` of them)."""
    parts = []
    for f, skip in (("adult.data", 0), ("adult.test", 1)):
        parts.append(
            repo_data.read_csv(
                "adult_uci",
                f,
                header=None,
                names=ADULT_COLUMNS,
                skiprows=skip,
                skipinitialspace=True,
                dtype=str,
            )
        )
    df = pd.concat(parts, ignore_index=True).dropna()
    df = df.apply(lambda c: c.str.strip())
    df = df[~(df == "?").any(axis=1)].copy()
    df["salary-class"] = df["salary-class"].str.rstrip(".")
    for c in ("age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"):
        df[c] = df[c].astype(int)
    df["fnlwgt"] = (df["fnlwgt"] // 10_000) * 10_000
    df = _sample(df.reset_index(drop=True), n, seed)
    H: dict = {}
    for c in ("workclass", "education", "marital-status", "occupation", "race", "sex", "native-country"):
        H[c] = Hierarchy.from_arx_csv(repo_data.hierarchy_file("adult", "adult", c), name=c)
    H["age"] = Hierarchy.intervals(range(0, 100), [5, 10, 20], name="age")
    H["hours-per-week"] = Hierarchy.intervals(range(0, 100), [5, 10, 20], name="hours-per-week")
    H["education-num"] = Hierarchy.intervals(range(0, 17), [2, 4, 8], name="education-num")
    H["fnlwgt"] = Hierarchy.intervals(sorted(df["fnlwgt"].unique()), [50_000, 200_000], name="fnlwgt")
    H["capital-gain"] = Hierarchy.intervals(
        sorted(df["capital-gain"].unique()), [[1, 3000, 5000, 8000, 15000], [1, 5000, 15000], [1]], name="capital-gain"
    )
    H["capital-loss"] = Hierarchy.intervals(
        sorted(df["capital-loss"].unique()), [[1, 1500, 2000, 2500], [1, 2000], [1]], name="capital-loss"
    )
    rel = ["Husband", "Wife", "Own-child", "Other-relative", "Not-in-family", "Unmarried"]
    H["relationship"] = Hierarchy.from_subsets(rel, [rel[0:2], rel[2:4], rel[4:6]], name="relationship")
    qis = [c for c in ADULT_COLUMNS if c != "salary-class"]
    return Dataset(df, quasi_identifiers=qis, sensitive=["salary-class"], hierarchies=H, name="adult")


CMC_COLUMNS = [
    "wife-age",
    "wife-edu",
    "husband-edu",
    "children",
    "religion",
    "working",
    "husband-occ",
    "living",
    "media",
    "method",
]


def cmc(n: int | None = None, seed: int = 0) -> Dataset:
    """UCI Contraceptive Method Choice (1,473 rows)."""
    df = repo_data.read_csv("cmc", "cmc.data", header=None, names=CMC_COLUMNS)
    df = _sample(df, n, seed)
    four = lambda name: Hierarchy.from_subsets([1, 2, 3, 4], [[1, 2], [3, 4]], name=name)  # noqa: E731
    H = {
        "wife-age": Hierarchy.intervals(range(15, 50), [5, 10, 20], name="wife-age"),
        "wife-edu": four("wife-edu"),
        "husband-edu": four("husband-edu"),
        "children": Hierarchy.intervals(range(0, 17), [2, 4, 8], name="children"),
        "religion": Hierarchy.flat([0, 1], name="religion"),
        "working": Hierarchy.flat([0, 1], name="working"),
        "husband-occ": four("husband-occ"),
        "living": four("living"),
        "media": Hierarchy.flat([0, 1], name="media"),
    }
    return Dataset(df, quasi_identifiers=CMC_COLUMNS[:-1], sensitive=["method"], hierarchies=H, name="cmc")


NURSERY_COLUMNS = ["parents", "has_nurs", "form", "children", "housing", "finance", "social", "health", "class"]
NURSERY_GROUPS = {
    "parents": (["usual", "pretentious", "great_pret"], [["usual", "pretentious"]]),
    "has_nurs": (
        ["proper", "less_proper", "improper", "critical", "very_crit"],
        [["proper", "less_proper"], ["improper", "critical", "very_crit"]],
    ),
    "form": (["complete", "completed", "incomplete", "foster"], [["complete", "completed"], ["incomplete", "foster"]]),
    "children": (["1", "2", "3", "more"], [["1", "2"], ["3", "more"]]),
    "housing": (["convenient", "less_conv", "critical"], [["convenient", "less_conv"]]),
    "finance": (["convenient", "inconv"], []),
    "social": (["nonprob", "slightly_prob", "problematic"], [["nonprob", "slightly_prob"]]),
    "health": (["recommended", "priority", "not_recom"], [["recommended", "priority"]]),
}


def nursery(n: int | None = None, seed: int = 0) -> Dataset:
    """UCI Nursery (12,960 rows, no missing values)."""
    df = repo_data.read_csv("nursery", "nursery.data", header=None, names=NURSERY_COLUMNS, dtype=str)
    df = _sample(df, n, seed)
    H = {c: Hierarchy.from_subsets(dom, groups, name=c) for c, (dom, groups) in NURSERY_GROUPS.items()}
    return Dataset(df, quasi_identifiers=NURSERY_COLUMNS[:-1], sensitive=["class"], hierarchies=H, name="nursery")


def artificial(n: int = 5000, seed: int = 0) -> Dataset:
    """The paper's artificial dataset (generator owned by ``ktype.datasets.synthetic``)."""
    from ktype.datasets.synthetic import artificial_kconcealment

    return artificial_kconcealment(n, rng=np.random.default_rng(seed))


LOADERS = {"artificial": artificial, "adult": adult, "cmc": cmc, "nursery": nursery}
