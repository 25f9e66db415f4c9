"""OCC and SAL: synthetic stand-ins for the two IPUMS extracts of Xiao, Tao & Koudas (TODS
2010, §4.1, Tables XII and XIV), and a reader for the real files.

Schema (Table XII domain sizes): quasi-identifiers Age (79 values), Gender (2), Education
(17), Birthplace (57); sensitive attribute Occupation (50 values, OCC) or Income (50, SAL).
All attributes are integer-coded; Age is stored as 17..95, the others as codes 0..m-1.

The IPUMS extracts cannot be redistributed, so :func:`occ_sal` draws a table whose
**correlation ratios** between each QI and the sensitive attribute match Table XIV:

=========== ===== ====== ========= ==========
            Age   Gender Education Birthplace
=========== ===== ====== ========= ==========
Occupation  0.49  0.62   0.28      0.38
Income      0.71  0.87   0.41      0.50
=========== ===== ====== ========= ==========

How. The correlation ratio (Kendall & Stuart 1979) of a numeric QI Y on the categorical
sensitive attribute S is ``η = sqrt(Σ_v n_v (ȳ_v − ȳ)² / Σ_i (y_i − ȳ)²)``
(:func:`correlation_ratio`). S is drawn from a mildly skewed distribution over its 50 values (largest share ~3.6%);
each QI is drawn independently given S from a mixture: with probability w a value near a mean
μ_j(S) (``round(μ + m_j/20 · Z)``, Z standard normal), else a uniform value of the domain. The
50 sensitive values are split at random (per QI) into 5 clusters sharing a mean; the 5 means
are spread over the middle 80% of the domain (0/1 for Gender). η grows continuously with w
(0 at w = 0, near 1 at w = 1), so w is found by bisection (common random numbers on the first
100,000 rows) until η is within 0.003 of the target; the test suite checks ±0.05 on fresh
tables. (One mean per value would let a region of a few QIs pin the value down so tightly
that Tailor stops splitting at once at ℓ = 8; clipping a wide normal would pile mass on the
domain ends, which range queries rarely cover.) Everything
else about IPUMS (marginals, QI-QI dependence) is invented: results on this data are
comparable to the paper's only in trend.

Scalability data (the paper's §4.3, Fig. 14: n/600k copies of OCC or SAL): :func:`occ_sal`
with ``copies=c`` tiles the table c times with fresh distinct tuple ids, because the copies
have identical QIs and the transparent algorithms break ties by id
(docs/design/transparency.md R4).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from .._validation import RNGLike, check_rng
from ..data.dataset import Dataset
from ..exceptions import DataError, InvalidParameterError

__all__ = ["OCC_SAL_DOMAINS", "OCC_SAL_ETA", "occ_sal", "occ_sal_dataset", "read_occ_sal", "correlation_ratio"]

#: Table XII domain sizes
OCC_SAL_DOMAINS = {"age": 79, "gender": 2, "education": 17, "birthplace": 57, "occupation": 50, "income": 50}
#: Table XIV correlation ratios (QI on the sensitive attribute)
OCC_SAL_ETA = {
    "occupation": {"age": 0.49, "gender": 0.62, "education": 0.28, "birthplace": 0.38},
    "income": {"age": 0.71, "gender": 0.87, "education": 0.41, "birthplace": 0.50},
}
QIS = ("age", "gender", "education", "birthplace")
#: number of distinct conditional means per QI (see the module docstring)
CLUSTERS = 5
_AGE_OFFSET = 17


def correlation_ratio(y: np.ndarray, s: np.ndarray) -> float:
    """Correlation ratio η of numeric values ``y`` on categories ``s`` (Kendall & Stuart)."""
    y = np.asarray(y, dtype=np.float64)
    s = np.asarray(s)
    _, inv = np.unique(s, return_inverse=True)
    cnt = np.bincount(inv)
    means = np.bincount(inv, weights=y) / cnt
    tot = ((y - y.mean()) ** 2).sum()
    if tot == 0:
        return 0.0
    between = (cnt * (means - y.mean()) ** 2).sum()
    return float(np.sqrt(between / tot))


def occ_sal(n: int = 600_000, sensitive: Literal["occupation", "income"] = "occupation", *, rng: RNGLike = 0,
            copies: int = 1) -> pd.DataFrame:
    """A synthetic OCC (``sensitive="occupation"``) or SAL (``"income"``) table.

    Columns ``id, age, gender, education, birthplace, <sensitive>`` (see the module
    docstring for how the correlation ratios of Table XIV are matched). ``copies`` tiles the
    table (Fig. 14's scalability data) with distinct ids. Default seed 0 (reproducible).
    """
    if sensitive not in OCC_SAL_ETA:
        raise InvalidParameterError(f"sensitive must be 'occupation' (OCC) or 'income' (SAL); got {sensitive!r}.")
    if not isinstance(n, (int, np.integer)) or n < 2:
        raise InvalidParameterError(f"n must be an integer >= 2; got {n!r}.")
    if not isinstance(copies, (int, np.integer)) or copies < 1:
        raise InvalidParameterError(f"copies must be a positive integer; got {copies!r}.")
    gen, _ = check_rng(rng)
    m_s = OCC_SAL_DOMAINS[sensitive]
    p = 1.0 / np.arange(1, m_s + 1) ** 0.2  # mildly skewed: largest share ~3.5% (10-eligible)
    p = gen.permutation(p / p.sum())
    s = gen.choice(m_s, size=n, p=p)
    cols: dict[str, np.ndarray] = {}
    for q in QIS:
        m = OCC_SAL_DOMAINS[q]
        target = OCC_SAL_ETA[sensitive][q]
        levels = np.linspace(0.1 * (m - 1), 0.9 * (m - 1), CLUSTERS) if m > 2 else (np.arange(CLUSTERS) % 2).astype(np.float64)
        mu = levels[gen.permutation(np.arange(m_s) % CLUSTERS)][s]
        near = np.clip(np.rint(mu + (m / 20.0) * gen.standard_normal(n)), 0, m - 1).astype(np.int64)
        flat = gen.integers(0, m, size=n)
        u = gen.random(n)
        t = min(n, 100_000)  # tune w on the first rows (common random numbers), then apply it
        lo_w, hi_w = 0.0, 1.0
        for _ in range(40):
            w = 0.5 * (lo_w + hi_w)
            eta = correlation_ratio(np.where(u[:t] < w, near[:t], flat[:t]), s[:t])
            if abs(eta - target) < 0.003:
                break
            if eta < target:
                lo_w = w
            else:
                hi_w = w
        cols[q] = np.where(u < w, near, flat)
    df = pd.DataFrame({"id": np.arange(n, dtype=np.int64), "age": cols["age"] + _AGE_OFFSET, "gender": cols["gender"],
                       "education": cols["education"], "birthplace": cols["birthplace"], sensitive: s})
    if copies > 1:
        df = pd.concat([df] * copies, ignore_index=True)
        df["id"] = np.arange(len(df), dtype=np.int64)
    return df


def occ_sal_dataset(df: pd.DataFrame, sensitive: str | None = None, *, name: str | None = None) -> Dataset:
    """A ktype Dataset over an OCC/SAL table: the four QIs as ordered (interval) attributes,
    ``id`` as the public identifier (the algorithms' tie-break key)."""
    if sensitive is None:
        sensitive = "occupation" if "occupation" in df.columns else "income"
    hier = {q: "ordered" for q in QIS}
    return Dataset(df, quasi_identifiers=list(QIS), sensitive=[sensitive], identifiers=["id"], hierarchies=hier,
                   name=name or ("OCC" if sensitive == "occupation" else "SAL"))


def read_occ_sal(path: str | Path, kind: Literal["occ", "sal"] = "occ") -> pd.DataFrame:
    """Read a real OCC or SAL file as distributed with the m-invariance paper: space-separated
    lines ``tuple-id age gender education birth-place omit omit omit <occupation|salary>``.
    The sensitive column is named ``occupation`` (OCC) or ``income`` (SAL), as
    in :func:`occ_sal`; CSV files with those column names are read as they are."""
    path = Path(path)
    if not path.exists():
        raise DataError(f"OCC/SAL file not found: {path}")
    sens = {"occ": "occupation", "sal": "income"}.get(kind)
    if sens is None:
        raise InvalidParameterError(f"kind must be 'occ' or 'sal'; got {kind!r}.")
    if path.suffix.lower() == ".csv":
        df = pd.read_csv(path)
        need = ["id", *QIS, sens]
        missing = [c for c in need if c not in df.columns]
        if missing:
            raise DataError(f"{path} lacks column(s) {missing}; expected {need}.")
        return df[need]
    try:
        raw = pd.read_csv(path, sep=r"\s+", header=None, engine="c")
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as e:
        raise DataError(f"Cannot read {path}: {e}") from None
    if raw.shape[1] != 9:
        raise DataError(f"{path}: expected 9 space-separated fields per line (id age gender education birth-place "
                        f"omit omit omit {sens}); found {raw.shape[1]}.")
    df = raw.iloc[:, [0, 1, 2, 3, 4, 8]].copy()
    df.columns = ["id", *QIS, sens]
    return df.astype(np.int64)
