"""An anatomy release (Xiao & Tao, VLDB 2006): two CSV tables ``P.qi.csv`` and
``P.sensitive.csv`` joined by a group ID, each written atomically with every line break
quoted. Read back as text, every value as it was written (a ZIP code 02139 stays 02139);
:func:`ktype.algorithms.transparent.anatomy.read_anatomy` validates the two tables."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..exceptions import DataError
from ._csvtext import csv_text
from ._files import atomic_write_text

__all__ = ["paths", "write", "read", "detect"]


def paths(prefix: str | Path) -> tuple[Path, Path]:
    """The two files of an anatomy release: ``<prefix>.qi.csv`` and ``<prefix>.sensitive.csv``."""
    prefix = Path(prefix)
    return prefix.with_name(prefix.name + ".qi.csv"), prefix.with_name(prefix.name + ".sensitive.csv")


def detect(path: Path) -> bool:
    """``path`` is no file but the prefix of both tables."""
    return not path.exists() and all(p.is_file() for p in paths(path))


def write(prefix: str | Path, qi: pd.DataFrame, sensitive: pd.DataFrame) -> tuple[Path, Path]:
    """Write the two tables (each atomically: a failed write leaves no partial file and keeps
    an existing one). Returns the two paths."""
    out = paths(prefix)
    for path, frame in zip(out, (qi, sensitive)):
        atomic_write_text(path, csv_text(frame, csv_escape=False))  # line breaks in cells quoted
    return out


def read(prefix: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The QI table and the sensitive table, every cell as text."""
    qp, sp = paths(prefix)
    for path in (qp, sp):
        if not path.exists():
            raise DataError(f"Anatomy table not found: {path} (expected {qp.name} and {sp.name}).")
    return pd.read_csv(qp, dtype=str, keep_default_na=False), pd.read_csv(sp, dtype=str, keep_default_na=False)
