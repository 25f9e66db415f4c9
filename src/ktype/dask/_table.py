"""A partitioned table encoded like a :class:`~ktype.Dataset`, its releases, and the
distributed checkers, measures and risk summaries over them.

Encoding (one pass): the distinct values of every quasi-identifier and sensitive column
are collected with their counts (one distributed pass), a small in-memory ``Dataset`` built on them gives the
hierarchies and sensitive domains exactly as ``Dataset`` builds them from the whole table
(hierarchies depend only on the set of values), and every partition is then encoded with
those hierarchies (``Hierarchy.encode``, ``map_partitions``): the same leaf ranks and
sensitive codes as in memory.

Checkers and measures reduce the encoded table with group-bys; each privacy model's rule
is evaluated by the model's own ``class_verdicts`` / ``class_values`` on per-class sizes and
sensitive histograms, and each measure by the in-memory per-cell function on the distinct
``(value, cell)`` pairs of each column, weighted by their counts. Nothing is re-implemented.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..data.dataset import Dataset, HierarchySpec, _is_date_spec, _missing_policies
from ..data.hierarchy import MISSING_LABEL, value_keys
from ..exceptions import DataError, InvalidParameterError, UnsupportedModelError
from ..models._base import ClassModel, PrivacyModel
from ..plan import qi_labels
from ._engine import COUNT, DaskEngine
from ._keys import FORCED, SUP, _CellTriples, _ClassKeys, hicol, locol, scol, xcol

__all__ = ["FORCED", "without_forced", "DaskTable", "DaskRelease", "from_dask", "check", "measures", "class_size_stats", "ModelSummary"]

@dataclass
class DaskTable:
    """A partitioned table with roles, hierarchies and encoded quasi-identifiers.

    Attributes
    ----------
    frame : dask.dataframe.DataFrame
        The input columns plus ``__x{j}`` (leaf rank of QI ``j``) and ``__s{i}`` (code of
        sensitive column ``i``), int32, computed lazily per partition.
    proxy : Dataset
        An in-memory ``Dataset`` over the distinct values only: hierarchies, sensitive
        domains, roles. Its rows are not the table's.
    n : int
        Number of records.
    leaf_counts : list of ndarray
        Records per leaf of each QI's hierarchy.
    sensitive_counts : dict
        Records per value of each sensitive column.
    n_forced : int
        Records with a missing value under the ``suppress`` policy (column ``__forced``):
        suppressed in every release, as :class:`ktype.Dataset` does.
    """

    engine: DaskEngine
    frame: Any
    proxy: Dataset
    n: int
    leaf_counts: list[np.ndarray]
    sensitive_counts: dict[str, np.ndarray]
    columns: list[str]
    n_forced: int = 0

    @property
    def r(self) -> int:
        return len(self.proxy.quasi_identifiers)

    @property
    def quasi_identifiers(self) -> list[str]:
        return list(self.proxy.quasi_identifiers)

    def sensitive_index(self, column: str) -> int:
        return self.proxy.sensitive.index(column)

    def __repr__(self) -> str:
        return (f"DaskTable(n={self.n}, partitions={self.frame.npartitions}, quasi_identifiers={self.quasi_identifiers}, "
                f"sensitive={self.proxy.sensitive})")


@dataclass
class DaskRelease:
    """A generalization of a :class:`DaskTable`: per row the published intervals
    ``__lo{j}``/``__hi{j}`` of leaf ranks and ``__sup`` (suppressed), lazily per partition.
    Suppressed rows hold the whole domain, as in :class:`~ktype.Release`."""

    table: DaskTable
    frame: Any
    recoding: str
    n_suppressed: int
    levels: np.ndarray | None = None
    models: tuple = ()
    provenance: dict[str, Any] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return self.table.n

    def to_pandas(self) -> pd.DataFrame:
        """The published table collected to the driver (suppressed rows left out), with the
        labels :meth:`ktype.Release.to_pandas` uses. For tests and small tables."""
        pub = self.table.engine.filter(self.frame, SUP)
        return self.table.engine._compute(published_frame(self, pub))[0].reset_index(drop=True)


# ---------------------------------------------------------------------------------- encoding
def from_dask(
    data: Any,
    *,
    quasi_identifiers: Sequence[str],
    sensitive: Sequence[str] = (),
    identifiers: Sequence[str] = (),
    insensitive: Sequence[str] | None = None,
    hierarchies: Mapping[str, HierarchySpec] | None = None,
    name: str | None = None,
    types: Mapping[str, str] | Sequence[str] | str | None = None,
    missing: Mapping[str, str] | str | None = None,
    scheduler: Any = None,
) -> DaskTable:
    """Encode a ``dask.dataframe.DataFrame`` or a Parquet dataset path for ktype.

    Roles, hierarchies, declared ``types`` (``{"zip": "text", "admission": "date"}``) and
    the ``missing`` value policies (``"error"``, ``"category"``, ``"suppress"``) are given
    as for :class:`ktype.Dataset`, with the same meaning: the types are applied to every
    partition, and a missing value becomes the ``(missing)`` leaf of its column's hierarchy
    (``category``) or also suppresses its record in every release (``suppress``).

    Raises
    ------
    DataError, HierarchyError, UnassignedColumnsError
        As :class:`ktype.Dataset` for the same table.
    """
    from ..data.types import normalize_types

    engine = DaskEngine(scheduler)
    frame = engine.read(data)
    cols = engine.columns(frame)
    qis = [quasi_identifiers] if isinstance(quasi_identifiers, str) else [str(c) for c in quasi_identifiers]
    sens = [sensitive] if isinstance(sensitive, str) else [str(c) for c in sensitive]
    declared = normalize_types(types)
    for c, spec in (hierarchies or {}).items():  # a date hierarchy implies the date type
        if c in cols and c not in declared and _is_date_spec(spec) and not pd.api.types.is_datetime64_any_dtype(frame._meta[c]):
            declared[c] = "date"
    if declared:
        for c in declared:
            if c not in cols:
                raise DataError(f"A type is declared for {c!r}, which is not a column of the table "
                                f"(columns: {', '.join(map(repr, cols))}).")
        typer = _Typer(declared)
        frame = engine.map_partitions(frame, typer, meta=typer(frame._meta))
    coded = [c for c in qis + sens if c in cols]
    policies = _missing_policies(missing, [c for c in qis + sens])
    value_counts = engine.value_counts(frame, coded)  # the one pass over the data that encoding needs
    distinct = {c: pd.Series(vc.index, name=c) for c, vc in value_counts.items()}
    if any(len(v) == 0 for v in distinct.values()):  # no value in a coded column: no rows
        raise DataError("The table is empty; there is nothing to anonymize.")
    with_missing = []
    for c, vals in distinct.items():
        if vals.isna().any():
            if policies.get(c, "error") == "error":
                raise DataError(
                    f"Column {c!r} has missing values; drop or impute them, or choose a policy: "
                    f"missing={{{c!r}: 'category'}} or 'suppress' (command line: --missing {c}=category)."
                )
            with_missing.append(c)
        elif str(vals.dtype) == "Int64":
            distinct[c] = vals.astype("int64")
    size = max([len(v) for v in distinct.values()] + [1])
    head = engine.head(frame, 1)
    proxy_cols: dict[str, Any] = {}
    for c in cols:
        if c in distinct:
            v = distinct[c]
            proxy_cols[c] = v.iloc[np.arange(size) % len(v)].reset_index(drop=True)
        else:  # identifiers / insensitive columns: only their role matters here
            proxy_cols[c] = head[c].iloc[np.zeros(size, dtype=np.int64)].reset_index(drop=True) if len(head) else \
                pd.Series([None] * size, dtype=object)
    proxy = Dataset(pd.DataFrame(proxy_cols, columns=cols), quasi_identifiers=qis, sensitive=sens,
                    identifiers=identifiers, insensitive=insensitive, hierarchies=hierarchies, name=name or "dask table",
                    missing={c: policies[c] for c in with_missing} or None)
    proxy.forced_suppression = np.zeros(proxy.n, dtype=bool)  # the proxy's rows are not the table's
    forced_cols = [c for c in with_missing if policies[c] == "suppress"]
    fn = _Encoder(proxy, with_missing, forced_cols)
    encoded = engine.map_partitions(frame, fn, meta=fn(frame._meta))
    table = _counted_from_values(engine, encoded, proxy, cols, fn, value_counts)
    if forced_cols:
        table.n_forced = engine.sums(encoded, [FORCED])[FORCED]
    return table


def _counted(engine: DaskEngine, encoded: Any, proxy: Dataset, cols: list[str]) -> DaskTable:
    """The table over ``encoded`` with its record, leaf and sensitive counts (one pass)."""
    parts = engine.group_counts(encoded, [[xcol(j)] for j in range(proxy.r)] + [[scol(i)] for i in range(len(proxy.sensitive))])
    leaf_counts = []
    for j, (t, h) in enumerate(zip(parts[: proxy.r], proxy.hierarchies)):
        leaf_counts.append(np.bincount(t[xcol(j)].to_numpy(np.int64), t[COUNT].to_numpy(np.int64), h.size).astype(np.int64))
    n = int(leaf_counts[0].sum())
    sens_counts = {}
    for i, c in enumerate(proxy.sensitive):
        t = parts[proxy.r + i]
        sens_counts[c] = np.bincount(t[scol(i)].to_numpy(np.int64), t[COUNT].to_numpy(np.int64),
                                     len(proxy.sensitive_values[c])).astype(np.int64)
    table = DaskTable(engine, encoded, proxy, n, leaf_counts, sens_counts, cols)
    seed_caches(proxy, table)
    return table


def _counted_from_values(engine: DaskEngine, encoded: Any, proxy: Dataset, cols: list[str], enc: _Encoder,
                         value_counts: Mapping[str, pd.Series]) -> DaskTable:
    """The table over ``encoded`` with its record, leaf and sensitive counts, derived from the
    counts of the raw values (each value's leaf rank or sensitive code is a function of the
    value, so the counts per leaf are the counts per value summed by leaf): no pass over the
    encoded table."""
    leaf_counts = []
    for c, h in zip(proxy.quasi_identifiers, proxy.hierarchies):
        vc = value_counts[c]
        ranks = h.encode(enc.values(c, pd.Series(vc.index))).astype(np.int64)
        leaf_counts.append(np.bincount(ranks, vc.to_numpy(np.int64), h.size).astype(np.int64))
    sens_counts = {}
    for c in proxy.sensitive:
        vc = value_counts[c]
        codes = enc.sensitive_codes(c, enc.values(c, pd.Series(vc.index))).astype(np.int64)
        sens_counts[c] = np.bincount(codes, vc.to_numpy(np.int64), len(proxy.sensitive_values[c])).astype(np.int64)
    n = int(leaf_counts[0].sum())
    table = DaskTable(engine, encoded, proxy, n, leaf_counts, sens_counts, cols)
    seed_caches(proxy, table)
    return table


def without_forced(table: DaskTable) -> DaskTable:
    """The records a ``suppress`` policy leaves to the algorithm, with their own counts (as
    :meth:`ktype.Dataset.subset` gives the in-memory algorithm, whose entropy measures and
    t-closeness then read the counts of those records)."""
    proxy = object.__new__(Dataset)
    proxy.__dict__.update(table.proxy.__dict__)
    frame = table.engine.filter(table.frame, FORCED)
    if table.n == table.n_forced:
        from ..exceptions import InfeasibleError

        raise InfeasibleError("Every record has a missing value under the 'suppress' policy; nothing is left to release.")
    return _counted(table.engine, frame, proxy, table.columns)


class _Typer:
    """Partition -> the declared column types (:func:`ktype.data.types.apply_types`); an
    ``int`` column is the nullable ``Int64`` in every partition (a partition with a missing
    value would otherwise differ from one without)."""

    def __init__(self, types: dict[str, str]) -> None:
        self.types = types

    def __call__(self, part: pd.DataFrame) -> pd.DataFrame:
        from ..data.types import apply_types

        out = apply_types(part, self.types)
        for c, kind in self.types.items():
            if kind == "int":
                out[c] = out[c].astype("Int64")
        return out


class _Encoder:
    """Partition -> the same columns plus leaf ranks and sensitive codes (picklable)."""

    def __init__(self, proxy: Dataset, with_missing: Sequence[str] = (), forced: Sequence[str] = ()) -> None:
        self.with_missing = set(with_missing)
        self.forced = list(forced)
        self.qis = list(proxy.quasi_identifiers)
        self.hierarchies = list(proxy.hierarchies)
        self.sensitive = list(proxy.sensitive)
        self.s_hier = dict(proxy.sensitive_hierarchies)
        self.s_keys = {c: pd.Index(value_keys(proxy.sensitive_values[c])) for c in proxy.sensitive}

    def values(self, c: str, s: pd.Series) -> pd.Series:
        """A column as the in-memory ``Dataset`` holds it: missing cells as ``(missing)``
        when the column has a policy for them, ``Int64`` without missing cells as int64."""
        if c in self.with_missing:
            return s.astype(object).where(~s.isna(), MISSING_LABEL)
        if str(s.dtype) == "Int64":
            return s.astype("int64")
        return s

    def __call__(self, part: pd.DataFrame) -> pd.DataFrame:
        out = part.copy()
        for j, (c, h) in enumerate(zip(self.qis, self.hierarchies)):
            out[xcol(j)] = h.encode(self.values(c, part[c])).astype(np.int32) if len(part) else np.zeros(0, dtype=np.int32)
        for i, c in enumerate(self.sensitive):
            out[scol(i)] = self.sensitive_codes(c, self.values(c, part[c]))
        if self.forced:
            out[FORCED] = part[self.forced].isna().any(axis=1).to_numpy(bool) if len(part) else np.zeros(0, dtype=bool)
        return out

    def sensitive_codes(self, c: str, values: pd.Series) -> np.ndarray:
        if not len(values):
            return np.zeros(0, dtype=np.int32)
        if c in self.s_hier:
            return self.s_hier[c].encode(values).astype(np.int32)
        fc, uniq = pd.factorize(values)
        codes = self.s_keys[c].get_indexer(value_keys(uniq))
        if (codes < 0).any():
            raise DataError(f"Sensitive column {c!r} holds a value that is not in its domain: {uniq[codes < 0][0]!r}.")
        return codes[fc].astype(np.int32)


def seed_caches(proxy: Dataset, table: DaskTable) -> None:
    """Give the proxy the record counts of the whole table where in-memory code reads them
    from a dataset's rows: the leaf counts of the entropy measures (``column_stats``) and the
    sensitive distribution ``Q`` of t-closeness (``table_distribution``). Both are caches
    keyed by the dataset object, holding exactly these counts for an in-memory dataset."""
    from ..measures import _base as mbase
    from ..models import tcloseness

    st = mbase._ColumnStats()
    for cnt in table.leaf_counts:
        c = cnt.astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            nlogn = np.where(c > 0, c * np.log2(np.where(c > 0, c, 1.0)), 0.0)
        st.counts.append(c)
        st.count_cum.append(np.concatenate([[0.0], np.cumsum(c)]))
        st.nlogn_cum.append(np.concatenate([[0.0], np.cumsum(nlogn)]))
    mbase._STATS_CACHE[proxy] = (proxy.X, st)
    tcloseness._Q_CACHE[proxy] = {c: cnt / table.n for c, cnt in table.sensitive_counts.items()}


def identity(table: DaskTable) -> DaskRelease:
    """The table as a release (every value published as it is): for checking the input."""
    r = table.r

    def fn(part: pd.DataFrame) -> pd.DataFrame:
        out = part.copy()
        for j in range(r):
            out[locol(j)] = part[xcol(j)]
            out[hicol(j)] = part[xcol(j)]
        out[SUP] = np.zeros(len(part), dtype=bool)
        return out

    frame = table.engine.map_partitions(table.frame, fn, meta=fn(table.frame._meta))
    return DaskRelease(table, frame, "full-domain", 0, levels=np.zeros(r, dtype=np.int64))


def _release(obj: DaskTable | DaskRelease) -> DaskRelease:
    if isinstance(obj, DaskRelease):
        return obj
    if isinstance(obj, DaskTable):
        return identity(obj)
    raise InvalidParameterError(f"Expected a ktype.dask DaskTable or DaskRelease; got {type(obj).__name__}.")


# ---------------------------------------------------------------------------------- checking
@dataclass(frozen=True)
class ModelSummary:
    """Verdict of one class model on a distributed release: ``summary`` has the keys of the
    in-memory checker's class-scope summary (classes, smallest_class, failing_classes,
    failing_records, suppressed and the model's worst score)."""

    model: str
    satisfied: bool
    summary: dict[str, Any]

    def __bool__(self) -> bool:
        return self.satisfied


