"""A release as a CSV file with its metadata sidecar ``NAME.ktype.json``.

The CSV text is spreadsheet-safe and quotes every line break (:mod:`ktype.io._csvtext`); the
sidecar holds the release metadata and the SHA-256 of the CSV bytes, so a sidecar that does
not belong to its file is detected when the release is read. Both are written atomically in
one operation, the CSV read back and compared with the published table before it lands.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from ..exceptions import StaleMetadataError
from ._csvtext import csv_text, escape_csv_cells, unescape_csv_cells
from ._files import atomic_write, check_output_path
from ._readback import read_back_check
from .metadata import parse_metadata, sidecar_path

__all__ = ["write", "read", "detect"]


def detect(path: Path) -> bool:
    """A file that is no Parquet file is read as CSV (``.csv``, ``.tsv``, ``.txt``, no extension)."""
    return not path.is_dir()


def write(path: Path, df: pd.DataFrame, meta: dict[str, Any], *, sep: str | None = None, csv_escape: bool = True,
          inputs: Iterable[str | Path | None] = ()) -> Path:
    """Write ``df`` to ``path`` and ``meta`` (plus the file's name, SHA-256, separator and
    escaping) to its sidecar, atomically; the CSV is read back and compared before it lands.
    ``inputs``: files the sidecar must not overwrite."""
    check_output_path(sidecar_path(path), what="metadata sidecar", inputs=inputs, others={"release": path},
                      force=True, mkdirs=True)
    if sep is None:
        sep = "\t" if path.suffix.lower() == ".tsv" else ","
    table = escape_csv_cells(df) if csv_escape else df
    data = csv_text(table, sep=sep, csv_escape=False).encode("utf-8")
    meta = {**meta, "file": {"name": path.name, "sha256": hashlib.sha256(data).hexdigest(), "sep": sep,
                             "csv_escape": bool(csv_escape)}}

    def write_both(tmp_side: Path) -> None:
        Path(tmp_side).write_text(json.dumps(meta, indent=2), encoding="utf-8")

        def write_csv(p: Path) -> None:
            Path(p).write_bytes(data)

        # the CSV is read back and compared before it lands; then its sidecar
        atomic_write(path, write_csv, check=read_back_check(table, fmt="csv", sep=sep, target=path))

    atomic_write(sidecar_path(path), write_both)
    return path


def read(path: Path, *, sep: str | None = None, csv_escape: bool | None = None) -> tuple[pd.DataFrame, dict[str, Any] | None]:
    """The published table (every cell as text) and the sidecar's metadata (None without one).

    A sidecar whose SHA-256 differs from the file's bytes raises :class:`StaleMetadataError`.
    ``sep`` and ``csv_escape`` default to the sidecar's (else: sniffed, and True)."""
    from ..data.dataset import read_table

    meta: dict[str, Any] | None = None
    side = sidecar_path(path)
    if side.exists():
        meta = parse_metadata(side.read_text(encoding="utf-8"), side)
        want = (meta.get("file") or {}).get("sha256")
        have = hashlib.sha256(path.read_bytes()).hexdigest()
        if want != have:
            raise StaleMetadataError(
                f"The metadata sidecar {side} does not belong to {path}: the file's SHA-256 is {have[:12]}..., "
                f"the sidecar records {str(want)[:12]}... The file was changed after it was written (or the "
                "sidecar is another release's). Remove the sidecar to check the file with explicit flags."
            )
        if sep is None:
            sep = (meta.get("file") or {}).get("sep")
        if csv_escape is None:
            csv_escape = (meta.get("file") or {}).get("csv_escape")
    df = read_table(path, sep=sep, infer=False)  # labels are text; values compare by canonical keys
    if csv_escape is None or csv_escape:
        df = unescape_csv_cells(df)
    return df, meta
