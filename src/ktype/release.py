"""The :class:`Release`: what an algorithm returns and what gets published."""

from __future__ import annotations

import platform
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._grouping import lexsort_rows
from ._io import write_table
from .data.dataset import Dataset
from .data.hierarchy import SUPPRESSED_LABEL
from .exceptions import DataError

__all__ = ["Release", "versions"]

RECODINGS = ("full-domain", "multidimensional", "local", "freeform")


def versions() -> dict[str, str]:
    """Versions of ktype and its main dependencies, for provenance."""
    import numpy
    import pandas

    from . import __version__

    out = {"ktype": __version__, "python": platform.python_version(), "numpy": numpy.__version__, "pandas": pandas.__version__}
    try:
        import numba

        out["numba"] = numba.__version__
    except ImportError:  # pragma: no cover
        pass
    return out


@dataclass
class Release:
    """A generalized table ready for publication.

    Each released row ``i`` carries, per quasi-identifier ``j``, an interval of leaf ranks
    ``[lo[i, j], hi[i, j]]`` (a hierarchy node, a range, or the whole domain ``*``), plus the
    unchanged sensitive and insensitive values. Identifiers never appear.

    Rows are stored in a **canonical order** — sorted by their published content — so the
    order of the output reveals nothing about the order of the input. The mapping back to
    input rows (``source``) is kept in memory for verification only and is never exported.

    Attributes
    ----------
    dataset : Dataset
        The original data (schema, hierarchies, encoding). Not exported.
    lo, hi : ndarray of int32, shape (n, r)
        Generalized cells. Suppressed rows hold the whole domain.
    suppressed : ndarray of bool, shape (n,)
        Records removed by tuple suppression. They are excluded from equivalence classes
        and, by default, from exported files; measures charge them as fully generalized.
    source : ndarray of int64, shape (n,), or None
        Input row of each released row (private; for checks only). ``None`` for a
        release read back from a published file, whose row order is unknown; checkers
        then work from the consistency graph alone.
    recoding : str
        ``"full-domain"``, ``"multidimensional"``, ``"local"`` or ``"freeform"``.
    levels : ndarray of int, optional
        The level vector of a full-domain release (labels then come from the levels).
    provenance : dict
        Algorithm, parameters, models, ``randomness`` (how a randomized run was seeded:
        secret OS entropy, or a caller's seed; never the seed itself), timings, versions.
    """

    dataset: Dataset
    lo: np.ndarray
    hi: np.ndarray
    suppressed: np.ndarray
    source: np.ndarray | None
    recoding: str = "local"
    levels: np.ndarray | None = None
    provenance: dict[str, Any] = field(default_factory=dict)
    loss: dict[str, float] = field(default_factory=dict)
    published_sensitive: dict[str, np.ndarray] | None = None

    # ------------------------------------------------------------------ construction
    @classmethod
    def build(
        cls,
        dataset: Dataset,
        lo: np.ndarray,
        hi: np.ndarray,
        *,
        suppressed: np.ndarray | None = None,
        recoding: str = "local",
        levels: np.ndarray | None = None,
        provenance: dict[str, Any] | None = None,
        source: np.ndarray | None = None,
        classes: np.ndarray | None = None,
    ) -> Release:
        """Create a release from per-input-row intervals (row ``i`` generalizes input ``i``
        unless ``source`` says otherwise) and put its rows in canonical order.

        ``classes`` (optional, one id per row) is a hint from algorithms that publish whole
        groups with one box: rows with the same id must have identical ``lo``/``hi``/
        ``suppressed``. It only speeds up the canonical sort; the order is the same.
        """
        n, r = dataset.n, dataset.r
        lo = np.asarray(lo, dtype=np.int32)
        hi = np.asarray(hi, dtype=np.int32)
        if lo.shape != (len(lo), r) or hi.shape != lo.shape:
            raise DataError(f"Release needs lo/hi of shape (n, {r}); got {lo.shape} and {hi.shape}.")
        if source is None:
            if len(lo) != n:
                raise DataError(f"Release has {len(lo)} rows but the dataset has {n}; pass source=.")
            source = np.arange(n, dtype=np.int64)
        source = np.asarray(source, dtype=np.int64)
        sup = np.zeros(len(lo), dtype=bool) if suppressed is None else np.asarray(suppressed, dtype=bool).copy()
        if sup.any():
            full_hi = (dataset.domain_sizes - 1).astype(np.int32)
            lo = lo.copy()
            hi = hi.copy()
            lo[sup] = 0
            hi[sup] = full_hi
        if recoding not in RECODINGS:
            raise DataError(f"Unknown recoding {recoding!r}; use one of {RECODINGS}.")
        rel = cls(
            dataset=dataset,
            lo=lo,
            hi=hi,
            suppressed=sup,
            source=source,
            recoding=recoding,
            levels=None if levels is None else np.asarray(levels, dtype=np.int64),
            provenance=dict(provenance or {}),
        )
        rel._canonicalize(classes)
        rel.provenance.setdefault("created", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        rel.provenance.setdefault("versions", versions())
        return rel

    def _canonicalize(self, classes: np.ndarray | None = None) -> None:
        """Sort rows by published content (suppressed last), ties by sensitive values."""
        box_cols: list[np.ndarray] = [self.suppressed.astype(np.int8)]
        for j in range(self.r):
            box_cols.append(self.lo[:, j])
            box_cols.append(self.hi[:, j])
        if classes is not None and len(classes):
            # sort the (few) classes by their box, then rows by (class rank, the rest)
            classes = np.asarray(classes, dtype=np.int64)
            n_cls = int(classes.max()) + 1
            if classes.min() >= 0 and n_cls <= len(classes):  # dense ids: O(n), no sort
                first = np.full(n_cls, len(classes), dtype=np.int64)
                np.minimum.at(first, classes, np.arange(len(classes)))
                used = first < len(classes)
                remap = np.cumsum(used) - 1
                first = first[used]
                inv = remap[classes]
            else:
                _, first, inv = np.unique(classes, return_index=True, return_inverse=True)
            corder = lexsort_rows([c[first] for c in box_cols])
            crank = np.empty(len(first), dtype=np.int64)
            crank[corder] = np.arange(len(first))
            cols = [crank[inv.ravel()]]
        else:
            cols = box_cols
        for c in self.dataset.sensitive:
            cols.append(self.sensitive_codes(c))
        if self.source is not None:
            for c in self.dataset.insensitive:
                cols.append(_sort_codes(self.dataset.data[c].to_numpy()[self.source]))
        order = lexsort_rows(cols) if len(self.lo) else np.arange(0)
        self.lo = np.ascontiguousarray(self.lo[order])
        self.hi = np.ascontiguousarray(self.hi[order])
        self.suppressed = self.suppressed[order]
        if self.source is not None:
            self.source = self.source[order]
        if self.published_sensitive is not None:
            self.published_sensitive = {c: v[order] for c, v in self.published_sensitive.items()}

    # ------------------------------------------------------------------ basic facts
    @property
    def n(self) -> int:
        """Number of released rows, suppressed ones included."""
        return int(self.lo.shape[0])

    @property
    def r(self) -> int:
        return int(self.lo.shape[1])

    @property
    def n_suppressed(self) -> int:
        return int(self.suppressed.sum())

    def sensitive_codes(self, column: str) -> np.ndarray:
        """Integer codes of a sensitive column in release row order."""
        if self.published_sensitive is not None:
            return self.published_sensitive[column]
        return self.dataset.sensitive_codes[column][self._require_source()]

    def cells(self) -> tuple[np.ndarray, np.ndarray, dict[int, np.ndarray]]:
        """The published cells at full precision: intervals ``(lo, hi)`` and, per column
        published as a value set (freeform releases, :mod:`ktype.freeform_release`), its
        ``(n, m)`` membership matrix; none here."""
        return self.lo, self.hi, {}

    def original_X(self) -> np.ndarray:
        """Original leaf ranks in release row order (for verification only)."""
        return self.dataset.X[self._require_source()]

    def _require_source(self) -> np.ndarray:
        if self.source is None:
            raise DataError("This release was read from a published file; its rows are not linked to input rows.")
        return self.source

    # ------------------------------------------------------------------ export
    def to_pandas(self, *, include_suppressed: bool = False) -> pd.DataFrame:
        """The published table with readable labels.

        QI cells read like ``[30-39]``, ``941**``, ``*`` or a hierarchy label. Identifier
        columns are absent. Suppressed rows are left out unless ``include_suppressed`` (then
        every QI cell reads ``*``).
        """
        keep = np.ones(self.n, dtype=bool) if include_suppressed else ~self.suppressed
        ds = self.dataset
        cols: dict[str, Any] = {}
        for j, (c, h) in enumerate(zip(ds.quasi_identifiers, ds.hierarchies)):
            lev = None if self.levels is None else int(self.levels[j])
            labs = np.asarray(h.labels(self.lo[keep, j], self.hi[keep, j], level=lev), dtype=object)
            if include_suppressed:
                labs[self.suppressed[keep]] = SUPPRESSED_LABEL
            cols[c] = labs
        src = self._require_source()[keep]
        for c in ds.sensitive + ds.insensitive:
            if self.published_sensitive is not None and c in self.published_sensitive:  # altered values (Mask)
                cols[c] = np.asarray(ds.sensitive_values[c], dtype=object)[self.published_sensitive[c][keep]]
            else:
                cols[c] = ds.data[c].to_numpy()[src]
        order = [c for c in ds.data.columns if c in cols]
        return pd.DataFrame({c: cols[c] for c in order})

    def save(
        self,
        path: str | Path,
        *,
        include_suppressed: bool = False,
        sep: str | None = None,
        format: str | None = None,  # noqa: A002 - the CLI option's name
        csv_escape: bool = True,
    ) -> Path:
        """Write the published table to CSV or Parquet, atomically.

        The format follows ``format`` (``"csv"``/``"parquet"``) or the extension (``.csv``,
        ``.tsv``, ``.parquet``, ``.pq``; anything else is an error). CSV text cells that a
        spreadsheet would evaluate (``=…``, ``+…``, ``-…``, ``@…``) get a leading ``'``
        unless ``csv_escape=False`` (see :func:`ktype._io.escape_csv_cells`). A failure
        leaves no partial file behind; a symlink, FIFO, device or directory at ``path`` is
        refused.
        """
        df = self.to_pandas(include_suppressed=include_suppressed)
        return write_table(df, path, format=format, sep=sep, csv_escape=csv_escape)

    def warnings(self) -> list[str]:
        """What a person publishing this release must know (e.g. a caller-fixed seed)."""
        from ._validation import RANDOMNESS_CALLER_GENERATOR, RANDOMNESS_CALLER_SEED, REPRODUCIBLE_WARNING

        out = []
        if self.provenance.get("randomness") in (RANDOMNESS_CALLER_SEED, RANDOMNESS_CALLER_GENERATOR):
            out.append(REPRODUCIBLE_WARNING)
        return out

    def summary(self) -> dict[str, Any]:
        """A JSON-able summary: sizes, provenance (never a seed), stored loss values, warnings."""
        return {
            "rows": self.n,
            "suppressed": self.n_suppressed,
            "recoding": self.recoding,
            "levels": None if self.levels is None else [int(x) for x in self.levels],
            "loss": dict(self.loss),
            "provenance": _jsonable(self.provenance),
            "warnings": self.warnings(),
        }

    def __repr__(self) -> str:
        alg = self.provenance.get("algorithm", "?")
        return f"Release({alg}, {self.n} rows, {self.n_suppressed} suppressed, {self.recoding})"


def _sort_codes(values: np.ndarray) -> np.ndarray:
    """Non-negative integer codes that sort like the values (missing values last)."""
    try:
        codes = pd.factorize(values, sort=True)[0]
    except TypeError:  # mixed types: order by text
        codes = pd.factorize(values.astype(str), sort=True)[0]
    return np.where(codes < 0, codes.max(initial=0) + 1, codes)


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, (str, int, float, bool)) or x is None:
        return x
    return str(x)
