"""The metadata of a partitioned Parquet release: the keys of :meth:`ktype.Release.metadata`
(column roles and types, recoding, levels, models with their scope, counts, hierarchy
fingerprints, algorithm, parameters, randomness; never a seed, an identifier or a data
value), plus what only a distributed run has (engine, partitions, the written verdicts).
``ktype check DIR`` reads it from ``_ktype_release.json`` (the partitioned format of :mod:`ktype.io`)."""

from __future__ import annotations

import time
from typing import Any

import pandas as pd

from ..io.metadata import METADATA_FILE, METADATA_FORMAT, METADATA_VERSION, hierarchy_fingerprint, versions
from ..io.metadata import dtype_name as _dtype_name

__all__ = ["release_metadata", "METADATA_FILE"]


def release_metadata(release: Any, models: tuple, verdicts: list, written: int, frame_meta: pd.DataFrame) -> dict[str, Any]:
    """:meth:`ktype.Release.metadata` of a :class:`ktype.dask.DaskRelease` written with
    ``written`` rows (suppressed rows left out); ``frame_meta``: the input's empty frame
    (the types of the columns that are not coded)."""
    t = release.table
    ds = t.proxy
    pub = set(ds.quasi_identifiers) | set(ds.sensitive) | set(ds.insensitive)
    columns = []
    for c in t.columns:
        if c not in pub:
            continue
        entry: dict[str, Any] = {"name": c, "role": ds.roles.get(c, "insensitive")}
        if c in ds.quasi_identifiers:
            entry["type"] = "generalized"
            entry["value_type"] = "numeric" if getattr(ds.hierarchy(c), "numeric", False) else "categorical"
        else:
            entry["type"] = _dtype_name(ds.data[c] if c in ds.sensitive else frame_meta[c])
        columns.append(entry)
    prov = release.provenance
    v = versions()
    return {
        "format": METADATA_FORMAT,
        "format_version": METADATA_VERSION,
        "ktype_version": v.get("ktype"),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "columns": columns,
        "recoding": release.recoding,
        "levels": None if release.levels is None else [int(x) for x in release.levels],
        "models": [m.metadata_record(release.recoding) for m in models],
        "verified": True,
        "input_records": int(t.n),
        "suppressed": int(release.n_suppressed),
        "published_rows": int(written),
        "suppressed_rows_published": False,
        "hierarchies": {c: {"kind": h.kind, "fingerprint": hierarchy_fingerprint(h)}
                        for c, h in zip(ds.quasi_identifiers, ds.hierarchies)},
        "perturbed": False,
        "algorithm": prov.get("algorithm"),
        "parameters": prov.get("parameters", {}),
        "randomness": prov.get("randomness", "none (deterministic algorithm)"),
        "engine": "dask",
        "partitions": int(t.frame.npartitions),
        "verdicts": [{"model": s.model, "satisfied": s.satisfied,
                      **{k: s.summary[k] for k in ("classes", "smallest_class", "failing_records")}} for s in verdicts],
        "provenance": {k: val for k, val in prov.items() if k not in ("parameters", "randomness")},
    }
