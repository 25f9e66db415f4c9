"""A release as a directory of Parquet files (a partitioned release, :func:`ktype.dask.write_release`)
with its metadata in ``_ktype_release.json``.

Written under a hidden temporary name beside the target and renamed into place only once
every file is written and checked (:func:`ktype.io._files.atomic_directory`). Reading needs
no Dask: pyarrow and the table reader.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from ..exceptions import DataError
from ._files import atomic_directory
from .metadata import METADATA_FILE, jsonable, parse_metadata
from .parquet import SUFFIXES

__all__ = ["write", "read", "detect"]


def detect(path: Path) -> bool:
    return path.is_dir()


def write(path: Path, write_files: Callable[[Path], None], describe: Callable[[Path], dict[str, Any]]) -> Path:
    """Create the release directory ``path``: ``write_files(tmp)`` writes the Parquet files,
    ``describe(tmp)`` checks them as written and returns the metadata (raising leaves nothing),
    which goes to ``_ktype_release.json``; then the directory is renamed into place."""

    def fill(tmp: Path) -> None:
        write_files(tmp)
        meta = jsonable(describe(tmp))
        (tmp / METADATA_FILE).write_text(json.dumps(meta, indent=1, sort_keys=True))

    atomic_directory(path, fill)
    return path


def read(path: Path, **_: Any) -> tuple[pd.DataFrame, dict[str, Any] | None]:
    """The rows of the release's non-empty Parquet files (in file-name order) and its metadata."""
    import pyarrow.parquet as pq

    from ..data.dataset import read_table

    files = sorted(f for f in path.iterdir() if f.suffix.lower() in SUFFIXES and not f.name.startswith(("_", ".")))
    if not files:
        raise DataError(f"{path} is a directory without Parquet files; give a release file or a partitioned release.")
    side = path / METADATA_FILE
    meta = parse_metadata(side.read_text(encoding="utf-8"), side) if side.exists() else None
    full = [f for f in files if pq.ParquetFile(f).metadata.num_rows] or files[:1]  # a partition may be empty
    return pd.concat([read_table(f) for f in full], ignore_index=True), meta