def class_models(models: PrivacyModel | Sequence[PrivacyModel]) -> tuple[ClassModel, ...]:
    given = (models,) if isinstance(models, PrivacyModel) else tuple(models)
    if not given:
        raise InvalidParameterError("Give at least one privacy model (e.g. KAnonymity(5)).")
    ms: list[ClassModel] = []
    for m in given:
        if not isinstance(m, ClassModel) or getattr(m, "graph_scope", False) or getattr(m, "scope", "auto") == "matches":
            raise UnsupportedModelError(
                f"ktype.dask checks models per equivalence class; {m} is not one (use k-anonymity, ℓ-diversity, "
                "p-sensitivity or t-closeness in class scope)."
            )
        ms.append(m)
    return tuple(ms)


def class_summaries(engine: DaskEngine, frame: Any, keys: Sequence[str], codes: Mapping[str, str],
                    models: tuple[ClassModel, ...], proxy: Dataset, suppressed: int) -> list[ModelSummary]:
    """Evaluate each model per class of ``frame`` (published rows; a class = equal ``keys``).

    ``codes`` maps a sensitive column to the frame column holding its codes. The per-class
    sizes and histograms are built by the engine and streamed to the driver one partition at
    a time (all rows of a class in one partition); the rule is the model's ``class_verdicts``.
    """
    keys = list(keys)
    acc = [_Acc() for _ in models]
    by_col: dict[str | None, list[int]] = {}
    for i, m in enumerate(models):
        by_col.setdefault(m.sensitive_name(proxy), []).append(i)
    for col, idx in by_col.items():
        by = keys + ([codes[col]] if col is not None else [])
        V = len(proxy.sensitive_values[col]) if col is not None else 0
        for part in engine.grouped_partitions(frame, by, keys):
            if not len(part):
                continue
            ids = part.groupby(keys, sort=False).ngroup().to_numpy(np.int64)
            g = int(ids.max()) + 1
            w = part[COUNT].to_numpy(np.int64)
            sizes = np.bincount(ids, w, g).astype(np.int64)
            hist = None
            if col is not None:
                s = part[codes[col]].to_numpy(np.int64)
                hist = np.bincount(ids * V + s, w, g * V).reshape(g, V).astype(np.int64)
            for i in idx:
                m, a = models[i], acc[i]
                ok = np.asarray(m.class_verdicts(sizes, hist, proxy), dtype=bool)
                a.classes += g
                small = int(sizes.min())
                a.smallest = small if a.smallest is None else min(a.smallest, small)
                a.failing_classes += int((~ok).sum())
                a.failing_records += int(sizes[~ok].sum())
                values = getattr(m, "class_values", None)
                if hist is not None and values is not None:
                    v = np.asarray(values(sizes, hist, proxy), dtype=np.float64)
                    a.worst.append(float(v.min() if _higher_better(m) else v.max()))
    out = []
    for m, a in zip(models, acc):
        summary: dict[str, Any] = {"classes": a.classes, "smallest_class": a.smallest or 0,
                                   "failing_classes": a.failing_classes, "failing_records": a.failing_records,
                                   "suppressed": int(suppressed)}
        score = getattr(m, "_score_name", None)
        if m.sensitive_name(proxy) is not None and score is not None:
            key = ("min_" if _higher_better(m) else "max_") + score
            summary[key] = (min(a.worst) if _higher_better(m) else max(a.worst)) if a.worst else None
        out.append(ModelSummary(str(m), a.failing_records == 0, summary))
    return out


