"""Reading a partitioned Parquet release written by :func:`ktype.dask.write_release` (no Dask
needed): what :func:`ktype.release.read_release` does for a directory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from ..exceptions import DataError

__all__ = ["read_partitioned"]


def read_partitioned(path: Path, parse_meta: Callable[[str, Path], dict[str, Any]]) -> tuple[pd.DataFrame, dict[str, Any] | None]:
    """A partitioned release (:func:`ktype.dask.write_release`) as :func:`ktype.release.read_release`
    returns a file: the rows of its non-empty Parquet files and its ``_ktype_release.json``
    (read by ``parse_meta``, the release module's reader: this module imports no ktype module
    that imports the release module)."""
    import pyarrow.parquet as pq

    from ..data.dataset import read_table

    files = sorted(f for f in path.iterdir() if f.suffix.lower() in (".parquet", ".pq") and not f.name.startswith(("_", ".")))
    if not files:
        raise DataError(f"{path} is a directory without Parquet files; give a release file or a partitioned release.")
    side = path / "_ktype_release.json"
    meta = parse_meta(side.read_text(encoding="utf-8"), side) if side.exists() else None
    full = [f for f in files if pq.ParquetFile(f).metadata.num_rows] or files[:1]  # a partition may be empty
    return pd.concat([read_table(f) for f in full], ignore_index=True), meta
