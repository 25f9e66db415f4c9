"""The :class:`Release`: what an algorithm returns and what gets published.

Length: the immutable release value (construction in canonical order, read-only arrays and
metadata, ``replace``) and its file format (metadata, atomic CSV/Parquet writing with the
read-back check, reading a published file back) are one contract; they are kept together so
that what is written is exactly what the value describes.
"""

from __future__ import annotations

import dataclasses
import platform
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._grouping import lexsort_rows
from ._io import atomic_write, check_output_path, csv_text, escape_csv_cells, output_format, read_back_check
from .data.dataset import Dataset
from .data.hierarchy import SUPPRESSED_LABEL
from .exceptions import DataError, ImmutableError, InvalidParameterError, StaleMetadataError

__all__ = ["Release", "FrozenDict", "versions", "read_release", "sidecar_path", "hierarchy_fingerprint"]

RECODINGS = ("full-domain", "multidimensional", "local", "freeform")

#: release-file metadata: format name, version, Parquet key and CSV sidecar suffix
METADATA_FORMAT = "ktype-release"
METADATA_VERSION = 1
PARQUET_KEY = b"ktype.release"
SIDECAR_SUFFIX = ".ktype.json"

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


def sidecar_path(path: str | Path) -> Path:
    """The metadata sidecar of a CSV release: ``NAME.ktype.json`` beside ``NAME.csv``."""
    path = Path(path)
    return path.with_name(path.stem + SIDECAR_SUFFIX)


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

    from . import __version__

    out = {"ktype": __version__, "python": platform.python_version(), "numpy": numpy.__version__, "pandas": pandas.__version__}
    try:
        import numba

        out["numba"] = numba.__version__
    except ImportError:  # pragma: no cover
        pass
    return out


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
            provenance=_stamped(provenance),
        )
        rel._canonicalize(classes)
        return rel._seal()

    def _canonicalize(self, classes: np.ndarray | None = None, content: np.ndarray | None = None) -> None:
        """Sort rows by published content (suppressed last), ties by sensitive values.

        ``content`` (optional): a rank of each row's exact published QI content where the
        intervals ``lo``/``hi`` are only a coarser view of it (freeform cells); it follows the
        intervals in the sort key."""
        box_cols: list[np.ndarray] = [self.suppressed.astype(np.int8)]
        for j in range(self.r):
            box_cols.append(self.lo[:, j])
            box_cols.append(self.hi[:, j])
        if content is not None:
            box_cols.append(np.asarray(content, dtype=np.int64))
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
            boxes = [c[first] for c in box_cols]
            corder = lexsort_rows(boxes)
            # classes with equal boxes (every suppressed class, two clusters generalized alike)
            # share one rank, so their rows interleave by the other columns exactly as without
            # the hint: the order never shows which rows came from one class of the algorithm's
            changed = np.zeros(len(corder), dtype=bool)
            changed[:1] = True
            for key in boxes:
                sk = key[corder]
                changed[1:] |= sk[1:] != sk[:-1]
            crank = np.empty(len(first), dtype=np.int64)
            crank[corder] = np.cumsum(changed) - 1
            cols = [crank[inv.ravel()]]
        else:
            cols = box_cols
        for c in self.dataset.sensitive:
            cols.append(self.sensitive_codes(c))
        if self.source is not None:
            for c in self.dataset.insensitive:
                cols.append(_sort_codes(self.dataset.data[c].to_numpy()[self.source]))
        order = lexsort_rows(cols) if len(self.lo) else np.arange(0)
        self._set(lo=np.ascontiguousarray(self.lo[order]), hi=np.ascontiguousarray(self.hi[order]),
                  suppressed=self.suppressed[order],
                  source=None if self.source is None else self.source[order],
                  published_sensitive=None if self.published_sensitive is None
                  else {c: v[order] for c, v in self.published_sensitive.items()})

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
        unless ``csv_escape=False`` (see :func:`ktype._io.escape_csv_cells`). A failure
        leaves no partial file behind.

        Parquet files carry the metadata (:meth:`metadata`) under the key ``ktype.release``
        of the file's key-value metadata; a CSV file gets a sidecar ``NAME.ktype.json``
        holding the metadata and the SHA-256 of the CSV bytes (so that a sidecar that does
        not belong to the file is detected), written after the CSV in the same operation.

        Before the file is put in place it is **read back and compared** with the published
        table (:func:`ktype._io.read_back_check`: same columns, same number of rows, same
        cells). A file that does not read back as the verified release raises
        :class:`~ktype.exceptions.VerificationError` and is discarded, leaving no file (and
        any earlier file at ``path`` untouched): a saved file is the release that was verified.

        The path is checked like the command line's ``--output``
        (:func:`ktype._io.check_output_path`): the file the dataset was read from
        (``Dataset.source_files``: the table and hierarchy CSVs, when the dataset came from
        files), a symbolic link, a FIFO, a device or a directory is refused with
        :class:`~ktype.exceptions.OutputPathError`; an existing regular file is replaced.

        ``include_suppressed=True`` also writes the suppressed records as rows whose QI
        cells read ``*``: they are then *published rows* (with their sensitive values), and
        ``ktype check`` counts them as such.
        """
        import hashlib
        import json

        path = Path(path)
        fmt = output_format(path, format)
        # the command line's rules (ktype._io.check_output_path): never the input table or a
        # hierarchy file the release was made from, never through a link, FIFO or device;
        # an existing regular file is replaced and missing directories are created
        inputs = getattr(self.dataset, "source_files", ())
        check_output_path(path, what="release", inputs=inputs, force=True, mkdirs=True)
        if fmt == "csv":
            check_output_path(sidecar_path(path), what="metadata sidecar", inputs=inputs, others={"release": path},
                              force=True, mkdirs=True)
        df = self.to_pandas(include_suppressed=include_suppressed)
        meta = self.metadata(include_suppressed=include_suppressed)
        if fmt == "parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq

            def write_parquet(p: Path) -> None:
                table = pa.Table.from_pandas(df, preserve_index=False)
                kv = dict(table.schema.metadata or {})
                kv[PARQUET_KEY] = json.dumps(meta).encode("utf-8")
                pq.write_table(table.replace_schema_metadata(kv), p)

            atomic_write(path, write_parquet, check=read_back_check(df, fmt="parquet", target=path))
        else:
            if sep is None:
                sep = "\t" if path.suffix.lower() == ".tsv" else ","
            table = escape_csv_cells(df) if csv_escape else df
            data = csv_text(table, sep=sep, csv_escape=False).encode("utf-8")
            meta["file"] = {"name": path.name, "sha256": hashlib.sha256(data).hexdigest(), "sep": sep,
                            "csv_escape": bool(csv_escape)}
            side = sidecar_path(path)

            def write_both(tmp_side: Path) -> None:
                Path(tmp_side).write_text(json.dumps(meta, indent=2), encoding="utf-8")
                def write_csv(p: Path) -> None:
                    Path(p).write_bytes(data)

                # the CSV is read back and compared before it lands; then its sidecar
                atomic_write(path, write_csv, check=read_back_check(table, fmt="csv", sep=sep, target=path))

            atomic_write(side, write_both)
        return path


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


def read_release(
    path: str | Path, *, sep: str | None = None, csv_escape: bool | None = None
) -> tuple[pd.DataFrame, dict[str, Any] | None]:
    """Read a published release file and its metadata (``None`` when it has none).

    Parquet: the ``ktype.release`` key-value metadata. CSV: the sidecar ``NAME.ktype.json``;
    a sidecar whose recorded SHA-256 differs from the file's bytes raises
    :class:`~ktype.exceptions.StaleMetadataError` (a :class:`~ktype.exceptions.DataError`:
    the file was edited, or the sidecar belongs to another file). The SHA-256 is unkeyed: it
    ties a sidecar to its file, and anyone who edits the file can recompute it, so it does
    not show who wrote either. CSV cells escaped against spreadsheet formulas are unescaped
    (``csv_escape``: default from the sidecar, else True, as :meth:`Release.save` writes).
    """
    import hashlib

    from .data.dataset import read_table

    path = Path(path)
    if not path.exists():
        raise DataError(f"Release file not found: {path}")
    if path.is_dir():  # a partitioned Parquet release (ktype.dask.write_release; no Dask needed to read it)
        return _read_partitioned(path)
    meta: dict[str, Any] | None = None
    if path.suffix.lower() in (".parquet", ".pq"):
        import pyarrow.parquet as pq

        try:
            raw = (pq.read_schema(path).metadata or {}).get(PARQUET_KEY)
        except Exception as e:  # noqa: BLE001 - unreadable file: a user error
            raise DataError(f"Cannot read {path}: {e}") from None
        if raw is not None:
            meta = _parse_meta(raw.decode("utf-8"), path)
        df = read_table(path)
    else:
        side = sidecar_path(path)
        if side.exists():
            meta = _parse_meta(side.read_text(encoding="utf-8"), side)
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
            from ._io import unescape_csv_cells

            df = unescape_csv_cells(df)
    return df, meta


def _read_partitioned(path: Path) -> tuple[pd.DataFrame, dict[str, Any] | None]:
    """A partitioned release (:func:`ktype.dask.write_release`) as :func:`read_release` returns
    a file: the rows of its non-empty Parquet files (in file-name order) and its
    ``_ktype_release.json``."""
    import pyarrow.parquet as pq

    from .data.dataset import read_table

    files = sorted(f for f in path.iterdir() if f.suffix.lower() in (".parquet", ".pq") and not f.name.startswith(("_", ".")))
    if not files:
        raise DataError(f"{path} is a directory without Parquet files; give a release file or a partitioned release.")
    side = path / "_ktype_release.json"
    meta = _parse_meta(side.read_text(encoding="utf-8"), side) if side.exists() else None
    full = [f for f in files if pq.ParquetFile(f).metadata.num_rows] or files[:1]  # a partition may be empty
    return pd.concat([read_table(f) for f in full], ignore_index=True), meta


def _parse_meta(text: str, where: Path) -> dict[str, Any]:
    import json

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


def _dtype_name(values: pd.Series) -> str:
    if pd.api.types.is_bool_dtype(values):
        return "boolean"
    if pd.api.types.is_integer_dtype(values):
        return "integer"
    if pd.api.types.is_float_dtype(values):
        return "float"
    if pd.api.types.is_datetime64_any_dtype(values):
        return "datetime"
    return "string"


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