@dataclass
class _Acc:
    """Running figures of one model over the partitions of classes."""

    classes: int = 0
    smallest: int | None = None
    failing_classes: int = 0
    failing_records: int = 0
    worst: list[float] = field(default_factory=list)


def _higher_better(m: ClassModel) -> bool:
    return bool(getattr(m, "_higher_is_better", True))


def check(release: DaskTable | DaskRelease, models: PrivacyModel | Sequence[PrivacyModel]) -> list[ModelSummary]:
    """Check a distributed release (or a table, as published unchanged) against class models.

    One :class:`ModelSummary` per model, with the verdict and the figures the in-memory
    checker (``model.check(release).summary``) reports for the same table.
    """
    rel = _release(release)
    ms = class_models(models)
    t = rel.table
    keyed, keys = class_keys(rel, sensitive=True)
    codes = {c: scol(i) for i, c in enumerate(t.proxy.sensitive)}
    return class_summaries(t.engine, keyed, keys, codes, ms, t.proxy, rel.n_suppressed)


def class_keys(release: DaskRelease, *, sensitive: bool = False) -> tuple[Any, list[str]]:
    """The published rows of ``release`` (suppressed rows left out) as a narrow frame of class
    keys: the cells ``(lo, hi)`` of every QI packed into a few int64 columns ``__k{c}`` (mixed
    radix, one-to-one: two rows share all keys exactly when they share every cell), plus the
    sensitive codes ``__s{i}`` when ``sensitive``. Grouping by a few int64 columns instead of
    two per QI is what keeps the distributed group-bys cheap."""
    t = release.table
    fn = _ClassKeys([h.size for h in t.proxy.hierarchies], len(t.proxy.sensitive) if sensitive else 0)
    frame = t.engine.map_partitions(release.frame, fn, meta=fn(release.frame._meta))
    return frame, [f"__k{c}" for c in range(len(fn.chunks))]


