"""The :class:`Release`: what an algorithm returns and what gets published.

The files a release is written to and read from are the formats of :mod:`ktype.io`
(:meth:`Release.save` writes through its table; :func:`read_release` is
:func:`ktype.io.formats.read_release`).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._grouping import lexsort_rows, run_starts, sort_order
from .data.dataset import Dataset
from .data.hierarchy import SUPPRESSED_LABEL
from .exceptions import DataError, ImmutableError, InvalidParameterError
from .io._files import check_output_path, output_format
from .io.formats import FORMATS, read_release
from .io.metadata import (
    METADATA_FORMAT,
    METADATA_VERSION,
    PARQUET_KEY,
    SIDECAR_SUFFIX,
    hierarchy_fingerprint,
    sidecar_path,
    versions,
)
from .io.metadata import dtype_name as _dtype_name
from .io.metadata import jsonable as _jsonable
from .plan import qi_labels

__all__ = ["Release", "FrozenDict", "versions", "read_release", "sidecar_path", "hierarchy_fingerprint",
           "METADATA_FORMAT", "METADATA_VERSION", "PARQUET_KEY", "SIDECAR_SUFFIX"]

RECODINGS = ("full-domain", "multidimensional", "local", "freeform")

PERTURBED_WARNING = (
    "This release perturbs published values (some sensitive values differ from their records'): it is NOT a "
    "generalization of the input, so `ktype check` cannot establish that it is a release of this original and "
    "refuses it. Use a generalization algorithm (e.g. hybrid, tailor, mondrian) for a release that can be audited."
)


def protects_nothing_warning(reasons: list[str]) -> str:
    """The warning of a release whose every model is trivial (``["k = 1"]``, ...)."""
    what = " and ".join(reasons)
    verb = "protects" if len(reasons) == 1 else "protect"
    return (f"{what} {verb} nothing: every record may be its own class, with its own sensitive value, so the "
            "quasi-identifiers may be published unchanged and a record unique in the input is re-identified with "
            "certainty. Use k >= 2 (or ℓ >= 2) for a release that protects anyone.")


class FrozenDict(dict):
    """A ``dict`` that refuses every change: the provenance and loss of a :class:`Release`.

    It is still a ``dict`` (JSON, ``==``, ``**`` unpacking and ``dict(...)`` work); nested
    mappings are frozen too. Build a changed copy with ``{**d, key: value}``.
    """

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise ImmutableError("A release is immutable: build a new one with Release.replace(provenance=..., loss=...).")

    __setitem__ = __delitem__ = __ior__ = _refuse  # type: ignore[assignment]
    clear = pop = popitem = setdefault = update = _refuse  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:  # pickle and deepcopy rebuild from a plain dict
        return (FrozenDict, (dict(self),))


def _frozen(value: Any) -> Any:
    """``value`` with every nested mapping a :class:`FrozenDict` (lists stay lists)."""
    if isinstance(value, dict):
        if isinstance(value, FrozenDict):
            return value
        return FrozenDict({k: _frozen(v) for k, v in value.items()})
    if isinstance(value, list):
        return [_frozen(v) for v in value]
    return value


def _read_only(a: np.ndarray | None) -> np.ndarray | None:
    if isinstance(a, np.ndarray) and a.flags.writeable:
        a.flags.writeable = False
    return a


@dataclass(frozen=True)
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
        Algorithm, parameters, models, ``randomness`` (what randomness the output depends
        on: secret OS entropy, a caller's seed or generator — never the seed itself —, or
        none: a deterministic algorithm, a deterministic variant, or a run that drew no
        random number), timings, versions.

    A release is **immutable**: its fields cannot be reassigned, its arrays are read-only
    once built (:meth:`build`, :meth:`~ktype.freeform_release.FreeformRelease.from_cells`),
    and ``provenance``/``loss`` are :class:`FrozenDict`. :meth:`replace` returns a new
    release with other metadata (this is how the registry records its verification).
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
    #: the privacy models the release was verified against (set by the registry)
    models: tuple = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "provenance", _frozen(dict(self.provenance)))
        object.__setattr__(self, "loss", _frozen(dict(self.loss)))
        object.__setattr__(self, "models", tuple(self.models))

    def _set(self, **fields: Any) -> None:
        """Assign fields during construction only (canonical order, before :meth:`_seal`)."""
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    def _array_fields(self) -> list[np.ndarray | None]:
        out = [self.lo, self.hi, self.suppressed, self.source, self.levels]
        if self.published_sensitive is not None:
            out.extend(self.published_sensitive.values())
        return out

    def _seal(self) -> Release:
        """Make the row arrays read-only (the end of every construction path)."""
        for a in self._array_fields():
            _read_only(a)
        if self.published_sensitive is not None and not isinstance(self.published_sensitive, FrozenDict):
            object.__setattr__(self, "published_sensitive", FrozenDict(self.published_sensitive))
        return self

    _METADATA_FIELDS = frozenset({"provenance", "loss", "models"})

    def replace(self, **changes: Any) -> Release:
        """A new release with other ``provenance``, ``loss`` or ``models`` (the rows stay).

        ``provenance``/``loss`` replace the old mappings whole: merge explicitly, e.g.
        ``rel.replace(loss={**rel.loss, "loss_metric": 0.3})``.
        """
        bad = sorted(set(changes) - self._METADATA_FIELDS)
        if bad:
            raise InvalidParameterError(f"Release.replace changes only {sorted(self._METADATA_FIELDS)}; not {bad} "
                            "(the rows of a release are fixed when it is built).")
        return dataclasses.replace(self, **changes)._seal()

    def with_published_sensitive(self, published: dict[str, np.ndarray]) -> Release:
        """A new release whose sensitive columns publish ``published`` (codes, in this
        release's row order) instead of the records' own values, re-sorted canonically:
        the perturbation of :func:`ktype.algorithms.transparent.mask.mask`."""
        rel = dataclasses.replace(self, published_sensitive={c: np.asarray(v) for c, v in published.items()})
        rel._canonicalize(None)
        return rel._seal()

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
        copy: bool = True,
    ) -> Release:
        """Create a release from per-input-row intervals (row ``i`` generalizes input ``i``
        unless ``source`` says otherwise) and put its rows in canonical order.

        ``classes`` (optional, one id per row) is a hint from algorithms that publish whole
        groups with one box: rows with the same id must have identical ``lo``/``hi``/
        ``suppressed``. It only speeds up the canonical sort; the order is the same.
        ``copy=False`` hands ``lo``, ``hi`` and ``source`` over: when the rows are already in
        canonical order the release keeps these arrays (made read-only) instead of copying
        them, so the caller must not keep a reference it writes to.
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
            provenance=_stamped(provenance),
        )
        rel._canonicalize(classes, copy=copy)
        return rel._seal()

    def _canonicalize(self, classes: np.ndarray | None = None, content: np.ndarray | None = None, *,
                      copy: bool = True) -> None:
        """Sort rows by published content (suppressed last), ties by sensitive values.

        ``content`` (optional): a rank of each row's exact published QI content where the
        intervals ``lo``/``hi`` are only a coarser view of it (freeform cells); it follows the
        intervals in the sort key."""
        if content is not None:
            content = np.asarray(content, dtype=np.int64)
        cols: list[np.ndarray]
        run_rank: np.ndarray | None = None
        run_len = np.zeros(0, dtype=np.int64)
        if classes is not None and len(classes):
            # sort the (few) classes by their box, then rows by (class rank, the rest); the
            # work is per run of equal consecutive ids (one run per class when the caller
            # hands the rows grouped, as Mondrian does)
            classes = np.asarray(classes, dtype=np.int64)
            n = len(classes)
            run = np.flatnonzero(np.concatenate(([True], classes[1:] != classes[:-1])))
            run_len = np.diff(np.append(run, n))
            _, first_run, inv = np.unique(classes[run], return_index=True, return_inverse=True)
            first = run[first_run]  # the first row of each class
            # whole rows taken (no strided gathers per column)
            boxes = _box_columns(self.suppressed[first], self.lo.take(first, axis=0), self.hi.take(first, axis=0))
            if content is not None:
                boxes.append(content[first])
            corder = lexsort_rows(boxes)
            # classes with equal boxes (every suppressed class, two clusters generalized alike)
            # share one rank, so their rows interleave by the other columns exactly as without
            # the hint: the order never shows which rows came from one class of the algorithm's
            crank = np.empty(len(first), dtype=np.int64)
            crank[corder] = np.cumsum(run_starts(boxes, corder)) - 1
            run_rank = crank[inv.ravel()]
            cols = []
        else:
            cols = _box_columns(self.suppressed, self.lo, self.hi)
            if content is not None:
                cols.append(content)
        cols += self._tie_columns()
        if run_rank is not None:
            if not cols and bool((run_rank[1:] >= run_rank[:-1]).all()):
                cols = []  # the runs come in rank order and nothing else breaks ties: in order
            else:
                cols.insert(0, np.repeat(run_rank, run_len))
        order = sort_order(cols) if len(self.lo) and cols else None
        if order is None:  # already in canonical order (e.g. Mondrian hands its classes in order)
            self._set(lo=np.array(self.lo, order="C", copy=copy or None), hi=np.array(self.hi, order="C", copy=copy or None),
                      suppressed=self.suppressed.copy(),
                      source=None if self.source is None else np.array(self.source, copy=copy or None),
                      published_sensitive=None if self.published_sensitive is None
                      else {c: np.array(v) for c, v in self.published_sensitive.items()})
            return
        self._set(lo=self.lo.take(order, axis=0), hi=self.hi.take(order, axis=0),
                  suppressed=self.suppressed[order],
                  source=None if self.source is None else self.source[order],
                  published_sensitive=None if self.published_sensitive is None
                  else {c: v[order] for c, v in self.published_sensitive.items()})

    def _tie_columns(self) -> list[np.ndarray]:
        """The canonical order's columns after the published content: the sensitive values,
        then (when the rows' sources are known) the insensitive values."""
        cols = [self.sensitive_codes(c) for c in self.dataset.sensitive]
        if self.source is not None:
            cols += [_sort_codes(self.dataset.data[c].to_numpy()[self.source]) for c in self.dataset.insensitive]
        return cols

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
        # the labels of the cells (ktype.plan.qi_labels: the Dask writer labels through it too)
        labels = qi_labels(ds.hierarchies, self.lo[keep], self.hi[keep], self.levels)
        for c, labels_j in zip(ds.quasi_identifiers, labels):
            labs = np.asarray(labels_j, dtype=object)
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

    def metadata(self, *, include_suppressed: bool = False) -> dict[str, Any]:
        """Machine-readable description of the published file (see docs/guide.md, "Release files").

        Column schema, types and roles; recoding kind; the models the release claims with
        their scope (``"class"`` or ``"matches"``); input, suppressed and published counts;
        hierarchy fingerprints; algorithm, parameters and how it was randomized; ktype
        version. Never a seed, never an identifier column, never a data value.
        """
        ds = self.dataset
        df_cols = self._published_columns()
        columns = []
        for c in df_cols:
            entry: dict[str, Any] = {"name": c, "role": ds.roles.get(c, "insensitive") if hasattr(ds, "roles") else None}
            if c in ds.quasi_identifiers:
                h = ds.hierarchy(c)
                entry["type"] = "generalized"
                entry["value_type"] = "numeric" if getattr(h, "numeric", False) else "categorical"
            else:
                entry["type"] = _dtype_name(ds.data[c])
            columns.append(entry)
        # each model names itself (PrivacyModel.metadata_record): the release layer imports no model
        models = [_jsonable(m.metadata_record(self.recoding)) for m in self.models]
        prov = self.provenance
        published = self.n if include_suppressed else self.n - self.n_suppressed
        return {
            "format": METADATA_FORMAT,
            "format_version": METADATA_VERSION,
            "ktype_version": prov.get("versions", versions()).get("ktype"),
            "created": prov.get("created"),
            "columns": columns,
            "recoding": self.recoding,
            "levels": None if self.levels is None else [int(x) for x in self.levels],
            "models": models,
            "verified": bool(prov.get("verified", False)),
            "input_records": int(ds.n),
            "suppressed": self.n_suppressed,
            "published_rows": int(published),
            "suppressed_rows_published": bool(include_suppressed and self.n_suppressed),
            "hierarchies": {c: {"kind": h.kind, "fingerprint": hierarchy_fingerprint(h)}
                            for c, h in zip(ds.quasi_identifiers, ds.hierarchies)},
            "perturbed": self.perturbed,
            "algorithm": prov.get("algorithm"),
            "parameters": _jsonable(prov.get("parameters", {})),
            "randomness": prov.get("randomness"),
        }

    def _published_columns(self) -> list[str]:
        ds = self.dataset
        pub = set(ds.quasi_identifiers) | set(ds.sensitive) | set(ds.insensitive)
        return [c for c in ds.data.columns if c in pub]

    def save(
        self,
        path: str | Path,
        *,
        include_suppressed: bool = False,
        sep: str | None = None,
        format: str | None = None,  # noqa: A002 - the CLI option's name
        csv_escape: bool = True,
    ) -> Path:
        """Write the published table to CSV or Parquet, atomically, with its metadata.

        The format follows ``format`` (``"csv"``/``"parquet"``) or the extension (``.csv``,
        ``.tsv``, ``.parquet``, ``.pq``; anything else is an error). CSV text cells that a
        spreadsheet would evaluate (``=…``, ``+…``, ``-…``, ``@…``) get a leading ``'``
        unless ``csv_escape=False`` (see :func:`ktype.io.escape_csv_cells`). A failure
        leaves no partial file behind.

        Parquet files carry the metadata (:meth:`metadata`) under the key ``ktype.release``
        of the file's key-value metadata; a CSV file gets a sidecar ``NAME.ktype.json``
        holding the metadata and the SHA-256 of the CSV bytes (so that a sidecar that does
        not belong to the file is detected), written after the CSV in the same operation.

        Before the file is put in place it is **read back and compared** with the published
        table (:func:`ktype.io._readback.read_back_check`: same columns, same number of rows, same
        cells). A file that does not read back as the verified release raises
        :class:`~ktype.exceptions.VerificationError` and is discarded, leaving no file (and
        any earlier file at ``path`` untouched): a saved file is the release that was verified.

        The path is checked like the command line's ``--output``
        (:func:`ktype.io._files.check_output_path`): the file the dataset was read from
        (``Dataset.source_files``: the table and hierarchy CSVs, when the dataset came from
        files), a symbolic link, a FIFO, a device or a directory is refused with
        :class:`~ktype.exceptions.OutputPathError`; an existing regular file is replaced.

        ``include_suppressed=True`` also writes the suppressed records as rows whose QI
        cells read ``*``: they are then *published rows* (with their sensitive values), and
        ``ktype check`` counts them as such.
        """
        path = Path(path)
        fmt = output_format(path, format)
        # the command line's rules (ktype.io._files.check_output_path): never the input table or a
        # hierarchy file the release was made from, never through a link, FIFO or device;
        # an existing regular file is replaced and missing directories are created
        inputs = getattr(self.dataset, "source_files", ())
        check_output_path(path, what="release", inputs=inputs, force=True, mkdirs=True)
        df = self.to_pandas(include_suppressed=include_suppressed)
        meta = self.metadata(include_suppressed=include_suppressed)
        if fmt == "parquet":
            return FORMATS["parquet"].write(path, df, meta)
        return FORMATS["csv"].write(path, df, meta, sep=sep, csv_escape=csv_escape, inputs=inputs)


    def report(self, path: str | Path, **options: Any) -> Path:
        """Write the self-contained HTML report of this release to ``path`` (``.html``):
        the job, the verification verdict, re-identification risk before and after,
        information loss per attribute, marginals and, for full-domain searches, the
        lattice. Options as for :func:`ktype.report.write_report`; needs matplotlib
        (``pip install 'ktype[report]'``), imported only here. Written atomically."""
        from .report import write_report  # the interfaces layer, lazily (docs/design/layers.md: the one exception)

        return write_report(self, path, **options)

    def warnings(self) -> list[str]:
        """What a person publishing this release must know: a caller-fixed seed, a
        deterministic variant, perturbed values, or models that protect nothing (k = 1)."""
        from ._validation import (
            DETERMINISTIC_WARNING,
            RANDOMNESS_CALLER_GENERATOR,
            RANDOMNESS_CALLER_SEED,
            RANDOMNESS_DETERMINISTIC_VARIANT,
            REPRODUCIBLE_WARNING,
        )

        out = []
        how = self.provenance.get("randomness")
        if how in (RANDOMNESS_CALLER_SEED, RANDOMNESS_CALLER_GENERATOR):
            out.append(REPRODUCIBLE_WARNING)
        if how == RANDOMNESS_DETERMINISTIC_VARIANT:
            out.append(DETERMINISTIC_WARNING.format(algorithm=self.provenance.get("algorithm", "the algorithm")))
        if self.perturbed:
            out.append(PERTURBED_WARNING)
        trivial = [m.protects_nothing() for m in self.models]
        if trivial and all(trivial):
            out.append(protects_nothing_warning(list(dict.fromkeys(str(t) for t in trivial))))
        return out

    @property
    def perturbed(self) -> bool:
        """Whether some published sensitive value differs from its record's (``mask``): the
        release is then no generalization of its input, and ``ktype check`` refuses it."""
        if self.published_sensitive is None or self.source is None:
            return False
        ds = self.dataset
        return any(bool((self.published_sensitive[c] != ds.sensitive_codes[c][self.source]).any())
                   for c in self.published_sensitive)

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


def _stamped(provenance: dict[str, Any] | None) -> dict[str, Any]:
    """The provenance of a new release: the caller's, with its creation time and versions."""
    prov = dict(provenance or {})
    prov.setdefault("created", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    prov.setdefault("versions", versions())
    return prov


def _box_columns(suppressed: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> list[np.ndarray]:
    """The canonical order's leading columns: suppressed last, then each column's ``lo``, ``hi``."""
    cols = [suppressed.astype(np.int8)]
    for j in range(lo.shape[1]):  # loop over columns
        cols += [lo[:, j], hi[:, j]]
    return cols


def _sort_codes(values: np.ndarray) -> np.ndarray:
    """Non-negative integer codes that sort like the values (missing values last)."""
    if values.dtype.kind in "iub":  # no missing values: ranks among the distinct values (a sort,
        # 5-10x faster than factorize(sort=True) on many distinct integers, e.g. an id column)
        return np.unique(values, return_inverse=True)[1].reshape(-1).astype(np.int64)
    try:
        codes = pd.factorize(values, sort=True)[0]
    except TypeError:  # mixed types: order by text
        codes = pd.factorize(values.astype(str), sort=True)[0]
    return np.where(codes < 0, codes.max(initial=0) + 1, codes)
