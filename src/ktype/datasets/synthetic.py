"""Synthetic benchmark data with the schemas used in the source papers.

Two generators:

* :func:`census` / :func:`census_dataset` — a synthetic table with the schema of the
  CENSUS (IPUMS) extract of Doka et al., *Freeform generalization* (Table 2, §8): eight
  attributes, two numerical (Age, Education Level) and six categorical. The IPUMS extract
  itself cannot be redistributed, so only the schema (attributes, cardinalities, types)
  is reproduced; the marginal distributions are invented (skewed, IPUMS-like) and the
  attributes are sampled **independently**.
* :func:`artificial_kconcealment` — the artificial dataset of Tassa, Mazza & Gionis,
  *k-Concealment* (§9, "Artificial data"): six independent attributes with the paper's value
  probabilities and its explicit (laminar, partly unbalanced) generalization families.

All generators are vectorized (one ``Generator.choice`` per column) and take ``rng``
following SPEC 7: an int seed or a ``numpy.random.Generator`` for reproducible data,
``None`` for fresh OS entropy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd

from .._validation import RNGLike, check_rng
from ..data.dataset import Dataset
from ..data.hierarchy import SUPPRESSED_LABEL, Hierarchy
from ..exceptions import InvalidParameterError

__all__ = [
    "CENSUS_SCHEMA",
    "census",
    "census_dataset",
    "census_hierarchy",
    "ARTIFICIAL_PROBABILITIES",
    "ARTIFICIAL_SUBSETS",
    "artificial_kconcealment",
]


# ---------------------------------------------------------------------------- CENSUS schema
def _zipf(m: int, s: float) -> np.ndarray:
    p = 1.0 / np.arange(1, m + 1) ** s
    return p / p.sum()


def _age_probs() -> np.ndarray:
    # ages 17..95 (79 values): flat until 60, then a linear decline to 10% at 95
    ages = np.arange(17, 96)
    p = np.where(ages <= 60, 1.0, 1.0 - 0.9 * (ages - 60) / 35)
    return p / p.sum()


def _education_probs() -> np.ndarray:
    # 17 ordinal levels; modes at high-school graduate (9) and bachelor's degree (13)
    p = np.array([1, 1, 1, 2, 2, 3, 3, 4, 30, 18, 4, 6, 14, 5, 1.5, 1, 0.5], dtype=float)
    return p / p.sum()


def _with_head(head: Sequence[float], m: int, s: float) -> np.ndarray:
    """A few fixed leading probabilities, the remaining mass Zipf-distributed."""
    head = np.asarray(head, dtype=float)
    rest = _zipf(m - len(head), s) * (1.0 - head.sum())
    return np.concatenate([head, rest])


#: Schema of the CENSUS dataset (Doka et al., Table 2): attribute -> (type, domain, probabilities).
#: Numerical domains are integer codes; categorical ones are labels. Cardinalities:
#: Age 79, Gender 2, Education Level 17, Marital Status 6, Race 9, Work Class 10,
#: Country 83, Occupation 51.
CENSUS_SCHEMA: dict[str, tuple[str, list, np.ndarray]] = {
    "Age": ("numerical", list(range(17, 96)), _age_probs()),
    "Gender": ("categorical", ["Male", "Female"], np.array([0.49, 0.51])),
    "Education Level": ("numerical", list(range(1, 18)), _education_probs()),
    "Marital Status": (
        "categorical",
        ["Married, spouse present", "Married, spouse absent", "Separated", "Divorced", "Widowed", "Never married"],
        np.array([0.45, 0.03, 0.02, 0.10, 0.06, 0.34]),
    ),
    "Race": (
        "categorical",
        [
            "White",
            "Black",
            "American Indian or Alaska Native",
            "Chinese",
            "Japanese",
            "Other Asian or Pacific Islander",
            "Other race",
            "Two major races",
            "Three or more major races",
        ],
        np.array([0.75, 0.12, 0.01, 0.012, 0.004, 0.034, 0.05, 0.018, 0.002]),
    ),
    "Work Class": (
        "categorical",
        [
            "Private for-profit",
            "Private nonprofit",
            "Self-employed, incorporated",
            "Self-employed, not incorporated",
            "Federal government",
            "State government",
            "Local government",
            "Unpaid family worker",
            "Never worked",
            "Not in labor force",
        ],
        np.array([0.42, 0.05, 0.03, 0.06, 0.02, 0.03, 0.05, 0.005, 0.035, 0.30]),
    ),
    "Country": ("categorical", ["United States"] + [f"Country {i:02d}" for i in range(1, 83)], _with_head([0.85], 83, 1.1)),
    "Occupation": ("categorical", [f"Occupation {i:02d}" for i in range(51)], _zipf(51, 0.8)),
}


def census(n: int, rng: RNGLike = None) -> pd.DataFrame:
    """Generate ``n`` synthetic records with the CENSUS schema of Doka et al. (Table 2).

    Parameters
    ----------
    n : int
        Number of records (``n >= 1``).
    rng : int, numpy.random.Generator or None
        Random state (SPEC 7). An int gives reproducible data; ``None`` fresh entropy.

    Returns
    -------
    pandas.DataFrame
        Columns in Table 2 order: ``Age`` (int16, 17..95, 79 values), ``Gender`` (2),
        ``Education Level`` (int16 ordinal code 1..17), ``Marital Status`` (6), ``Race``
        (9), ``Work Class`` (10), ``Country`` (83) and ``Occupation`` (51). Categorical
        columns are ``pandas.Categorical`` whose categories are the *whole* domain (so
        the cardinality is that of Table 2 even when a small sample misses values).

    Notes
    -----
    Doka et al., *Freeform Generalization against Single-Source Linkage Attacks*, §8 and
    Table 2. The real extract (IPUMS, 500K tuples) is not redistributable; this generator
    reproduces the schema only. Attributes are independent, with skewed marginals
    (``CENSUS_SCHEMA``); Education Level is numerical (ordinal), as in the paper. Cost:
    one vectorized draw per column, ``O(n)`` time and about ``6 n`` bytes of memory.

    Examples
    --------
    >>> df = census(1000, rng=0)
    >>> df.shape
    (1000, 8)
    """
    n = _check_n(n, "census")
    gen, _ = check_rng(rng)
    cols: dict[str, object] = {}
    for name, (kind, domain, probs) in CENSUS_SCHEMA.items():
        codes = gen.choice(len(domain), size=n, p=probs)
        if kind == "numerical":
            cols[name] = np.asarray(domain, dtype=np.int16)[codes]
        else:
            cols[name] = pd.Categorical.from_codes(codes.astype(np.int16), categories=domain)
    return pd.DataFrame(cols)


def census_hierarchy(column: str, kind: Literal["grouped", "flat"] = "grouped", *, fanout: int = 4) -> Hierarchy:
    """The hierarchy :func:`census_dataset` uses for one CENSUS column.

    Numerical columns (Age, Education Level) get ``Hierarchy.ordered`` (any interval; what
    Mondrian and freeform ranges need). Categorical columns get, for ``kind="grouped"``, a
    balanced tree built from the domain order: level ``l`` groups ``fanout**l``
    consecutive values (labels like ``"Country 04..Country 07"``), up to the root ``*``;
    every value sits at the same depth, so full-domain recoding works too. Gender (2
    values) and any domain of at most ``fanout`` values are flat. ``kind="flat"`` gives
    value-or-``*`` for every categorical column.
    """
    if column not in CENSUS_SCHEMA:
        from .._validation import unknown_name

        raise unknown_name("CENSUS column", column, CENSUS_SCHEMA)
    if kind not in ("grouped", "flat"):
        raise InvalidParameterError(f"The 'kind' parameter of census_hierarchy must be 'grouped' or 'flat'. Got {kind!r} instead.")
    if not (isinstance(fanout, int) and fanout >= 2):
        raise InvalidParameterError(f"The 'fanout' parameter of census_hierarchy must be an int >= 2. Got {fanout!r} instead.")
    typ, domain, _ = CENSUS_SCHEMA[column]
    if typ == "numerical":
        return Hierarchy.ordered(domain, name=column)
    m = len(domain)
    if kind == "flat" or m <= fanout:
        # from_subsets keeps the domain order (Hierarchy.flat would sort the labels), so the
        # leaf ranks are the same for "flat" and "grouped"
        return Hierarchy.from_subsets(domain, [], name=column)
    n_levels = math.ceil(math.log(m, fanout))  # levels strictly between leaves and root
    rows = []
    for i, v in enumerate(domain):
        row = [v]
        for lev in range(1, n_levels):
            g = i // fanout**lev
            a, b = g * fanout**lev, min((g + 1) * fanout**lev, m) - 1
            row.append(f"{domain[a]}..{domain[b]}" if a != b else f"{domain[a]} (group)")
        row.append(SUPPRESSED_LABEL)
        rows.append(row)
    return Hierarchy.from_table(rows, name=column)


def census_dataset(
    n: int,
    rng: RNGLike = None,
    *,
    quasi_identifiers: Sequence[str] | None = None,
    sensitive: Sequence[str] = (),
    categorical: Literal["grouped", "flat"] = "grouped",
) -> Dataset:
    """A :class:`~ktype.Dataset` over :func:`census` data with ready-made hierarchies.

    Parameters
    ----------
    n : int
        Number of records.
    rng : int, numpy.random.Generator or None
        Random state (SPEC 7).
    quasi_identifiers : sequence of str, optional
        Default: all eight attributes (the paper uses no sensitive attribute).
    sensitive : sequence of str, optional
        Columns to declare sensitive instead (they must not be quasi-identifiers).
    categorical : {"grouped", "flat"}
        Hierarchies of the categorical columns, see :func:`census_hierarchy`. Numerical
        columns are always ``"ordered"`` so that Mondrian can split anywhere.
    """
    df = census(n, rng)
    sensitive = list(sensitive)
    if quasi_identifiers is None:
        quasi_identifiers = [c for c in CENSUS_SCHEMA if c not in sensitive]
    quasi_identifiers = list(quasi_identifiers)
    hier = {c: census_hierarchy(c, categorical) for c in quasi_identifiers if c in CENSUS_SCHEMA}
    df = df[[c for c in df.columns if c in set(quasi_identifiers) | set(sensitive)]]  # unselected columns left out
    return Dataset(df, quasi_identifiers=quasi_identifiers, sensitive=sensitive, hierarchies=hier, name="census-synthetic")


# ---------------------------------------------------------------------------- k-concealment §9
#: Value probabilities of the artificial dataset (k-concealment §9, "Artificial data"), for a1, a2, ...
ARTIFICIAL_PROBABILITIES: dict[str, list[float]] = {
    "A1": [0.7, 0.3],
    "A2": [0.3, 0.3, 0.2, 0.2],
    "A3": [0.25, 0.25, 0.4, 0.1],
    "A4": [0.07] * 6 + [0.04] * 10 + [0.02] * 9,
    "A5": [0.1] * 10,
    "A6": [0.05, 0.05, 0.5, 0.3, 0.1],
}


def _a(*idx: int) -> list[str]:
    return [f"a{i}" for i in idx]


#: Non-trivial generalization subsets (singletons and the full set are implied).
ARTIFICIAL_SUBSETS: dict[str, list[list[str]]] = {
    "A1": [],
    "A2": [_a(1, 2), _a(3, 4)],
    "A3": [_a(1, 2), _a(3, 4)],
    "A4": [_a(*range(1, 7)), _a(*range(7, 13)), _a(*range(13, 19)), _a(*range(19, 26)), _a(*range(1, 13)), _a(*range(13, 26))],
    "A5": [_a(1, 2), _a(3, 4), _a(6, 7), _a(8, 9), _a(*range(1, 6)), _a(*range(6, 11))],
    "A6": [_a(1, 2), _a(4, 5), _a(3, 4, 5)],
}


def artificial_kconcealment(n: int = 5000, rng: RNGLike = None) -> Dataset:
    """The artificial dataset of the k-concealment experiments (six attributes).

    Parameters
    ----------
    n : int, default 5000
        Number of records (the paper uses 5000).
    rng : int, numpy.random.Generator or None
        Random state (SPEC 7).

    Returns
    -------
    Dataset
        Columns ``A1``..``A6`` with values ``"a1"``, ``"a2"``, …; all six are
        quasi-identifiers, there is no sensitive attribute. Each hierarchy is built with
        :meth:`Hierarchy.from_subsets` from ``ARTIFICIAL_SUBSETS`` (every family also holds
        the singletons and the whole domain). ``A6`` is unbalanced (height 3: ``a4, a5``
        at depth 3, ``a1..a3`` at depth 2), so full-domain recoding refuses it.

    Notes
    -----
    Tassa, Mazza & Gionis, *k-Concealment: An Alternative Model of k-Type Anonymity*,
    Trans. Data Privacy 5 (2012), §9, "Artificial data". Assumptions ktype makes that the
    paper does not state: the attributes are sampled independently and the probability lists map
    to ``a1, a2, …`` in order.
    """
    n = _check_n(n, "artificial_kconcealment")
    gen, _ = check_rng(rng)
    cols = {}
    hier = {}
    for name, probs in ARTIFICIAL_PROBABILITIES.items():
        domain = [f"a{i}" for i in range(1, len(probs) + 1)]
        codes = gen.choice(len(domain), size=n, p=np.asarray(probs) / np.sum(probs))
        cols[name] = pd.Categorical.from_codes(codes.astype(np.int16), categories=domain)
        hier[name] = Hierarchy.from_subsets(domain, ARTIFICIAL_SUBSETS[name], name=name)
    return Dataset(pd.DataFrame(cols), quasi_identifiers=list(cols), hierarchies=hier, name="artificial-kconcealment")


def _check_n(n: int, owner: str) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InvalidParameterError(f"The 'n' parameter of {owner} must be an int in the range [1, inf). Got {n!r} instead.")
    return int(n)