# ---------------------------------------------------------------------------------- measures
#: measures computed at scale (the in-memory function of the same name gives the same value)
MEASURES = ("loss_metric", "discernibility", "non_uniform_entropy", "ncp", "gcp", "average_class_size")


def measures(release: DaskTable | DaskRelease, names: Sequence[str] = ("loss_metric", "discernibility", "non_uniform_entropy", "gcp"),
             *, k: int | None = None, numeric_range: str = "data", numeric: Sequence[str] | None = None) -> dict[str, float]:
    """Information loss of a distributed release, equal (to rounding) to ``ktype.measures``
    on the same release in memory.

    Cell-additive measures (``loss_metric``, ``ncp``, ``gcp``, ``non_uniform_entropy``) are the
    in-memory per-cell functions (``loss_metric_cells``, ``ncp_cells``,
    ``non_uniform_entropy_cells``) evaluated once per distinct ``(value, lo, hi)`` triple of each
    column and weighted by its count; ``discernibility`` and ``average_class_size`` come from
    the class sizes.
    """
    from ..measures import loss_metric_cells, ncp_cells, non_uniform_entropy_cells

    for nm in names:
        if nm not in MEASURES:
            raise InvalidParameterError(f"ktype.dask computes the measures {', '.join(MEASURES)}; got {nm!r}.")
    rel = _release(release)
    t = rel.table
    ds, n, r = t.proxy, t.n, t.r
    out: dict[str, float] = {}
    cellwise = [nm for nm in names if nm in ("loss_metric", "ncp", "gcp", "non_uniform_entropy")]
    by_class = "discernibility" in names or "average_class_size" in names
    keyed, keys = class_keys(rel) if by_class else (None, [])
    # one computation: the cell triples of every column and the class sizes share each partition's read
    fn = _CellTriples([h.size for h in ds.hierarchies]) if cellwise else None
    tris, stats = t.engine.group_counts_and_class_stats(
        rel.frame if fn is None else t.engine.map_partitions(rel.frame, fn, meta=fn(rel.frame._meta)),
        [] if fn is None else [[f"__t{j}"] for j in range(r)], keyed, keys)
    if fn is not None:
        totals = {"loss_metric": 0.0, "ncp": 0.0, "non_uniform_entropy": 0.0}
        for j in range(r):
            tri = tris[j]
            u = len(tri)
            lo = np.zeros((u, r), dtype=np.int64)
            hi = np.zeros((u, r), dtype=np.int64)
            x = np.zeros((u, r), dtype=np.int64)
            x[:, j], lo[:, j], hi[:, j] = fn.unpack(j, tri[f"__t{j}"].to_numpy(np.int64))
            w = tri[COUNT].to_numpy(np.float64)
            if "loss_metric" in cellwise:
                totals["loss_metric"] += float(w @ loss_metric_cells(ds, lo, hi)[:, j])
            if "ncp" in cellwise or "gcp" in cellwise:
                totals["ncp"] += float(w @ ncp_cells(ds, lo, hi, numeric_range=numeric_range, numeric=numeric)[:, j])
            if "non_uniform_entropy" in cellwise:
                totals["non_uniform_entropy"] += float(w @ non_uniform_entropy_cells(ds, lo, hi, x)[:, j])
        if "loss_metric" in names:
            out["loss_metric"] = totals["loss_metric"] / (n * r)
        if "ncp" in names:
            out["ncp"] = totals["ncp"]
        if "gcp" in names:
            out["gcp"] = totals["ncp"] / (n * r)
        if "non_uniform_entropy" in names:
            out["non_uniform_entropy"] = totals["non_uniform_entropy"]
    if by_class:
        st = stats if stats is not None else class_size_stats(rel)
        if "discernibility" in names:
            out["discernibility"] = float(st["sum_sq"]) + float(n) * float(rel.n_suppressed)
        if "average_class_size" in names:
            if k is None:
                raise InvalidParameterError("average_class_size needs k=...")
            out["average_class_size"] = float(n - rel.n_suppressed) / st["classes"] / k if st["classes"] else float("inf")
    return {nm: out[nm] for nm in names}


