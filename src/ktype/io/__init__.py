"""Release files: one module per format, each a writer and a reader, in one table.

* :mod:`ktype.io.formats` — the table of formats (``FORMATS``, :func:`format_of`) and
  :func:`read_release`, through which every release file is read;
* :mod:`ktype.io.csv` — a CSV file and its metadata sidecar ``NAME.ktype.json``;
* :mod:`ktype.io.parquet` — one Parquet file, metadata in its key-value metadata;
* :mod:`ktype.io.partitioned` — a directory of Parquet files and ``_ktype_release.json``;
* :mod:`ktype.io.anatomy` — the two tables of an anatomy release;
* shared by all of them: :mod:`ktype.io.metadata` (the release metadata's names and parser,
  hierarchy fingerprints, versions), :mod:`ktype.io._files` (atomic writes, output-path
  safety), :mod:`ktype.io._csvtext` (spreadsheet-safe CSV text) and :mod:`ktype.io._readback`
  (the read-back comparison that makes a written file the verified release).

Importing this package loads nothing heavy; each name loads its module on first use.
"""

from __future__ import annotations

from .._lazy import attach

__all__ = [
    "FORMATS",
    "Format",
    "format_of",
    "read_release",
    "write_table",
    "sidecar_path",
    "atomic_write",
    "atomic_write_text",
    "check_output_path",
    "output_format",
    "csv_text",
    "escape_csv_cells",
    "unescape_csv_cells",
]

_NAMES = {
    "FORMATS": ("ktype.io.formats", "FORMATS"),
    "Format": ("ktype.io.formats", "Format"),
    "format_of": ("ktype.io.formats", "format_of"),
    "read_release": ("ktype.io.formats", "read_release"),
    "write_table": ("ktype.io.formats", "write_table"),
    "sidecar_path": ("ktype.io.metadata", "sidecar_path"),
    "atomic_write": ("ktype.io._files", "atomic_write"),
    "atomic_write_text": ("ktype.io._files", "atomic_write_text"),
    "check_output_path": ("ktype.io._files", "check_output_path"),
    "output_format": ("ktype.io._files", "output_format"),
    "csv_text": ("ktype.io._csvtext", "csv_text"),
    "escape_csv_cells": ("ktype.io._csvtext", "escape_csv_cells"),
    "unescape_csv_cells": ("ktype.io._csvtext", "unescape_csv_cells"),
}

__getattr__, __dir__ = attach(__name__, _NAMES, __all__, submodules=True)
