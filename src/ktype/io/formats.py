"""The table of release formats: each a writer and a reader, and how a path is recognized.

========================  =================================  ==================================
format                    on disk                            metadata
========================  =================================  ==================================
``partitioned``           a directory of Parquet files       ``_ktype_release.json`` inside
``anatomy``               ``P.qi.csv`` + ``P.sensitive.csv``  none (both tables are untrusted)
``parquet``               ``NAME.parquet`` / ``NAME.pq``     key ``ktype.release`` of the file
``csv``                   any other file (``.csv``, ``.tsv``)  sidecar ``NAME.ktype.json``
========================  =================================  ==================================

:func:`format_of` picks the first format, in this order, that recognizes a path; every reader
of a release (``ktype check``, ``ktype metrics``, the linkage attack, :func:`read_release`)
goes through it, and every writer (:meth:`ktype.Release.save`, :func:`ktype.dask.write_release`,
``ktype anatomy``) through the same entry's writer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..exceptions import DataError
from . import anatomy, csv, parquet, partitioned
from ._csvtext import csv_text
from ._files import atomic_write, atomic_write_text, output_format

__all__ = ["Format", "FORMATS", "format_of", "read_release", "write_table"]


@dataclass(frozen=True)
class Format:
    """One release format: ``detect(path)`` says whether ``path`` holds it, ``read(path, ...)``
    returns what it holds (a table format: the published table and its metadata or None; anatomy:
    the QI and sensitive tables), ``write(path, ...)`` writes it atomically."""

    name: str
    #: a table format holds one published table that :func:`read_release` returns
    table: bool
    detect: Callable[[Path], bool]
    read: Callable[..., Any]
    write: Callable[..., Any]


#: the formats in the order :func:`format_of` tries them
FORMATS: dict[str, Format] = {
    f.name: f for f in (
        Format("partitioned", True, partitioned.detect, partitioned.read, partitioned.write),
        Format("anatomy", False, anatomy.detect, anatomy.read, anatomy.write),
        Format("parquet", True, parquet.detect, parquet.read, parquet.write),
        Format("csv", True, csv.detect, csv.read, csv.write),
    )
}


def format_of(path: str | Path) -> Format:
    """The format of the release at ``path`` (a file, a directory or an anatomy prefix)."""
    path = Path(path)
    for fmt in FORMATS.values():
        if (path.exists() or not fmt.table) and fmt.detect(path):
            return fmt
    raise DataError(f"Release file not found: {path}")


def read_release(
    path: str | Path, *, sep: str | None = None, csv_escape: bool | None = None
) -> tuple[pd.DataFrame, dict[str, Any] | None]:
    """Read a published release and its metadata (``None`` when it has none).

    Parquet: the ``ktype.release`` key-value metadata. CSV: the sidecar ``NAME.ktype.json``;
    a sidecar whose recorded SHA-256 differs from the file's bytes raises
    :class:`~ktype.exceptions.StaleMetadataError` (a :class:`~ktype.exceptions.DataError`:
    the file was edited, or the sidecar belongs to another file). The SHA-256 is unkeyed: it
    ties a sidecar to its file, and anyone who edits the file can recompute it, so it does
    not show who wrote either. CSV cells escaped against spreadsheet formulas are unescaped
    (``csv_escape``: default from the sidecar, else True, as :meth:`Release.save` writes).
    A directory is a partitioned release (its Parquet files in name order and
    ``_ktype_release.json``). An anatomy prefix is refused: its two tables are no one table.
    """
    path = Path(path)
    fmt = format_of(path)
    if not fmt.table:
        raise DataError(f"{path} is an {fmt.name} release ({', '.join(p.name for p in anatomy.paths(path))}), "
                        "two tables joined by a group ID, not one published table; check it with "
                        f"ktype check-anatomy {path} --l L.")
    return fmt.read(path, sep=sep, csv_escape=csv_escape)  # type: ignore[no-any-return]


def write_table(
    df: pd.DataFrame,
    path: str | Path,
    *,
    format: str | None = None,  # noqa: A002 - the CLI option's name
    sep: str | None = None,
    csv_escape: bool = True,
    mkdirs: bool = True,
) -> Path:
    """Write a table (no release metadata) atomically as CSV or Parquet (format from ``format``
    or the extension). CSV cells are formula-escaped unless ``csv_escape=False``."""
    path = Path(path)
    fmt = output_format(path, format)
    if fmt == "parquet":
        atomic_write(path, lambda p: df.to_parquet(p, index=False), mkdirs=mkdirs)
    else:
        if sep is None:
            sep = "\t" if path.suffix.lower() == ".tsv" else ","
        atomic_write_text(path, csv_text(df, sep=sep, csv_escape=csv_escape), mkdirs=mkdirs)
    return path