def class_size_stats(release: DaskTable | DaskRelease) -> dict[str, Any]:
    """Equivalence classes of the published rows: count, smallest, largest, mean size, ``Σ |E|²``."""
    rel = _release(release)
    t = rel.table
    keyed, keys = class_keys(rel)
    st: dict[str, Any] = dict(t.engine.class_stats(keyed, keys))
    st["mean"] = (t.n - rel.n_suppressed) / st["classes"] if st["classes"] else 0.0
    st["suppressed"] = rel.n_suppressed
    return st


# ---------------------------------------------------------------------------------- output
def published_frame(release: DaskRelease, frame: Any) -> Any:
    """The published columns of ``frame`` (rows of ``release``): QI labels as
    :meth:`ktype.Release.to_pandas` writes them, sensitive and insensitive values unchanged,
    identifiers removed; input column order."""
    t = release.table
    fn = _Publisher(t.proxy, release.levels, t.columns)
    return t.engine.map_partitions(frame, fn, meta=fn(frame._meta))


class _Publisher:
    def __init__(self, proxy: Dataset, levels: np.ndarray | None, columns: list[str]) -> None:
        self.qis = list(proxy.quasi_identifiers)
        self.hierarchies = list(proxy.hierarchies)
        self.levels = None if levels is None else [int(v) for v in levels]
        keep = set(self.qis) | set(proxy.sensitive) | set(proxy.insensitive)
        self.order = [c for c in columns if c in keep]
        self.with_missing = [c for c in getattr(proxy, "missing_policies", {}) if c in proxy.sensitive]

    def __call__(self, part: pd.DataFrame) -> pd.DataFrame:
        cols: dict[str, Any] = {}
        r = len(self.qis)
        lo = np.column_stack([part[locol(j)].to_numpy(np.int64) for j in range(r)]) if r else np.zeros((len(part), 0))
        hi = np.column_stack([part[hicol(j)].to_numpy(np.int64) for j in range(r)]) if r else lo
        # labelled as Release.to_pandas labels them (ktype.plan.qi_labels)
        labels = qi_labels(self.hierarchies, lo, hi, self.levels) if len(part) else [[] for _ in self.qis]
        for c, labs in zip(self.qis, labels):
            cols[c] = pd.Series(labs, dtype="str", index=part.index)
        for c in self.with_missing:  # a missing sensitive value is published as in memory
            cols[c] = part[c].astype(object).where(~part[c].isna(), MISSING_LABEL)
        for c in self.order:
            if c not in cols:
                cols[c] = part[c]
        return pd.DataFrame({c: cols[c] for c in self.order}, index=part.index)
