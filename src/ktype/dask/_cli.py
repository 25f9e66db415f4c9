"""What the command line runs on a partitioned Parquet dataset (a directory or a glob):
``ktype risk 'data/*.parquet' --qi ...`` (the risk of the input, from distributed class
counts) and the test of which inputs are such datasets. Dask is imported only when a
function here runs."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..exceptions import InvalidParameterError

__all__ = ["is_partitioned", "risk_report", "IN_MEMORY_ONLY_RISK_OPTIONS"]

#: ``ktype risk`` options the distributed path does not compute (they need the records in memory)
IN_MEMORY_ONLY_RISK_OPTIONS = {"population": "--population", "population_size": "--population-size",
                               "weights": "--weights", "suda": "--suda", "posterior": "--posterior", "local": "--local",
                               "original": "--original", "dataset": "--dataset"}


def is_partitioned(path: str | Path) -> bool:
    """A Parquet dataset for ``ktype.dask``: a glob (``data/*.parquet``), a remote URL, or a
    directory. A single file is read in memory as before."""
    text = str(path)
    return any(ch in text for ch in "*?[") or "://" in text or Path(text).is_dir()


def risk_report(source: str | Path, *, roles: Mapping[str, Any], threshold: float = 0.2,
                sampling_fraction: float | None = None, types: Any = None, missing: Any = None,
                scheduler: Any = "threads", given: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The input section of ``ktype risk``'s report for a partitioned Parquet dataset:
    prosecutor, journalist and marketer risk, sample uniques and the records violating 2, 3,
    5 and 10-anonymity, from the distributed class sizes (:func:`ktype.dask.risk`).

    ``given``: the other options of the command; one the distributed path does not compute
    (population table, weights, SUDA, release mode) is refused by name.
    """
    for key, flag in IN_MEMORY_ONLY_RISK_OPTIONS.items():
        value = (given or {}).get(key)
        if value not in (None, False, 0):
            raise InvalidParameterError(
                f"{flag} needs the records in memory; on a partitioned Parquet dataset ktype risk computes the "
                "prosecutor, journalist and marketer risk and the sample uniques (optionally with --sampling-fraction). "
                "Run it on one Parquet or CSV file for the other analyses."
            )
    from ._risk import risk
    from ._table import from_dask

    table = from_dask(str(source), scheduler=scheduler, types=types, missing=missing, **dict(roles))
    got = risk(table, threshold=threshold, sampling_fraction=sampling_fraction)
    section = {"basis": "equivalence classes of the input", "population": got["population"], "engine": "dask",
               "partitions": int(table.frame.npartitions),
               **{k: got[k] for k in ("records", "classes", "sample_uniques", "suppressed", "prosecutor", "journalist",
                                      "marketer", "records_violating_k_anonymity")}}
    return {"mode": "input", "threshold": float(threshold), "input": section}

