"""The metadata of a release file, shared by every format.

A release's metadata (:meth:`ktype.Release.metadata`; for a partitioned release
:func:`ktype.dask._meta.release_metadata`) is one JSON object of format ``ktype-release``. Where
it lives depends on the format: under the key ``ktype.release`` of a Parquet file's key-value
metadata, in a sidecar ``NAME.ktype.json`` beside a CSV file (with the SHA-256 of the CSV
bytes), in ``_ktype_release.json`` inside a partitioned release's directory. This module holds
what those share: the names, the parser that refuses anything else, the hierarchy fingerprint,
the version record and the conversion of values to JSON.
"""

from __future__ import annotations

import json
import platform
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..exceptions import DataError

__all__ = [
    "METADATA_FORMAT",
    "METADATA_VERSION",
    "PARQUET_KEY",
    "SIDECAR_SUFFIX",
    "METADATA_FILE",
    "sidecar_path",
    "parse_metadata",
    "hierarchy_fingerprint",
    "versions",
    "dtype_name",
    "jsonable",
]

#: release-file metadata: format name, version, Parquet key and CSV sidecar suffix
METADATA_FORMAT = "ktype-release"
METADATA_VERSION = 1
PARQUET_KEY = b"ktype.release"
SIDECAR_SUFFIX = ".ktype.json"
#: the metadata file of a partitioned release (a leading underscore: Parquet readers skip it)
METADATA_FILE = "_ktype_release.json"


def sidecar_path(path: str | Path) -> Path:
    """The metadata sidecar of a CSV release: ``NAME.ktype.json`` beside ``NAME.csv``."""
    path = Path(path)
    return path.with_name(path.stem + SIDECAR_SUFFIX)


def parse_metadata(text: str, where: Path) -> dict[str, Any]:
    """The release metadata in ``text`` (read from ``where``); a :class:`DataError` naming
    ``where`` when it is no JSON, no ktype release metadata, or a newer version."""
    try:
        meta = json.loads(text)
    except ValueError as e:
        raise DataError(f"The release metadata in {where} is not valid JSON: {e}") from None
    if not isinstance(meta, dict) or meta.get("format") != METADATA_FORMAT:
        raise DataError(f"{where} does not hold ktype release metadata (format {METADATA_FORMAT!r}).")
    if int(meta.get("format_version", 0)) > METADATA_VERSION:
        raise DataError(f"{where} has release metadata version {meta.get('format_version')}; this ktype reads up to "
                        f"{METADATA_VERSION}. Upgrade ktype.")
    return meta


def hierarchy_fingerprint(h: Any) -> str:
    """A digest of a hierarchy's *structure*: kind, size, node intervals and the labels of
    the generalized (non-leaf) nodes.

    The leaf values themselves are left out on purpose: for hierarchies built from the data
    (``ordered``, intervals, masking) the leaves are the distinct values of the column, and
    a digest of them would let anyone confirm a guess such as "someone aged 97 is in the
    table" offline. The audit of ``ktype check`` verifies the leaves anyway (every published
    cell must cover its record's value).
    """
    import hashlib

    hsh = hashlib.sha256()
    hsh.update(f"{h.kind}|{h.size}|".encode())
    if h.is_tree:
        inner = h.node_lo != h.node_hi
        hsh.update(np.ascontiguousarray(h.node_lo[inner]).tobytes())
        hsh.update(np.ascontiguousarray(h.node_hi[inner]).tobytes())
        hsh.update("\x1f".join(str(lab) for lab, i in zip(h.node_label, inner) if i).encode())
    return hsh.hexdigest()[:32]


def versions() -> dict[str, str]:
    """Versions of ktype and its main dependencies, for provenance."""
    import numpy
    import pandas

    from .. import __version__

    out = {"ktype": __version__, "python": platform.python_version(), "numpy": numpy.__version__, "pandas": pandas.__version__}
    try:
        import numba

        out["numba"] = numba.__version__
    except ImportError:  # pragma: no cover
        pass
    return out


def dtype_name(values: pd.Series) -> str:
    """The type of a published column as the metadata names it."""
    if pd.api.types.is_bool_dtype(values):
        return "boolean"
    if pd.api.types.is_integer_dtype(values):
        return "integer"
    if pd.api.types.is_float_dtype(values):
        return "float"
    if pd.api.types.is_datetime64_any_dtype(values):
        return "datetime"
    return "string"


def jsonable(x: Any) -> Any:
    """``x`` with mappings, sequences and numpy values turned into JSON types (anything else: its text)."""
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, (str, int, float, bool)) or x is None:
        return x
    return str(x)
