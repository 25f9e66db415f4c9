"""Datasets shipped inside the package.

Adult (UCI Adult, ARX preparation: 30,162 complete records, 9 attributes) with the ARX
hierarchies. Source: arx-deidentifier/arx ``data/`` (Apache-2.0); data: UCI Machine
Learning Repository, Becker & Kohavi (1996), CC BY 4.0. See
``ktype/data/_bundled/adult/PROVENANCE.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import pandas as pd

from .dataset import Dataset
from .hierarchy import Hierarchy

__all__ = ["load_adult", "bundled_datasets", "bundled_path"]

ADULT_COLUMNS = [
    "sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation", "salary-class",
]
ADULT_DEFAULT_QIS = ADULT_COLUMNS[:-1]


def bundled_path(name: str) -> Path:
    """Folder of a bundled dataset."""
    return Path(str(resources.files("ktype.data") / "_bundled" / name))


def bundled_datasets() -> dict[str, str]:
    """Names and one-line descriptions of the bundled datasets."""
    return {"adult": "UCI Adult (ARX preparation), 30,162 rows x 9 attributes, ARX hierarchies; CC BY 4.0 / Apache-2.0"}


def load_adult(
    quasi_identifiers: Sequence[str] | None = None,
    sensitive: Sequence[str] | None = ("salary-class",),
    *,
    insensitive: Sequence[str] = (),
    n: int | None = None,
    hierarchies: Mapping[str, Any] | None = None,
) -> Dataset:
    """The bundled Adult dataset with its ARX hierarchies.

    Parameters
    ----------
    quasi_identifiers : sequence of str, optional
        Default: the eight demographic attributes (all but ``salary-class``).
    sensitive : sequence of str, optional
        Default ``("salary-class",)``. Pass ``()`` to use all nine columns as QIs.
    insensitive : sequence of str, optional
        Other Adult columns to release unchanged. Columns that are neither
        quasi-identifiers, sensitive nor listed here are left out of the dataset (and so of
        every release).
    n : int, optional
        Keep only the first ``n`` rows (for quick experiments).
    hierarchies : mapping, optional
        Hierarchies (or hierarchy specifications, as ``Dataset`` takes them) that replace the
        bundled ARX hierarchy of these quasi-identifiers.
    """
    folder = bundled_path("adult")
    df = pd.read_csv(folder / "adult.csv.gz", sep=";", dtype=str)
    if n is not None:
        df = df.iloc[:n]
    df["age"] = df["age"].astype(int)
    sensitive = list(sensitive or [])
    if quasi_identifiers is None:
        quasi_identifiers = [c for c in ADULT_COLUMNS if c not in sensitive]
    given = dict(hierarchies or {})
    hierarchies = {
        c: given[c] if c in given else Hierarchy.from_arx_csv(folder / f"adult_hierarchy_{c}.csv", name=c)
        for c in quasi_identifiers
    }
    hierarchies.update({c: h for c, h in given.items() if c not in hierarchies})  # Dataset names a non-QI
    keep = set(quasi_identifiers) | set(sensitive) | set(insensitive)
    df = df[[c for c in df.columns if c in keep]]  # unselected columns are not part of the dataset
    return Dataset(df, quasi_identifiers=list(quasi_identifiers), sensitive=sensitive, insensitive=list(insensitive),
                   hierarchies=hierarchies, name="adult")
