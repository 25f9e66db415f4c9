"""A release as one Parquet file, its metadata under the key ``ktype.release`` of the file's
key-value metadata. Written atomically and read back before it lands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from ..exceptions import DataError
from ._files import atomic_write
from ._readback import read_back_check
from .metadata import PARQUET_KEY, parse_metadata

__all__ = ["write", "read", "detect", "SUFFIXES"]

SUFFIXES = (".parquet", ".pq")


def detect(path: Path) -> bool:
    return path.suffix.lower() in SUFFIXES and not path.is_dir()


def write(path: Path, df: pd.DataFrame, meta: dict[str, Any]) -> Path:
    """Write ``df`` with ``meta`` to ``path`` atomically; read back and compared before it lands."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    def write_parquet(p: Path) -> None:
        table = pa.Table.from_pandas(df, preserve_index=False)
        kv = dict(table.schema.metadata or {})
        kv[PARQUET_KEY] = json.dumps(meta).encode("utf-8")
        pq.write_table(table.replace_schema_metadata(kv), p)

    atomic_write(path, write_parquet, check=read_back_check(df, fmt="parquet", target=path))
    return path


def read(path: Path, **_: Any) -> tuple[pd.DataFrame, dict[str, Any] | None]:
    """The published table and its metadata (None when the file has none)."""
    import pyarrow.parquet as pq

    from ..data.dataset import read_table

    meta: dict[str, Any] | None = None
    try:
        raw = (pq.read_schema(path).metadata or {}).get(PARQUET_KEY)
    except Exception as e:  # noqa: BLE001 - unreadable file: a user error
        raise DataError(f"Cannot read {path}: {e}") from None
    if raw is not None:
        meta = parse_metadata(raw.decode("utf-8"), path)
    return read_table(path), meta
