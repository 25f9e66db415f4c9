"""Shared plumbing of :mod:`ktype.risk`: turn a Dataset, a DataFrame or a Release into
per-record integer codes of the quasi-identifiers, group records into equivalence classes,
and summarize per-record risks.

Everything here is vectorized (``pandas.factorize``, ``numpy.unique``/``bincount``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._grouping import group_ids
from ..data.dataset import Dataset
from ..exceptions import DataError, KtypeError
from ..release import Release

__all__ = ["RiskData", "Coded", "coded", "class_sizes", "summarize", "read_population"]

#: What every ``ktype.risk`` function accepts as its data.
RiskData = Dataset | pd.DataFrame | Release


@dataclass(frozen=True)
class Coded:
    """Quasi-identifiers of the records as dense integer codes.

    ``codes[:, j]`` is in ``0 .. cardinality[j]-1``; two records share a code in column
    ``j`` iff they show the same (possibly generalized) value there. ``rows`` maps each
    coded record to its row in the source (published rows of a release exclude suppressed
    rows). ``dataset`` is set for Dataset/Release input (hierarchies available).
    """

    codes: np.ndarray
    columns: list[str]
    rows: np.ndarray
    dataset: Dataset | None
    release: Release | None
    n_suppressed: int = 0

    @property
    def n(self) -> int:
        return int(self.codes.shape[0])

    @property
    def cardinality(self) -> np.ndarray:
        if self.n == 0:
            return np.zeros(self.codes.shape[1], dtype=np.int64)
        return self.codes.max(axis=0).astype(np.int64) + 1

    def class_ids(self, columns: Sequence[int] | None = None) -> tuple[np.ndarray, int]:
        """Equivalence class of each record over ``columns`` (all by default)."""
        cols = range(self.codes.shape[1]) if columns is None else columns
        if self.n == 0:
            return np.zeros(0, dtype=np.int64), 0
        return group_ids([self.codes[:, j] for j in cols])


def _factorize(values: pd.Series | np.ndarray) -> np.ndarray:
    """Dense codes; missing values form one value of their own."""
    codes, _ = pd.factorize(pd.Series(values), use_na_sentinel=False)
    return codes.astype(np.int64)


def coded(data: RiskData, quasi_identifiers: Sequence[str] | None = None) -> Coded:
    """Encode ``data`` for risk analysis.

    * :class:`Dataset`: its QIs (``quasi_identifiers`` may pick a subset).
    * :class:`pandas.DataFrame`: ``quasi_identifiers`` must name the columns; missing
      values are one value of their own (an attacker sees "missing" too).
    * :class:`Release`: the published QI cells (one code per distinct generalized value);
      suppressed rows are left out and counted in ``n_suppressed``.
    """
    if isinstance(data, Release):
        ds = data.dataset
        cols = _pick_columns(ds.quasi_identifiers, quasi_identifiers)
        keep = ~data.suppressed
        idx = [ds.quasi_identifiers.index(c) for c in cols]
        sizes = ds.domain_sizes
        codes = np.empty((int(keep.sum()), len(idx)), dtype=np.int64)
        for t, j in enumerate(idx):
            cell = data.lo[keep, j].astype(np.int64) * int(sizes[j]) + data.hi[keep, j]
            codes[:, t] = _factorize(cell)
        return Coded(codes, cols, np.flatnonzero(keep), ds, data, int((~keep).sum()))
    if isinstance(data, Dataset):
        cols = _pick_columns(data.quasi_identifiers, quasi_identifiers)
        idx = [data.quasi_identifiers.index(c) for c in cols]
        codes = np.ascontiguousarray(data.X[:, idx]).astype(np.int64)
        return Coded(codes, cols, np.arange(data.n), data, None)
    if isinstance(data, pd.DataFrame):
        if not quasi_identifiers:
            raise DataError("Name the quasi-identifier columns of the DataFrame (quasi_identifiers=[...]).")
        cols = [str(c) for c in quasi_identifiers]
        names = [str(c) for c in data.columns]
        for c in cols:
            if c not in names:
                from ..data.dataset import _unknown_column

                raise DataError(_unknown_column(c, names))
        frame = data.copy(deep=False)
        frame.columns = names
        codes = np.empty((len(frame), len(cols)), dtype=np.int64)
        for t, c in enumerate(cols):
            codes[:, t] = _factorize(frame[c])
        return Coded(codes, cols, np.arange(len(frame)), None, None)
    raise DataError(f"Risk analysis needs a Dataset, a pandas DataFrame or a Release; got {type(data).__name__}.")


def _pick_columns(available: list[str], wanted: Sequence[str] | None) -> list[str]:
    if not wanted:
        return list(available)
    cols = [str(c) for c in wanted]
    for c in cols:
        if c not in available:
            from ..data.dataset import _unknown_column

            raise DataError(_unknown_column(c, available))
    return cols


def class_sizes(gid: np.ndarray, n_groups: int) -> np.ndarray:
    """Records per class (``bincount``)."""
    return np.bincount(gid, minlength=n_groups).astype(np.int64)


def summarize(risk: np.ndarray, threshold: float) -> dict[str, Any]:
    """Highest, average, and records strictly above ``threshold`` (ARX's "records at risk")."""
    if risk.size == 0:
        return {"records": 0, "highest": 0.0, "average": 0.0, "records_above_threshold": 0,
                "share_above_threshold": 0.0, "threshold": threshold}
    bad = int(risk.size - np.isfinite(risk).sum())
    if bad:  # a risk that cannot be computed is never reported as "none above"
        raise KtypeError(f"Internal error: {bad} of {risk.size} per-record risks are not finite numbers; no risk "
                         "summary is reported. Please report this with the command that produced it.")
    above = risk > threshold
    return {
        "records": int(risk.size),
        "highest": float(risk.max()),
        "average": float(risk.mean()),
        "records_above_threshold": int(above.sum()),
        "share_above_threshold": float(above.mean()),
        "threshold": float(threshold),
    }


def read_population(population: pd.DataFrame | str | Path | Dataset) -> pd.DataFrame:
    """The population table as a DataFrame (a path is read as CSV or Parquet)."""
    if isinstance(population, Dataset):
        return population.data
    if isinstance(population, pd.DataFrame):
        return population
    if isinstance(population, (str, Path)):
        from ..data.dataset import read_table

        return read_table(population)
    raise DataError(f"population must be a DataFrame, a Dataset or a file path; got {type(population).__name__}.")


def encode_like(coded_input: Coded, frame: pd.DataFrame) -> np.ndarray:
    """Codes of ``frame``'s QI columns in the code space of ``coded_input``'s *ungeneralized*
    values: leaf ranks for Dataset/Release input, joint factorization for DataFrames.

    Values the input does not know get ``-1`` (they can only be covered by a fully
    generalized cell).
    """
    names = [str(c) for c in frame.columns]
    missing = [c for c in coded_input.columns if c not in names]
    if missing:
        raise DataError(f"The population table lacks quasi-identifier column(s) {missing}.")
    frame = frame.copy(deep=False)
    frame.columns = names
    out = np.empty((len(frame), len(coded_input.columns)), dtype=np.int64)
    ds = coded_input.dataset
    for t, c in enumerate(coded_input.columns):
        if ds is not None:
            h = ds.hierarchy(c)
            out[:, t] = _ranks_or_minus_one(h, frame[c])
        else:
            raise DataError("encode_like needs a Dataset or Release input.")
    return out


def _ranks_or_minus_one(h: Any, values: pd.Series) -> np.ndarray:
    from ..data.hierarchy import value_keys

    codes, uniq = pd.factorize(values.reset_index(drop=True), use_na_sentinel=False)
    if h.numeric:
        keys = pd.to_numeric(pd.Series(uniq), errors="coerce").to_numpy(dtype=float)
    else:
        keys = value_keys(uniq)
    return np.asarray(h._index.get_indexer(keys), dtype=np.int64)[codes]
