"""Full-domain (``flash``) and Mondrian on a partitioned table, and the atomic Parquet release.

* ``flash``: the bottom frequency set (distinct encoded QI tuples with counts and sensitive
  histograms) is one distributed group-by; the lattice search runs in memory on it (the
  in-memory engine, built from the frequency set: ``Encoded(..., weights=counts)``); the chosen
  node is applied per partition.
* ``mondrian``: top-level median cuts decided in the driver from distributed per-region value
  histograms (exact medians: leaf ranks have small domains) until every region fits one
  worker; a shuffle by region id; the in-memory Mondrian on each region (De Capitani di
  Vimercati et al., "Scalable distributed data anonymization for large datasets", IEEE
  Transactions on Big Data 2022, §4; PerCom 2021 for the first version).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..data.dataset import Dataset
from ..exceptions import InfeasibleError, InvalidParameterError, VerificationError
from ..models._base import PrivacyModel
from ..plan import FullDomainPlan
from ._engine import COUNT, _TooManyRows, shown_progress
from ._table import (
    FORCED,
    SUP,
    DaskRelease,
    DaskTable,
    ModelSummary,
    class_models,
    class_summaries,
    hicol,
    locol,
    published_frame,
    scol,
    without_forced,
    xcol,
)

__all__ = ["flash", "mondrian", "cut_regions", "write_release", "anonymize", "DEFAULT_MAX_DRIVER_ROWS"]

#: distinct tuples of the bottom frequency set the driver accepts by default (about 40 bytes each)
DEFAULT_MAX_DRIVER_ROWS = 20_000_000


def _validate(table: DaskTable, models: tuple) -> None:
    """Data-dependent checks of ``PrivacyModel.validate``, on the whole table's counts: ``k <= n``
    and, for the sensitive models, feasibility (the whole table as one class passes the
    model's own rule)."""
    for m in models:
        k = getattr(m, "k", None)
        if k is not None and k > table.n:
            raise InvalidParameterError(f"k={k} exceeds the number of rows ({table.n}) in the table.")
        col = m.sensitive_name(table.proxy)
        if col is not None:
            hist = table.sensitive_counts[col][None, :]
            if not bool(np.asarray(m.class_verdicts(np.array([table.n]), hist, table.proxy))[0]):
                raise InfeasibleError(
                    f"{m} on sensitive column {col!r}: even the whole table (n={table.n}) fails the model, so no release "
                    "can satisfy it. Relax the parameter or choose another sensitive attribute."
                )


def with_forced(table: DaskTable, algorithm: Any, models: tuple, **options: Any) -> DaskRelease:
    """The ``suppress`` missing-value policy, as ``ktype.algorithms.run`` applies it in memory:
    the records with a missing value are suppressed and count against ``max_suppression``;
    the algorithm runs on the other records with the remaining budget."""
    n, nf = table.n, table.n_forced
    ms = options.get("max_suppression")
    if ms is not None:
        limit = int(np.floor(ms * n + 1e-9))
        if nf > limit:
            raise InfeasibleError(
                f"{nf} record(s) have a missing value under the 'suppress' policy, above the suppression limit "
                f"{limit} (max_suppression={ms}); raise max_suppression or use the 'category' policy."
            )
        options["max_suppression"] = (limit - nf) / max(n - nf, 1)
    sub = without_forced(table)
    sub.n_forced = 0
    part = algorithm(sub, models, **options)
    fn = _SuppressAll(list(part.frame.columns), table.proxy.domain_sizes)
    rest = table.engine.map_partitions(table.engine.where(table.frame, FORCED), fn, meta=fn(table.frame._meta))
    prov = {**part.provenance, "suppressed_for_missing_values": nf}
    if ms is not None:
        prov["max_suppression"] = ms
    return DaskRelease(table, table.engine.concat([part.frame, rest]), part.recoding, part.n_suppressed + nf,
                       levels=part.levels, models=part.models, provenance=prov)


class _SuppressAll:
    """Partition -> every row suppressed (the whole domain), with the columns of a release frame."""

    def __init__(self, columns: list[str], domain_sizes: np.ndarray) -> None:
        self.columns = columns
        self.full = [int(m) - 1 for m in domain_sizes]

    def __call__(self, part: pd.DataFrame) -> pd.DataFrame:
        out = part.copy()
        for j, top in enumerate(self.full):
            out[locol(j)] = np.zeros(len(part), dtype=np.int32)
            out[hicol(j)] = np.full(len(part), top, dtype=np.int32)
        out[SUP] = np.ones(len(part), dtype=bool)
        for c in self.columns:
            if c not in out.columns:
                out[c] = np.zeros(len(part), dtype=np.int64)
        return out[self.columns]


# ---------------------------------------------------------------------------------- flash
def flash(table: DaskTable, models: PrivacyModel | Sequence[PrivacyModel], *, measure: str = "non_uniform_entropy",
          max_suppression: float = 0.0, max_driver_rows: int = DEFAULT_MAX_DRIVER_ROWS) -> DaskRelease:
    """Optimal full-domain generalization of a partitioned table (the optimum of in-memory ``flash``).

    Parameters
    ----------
    table : DaskTable
        Every quasi-identifier needs a uniform-depth tree hierarchy.
    models : class model(s)
    measure, max_suppression
        As for ``ktype.algorithms.run("flash", ...)``.
    max_driver_rows : int
        The most distinct (QI, sensitive) tuples the driver accepts; a larger bottom frequency
        set is refused before it is collected.

    Raises
    ------
    LatticeTooLargeError
        The bottom frequency set has more than ``max_driver_rows`` tuples.
    """
    from ..algorithms.fulldomain._engine import Encoded, require_levels
    from ..algorithms.fulldomain._lattice import check_dense, run_search
    from ..exceptions import LatticeTooLargeError
    from ..models import tcloseness

    ms = class_models(models)
    if not (isinstance(max_suppression, (int, float)) and 0 <= max_suppression <= 1):
        raise InvalidParameterError(f"The 'max_suppression' parameter of flash must be in [0, 1]. Got {max_suppression!r} instead.")
    if table.n_forced:
        return with_forced(table, flash, ms, max_suppression=max_suppression, measure=measure,
                           max_driver_rows=max_driver_rows)
    proxy = table.proxy
    require_levels(proxy, "flash")
    check_dense("flash", [h.height for h in proxy.hierarchies])
    _validate(table, ms)
    sens = []
    for m in ms:
        c = m.sensitive_name(proxy)
        if c is not None and c not in sens:
            sens.append(c)
    by = [xcol(j) for j in range(table.r)] + [scol(table.sensitive_index(c)) for c in sens]
    try:
        fs = table.engine.group_count(table.frame, by, max_rows=max_driver_rows)
    except _TooManyRows as e:
        raise LatticeTooLargeError(
            f"The bottom frequency set of this table has {e.rows:,} distinct tuples, more than the driver accepts "
            f"(max_driver_rows={max_driver_rows:,}, about {40 * max_driver_rows / 2**30:.1f} GiB). Raise max_driver_rows "
            "on a driver with more memory, generalize the quasi-identifiers beforehand (coarser hierarchies), or use "
            "ktype.dask.mondrian, which never collects the table."
        ) from None
    # a Dataset whose rows are the distinct tuples; the engine weighs them by their counts
    fds = object.__new__(Dataset)
    fds.__dict__.update(proxy.__dict__)
    X = np.ascontiguousarray(fs[[xcol(j) for j in range(table.r)]].to_numpy(np.int32))
    X.setflags(write=False)
    fds.X = X
    fds.sensitive_codes = {c: fs[scol(table.sensitive_index(c))].to_numpy(np.int32) for c in sens}
    fds.forced_suppression = np.zeros(len(fs), dtype=bool)
    tcloseness._Q_CACHE[fds] = {c: cnt / table.n for c, cnt in table.sensitive_counts.items()}
    weights = fs[COUNT].to_numpy(np.int64)
    enc = Encoded(fds, ms, max_suppression, measure, weights=weights)
    result = run_search(enc, "flash")
    levels = np.asarray(result.optimum, dtype=np.int64)
    ev = enc.evaluate(enc.bottom, np.zeros(table.r, dtype=np.int64), levels, need_inv=True)
    assert ev.ok is not None and ev.inv is not None  # evaluate(..., need_inv=True) sets both
    failing_rows = ~ev.ok[ev.inv[enc.row_tuple]]
    plan = FullDomainPlan(tuple(levels))  # applied per partition as the in-memory builder applies it
    failing = None
    if failing_rows.any():
        keys, _ = plan.apply(proxy.hierarchies, [X[failing_rows, j] for j in range(table.r)])
        failing = pd.MultiIndex.from_arrays([np.unique(keys, axis=0)[:, j] for j in range(table.r)]) if table.r > 1 \
            else pd.Index(np.unique(keys[:, 0]))
    fn = _ApplyLevels(plan, list(proxy.hierarchies), failing, proxy.domain_sizes)
    frame = table.engine.map_partitions(table.frame, fn, meta=fn(table.frame._meta))
    objective = 1.0 - float(result.value) if result.measure == "precision" else float(result.value)
    prov = {"algorithm": "flash", "engine": "dask", "lattice": result.summary(), "objective": objective,
            "parameters": {"measure": measure, "max_suppression": max_suppression},
            "objective_measure": result.measure, "frequency_set_rows": len(fs)}
    return DaskRelease(table, frame, "full-domain", int(result.optimum_suppressed), levels=levels, models=ms,
                       provenance=prov)


class _ApplyLevels:
    """Partition -> published intervals of a full-domain node (:class:`ktype.plan.FullDomainPlan`,
    applied as the in-memory release builder applies it); records of failing classes suppressed."""

    def __init__(self, plan: FullDomainPlan, hierarchies: list, failing: pd.Index | None, domain_sizes: np.ndarray) -> None:
        self.plan, self.hierarchies, self.failing = plan, hierarchies, failing
        self.full = [int(m) - 1 for m in domain_sizes]

    def __call__(self, part: pd.DataFrame) -> pd.DataFrame:
        out = part.copy()
        r = len(self.hierarchies)
        cells = self.plan.apply(self.hierarchies, [part[xcol(j)].to_numpy(np.int64) for j in range(r)])
        lo = [cells[0][:, j] for j in range(r)]
        hi = [cells[1][:, j] for j in range(r)]
        if self.failing is not None and len(part):
            key = pd.MultiIndex.from_arrays(lo) if r > 1 else pd.Index(lo[0])
            sup = np.asarray(key.isin(self.failing), dtype=bool)
        else:
            sup = np.zeros(len(part), dtype=bool)
        for j in range(r):
            out[locol(j)] = np.where(sup, 0, lo[j]).astype(np.int32)
            out[hicol(j)] = np.where(sup, self.full[j], hi[j]).astype(np.int32)
        out[SUP] = sup
        return out


# ---------------------------------------------------------------------------------- mondrian
def mondrian(table: DaskTable, models: PrivacyModel | Sequence[PrivacyModel], *, max_partition_rows: int = 1_000_000,
             mode: str = "strict") -> DaskRelease:
    """Mondrian on a partitioned table: distributed top-level median cuts until every region
    holds at most ``max_partition_rows`` records (or cannot be cut), then the in-memory
    Mondrian (``ktype.algorithms.run("mondrian", ...)``, verified by its checker) per region.

    Cuts are the strict Mondrian cut at the exact median of a region's values of one
    attribute (``x <= median`` left); the attribute with the widest normalized range of leaf
    ranks is tried first, then the others. A cut is taken only if both sides pass every
    model as a whole (so each region can be released as at least one valid class). Regions
    are disjoint boxes, so the classes of different regions never mix and the union of the
    regions' releases satisfies the models (docs/scale.md).
    """
    from ..algorithms import run as run_algorithm

    ms = class_models(models)
    if not (isinstance(max_partition_rows, int) and max_partition_rows >= 1):
        raise InvalidParameterError(
            f"The 'max_partition_rows' parameter of mondrian must be an int >= 1. Got {max_partition_rows!r} instead.")
    if table.n_forced:
        return with_forced(table, mondrian, ms, max_partition_rows=max_partition_rows, mode=mode)
    _validate(table, ms)
    proxy, eng = table.proxy, table.engine
    sens = next((c for m in ms if (c := m.sensitive_name(proxy)) is not None), None)
    if any(m.sensitive_name(proxy) not in (None, sens) for m in ms):
        raise InvalidParameterError("ktype.dask.mondrian supports models over one sensitive column at a time.")
    regioned, leaves, sizes, rounds = cut_regions(table, ms, sens, max_partition_rows)
    shuffled = eng.shuffle(regioned, "__region", len(leaves))
    part_fn = _RegionMondrian(proxy, ms, mode, run_algorithm)
    frame = eng.map_partitions(shuffled, part_fn, meta=part_fn(shuffled._meta))
    prov = {"algorithm": "mondrian", "engine": "dask", "parameters": {"mode": mode}, "regions": len(leaves), "cut_rounds": rounds,
            "largest_region": int(max(sizes[i] for i in leaves)), "max_partition_rows": max_partition_rows}
    return DaskRelease(table, frame, "multidimensional", 0, levels=None, models=ms, provenance=prov)


def cut_regions(table: DaskTable, ms: tuple, sens: str | None, max_partition_rows: int) -> tuple[Any, list[int], dict[int, int], int]:
    """Distributed strict median cuts until every region holds at most ``max_partition_rows``
    records or cannot be cut; a cut is taken only if both sides pass every model in ``ms``
    as a whole. Returns the table with ``__region`` (the leaf of the cut tree holding each
    row), the leaf ids, the records per node and the number of cut rounds."""
    proxy, r, eng = table.proxy, table.r, table.engine
    V = len(proxy.sensitive_values[sens]) if sens is not None else 0
    # cut tree: node -> (dim, value, left, right); dim -1 = a leaf region
    dims, vals, lefts, rights = [-1], [0], [-1], [-1]
    sizes = {0: table.n}
    open_nodes = [0] if table.n > max_partition_rows else []
    sizes_m = np.array([m - 1 for m in proxy.domain_sizes], dtype=np.float64)
    rounds = 0
    while open_nodes:
        rounds += 1
        tree = _CutTree(dims, vals, lefts, rights)
        regioned = eng.map_partitions(table.frame, tree, meta=tree(table.frame._meta))
        tabs = eng.group_counts(regioned, [["__region", xcol(j)] + ([scol(table.sensitive_index(sens))] if sens else [])
                                           for j in range(r)])
        next_open = []
        for node in open_nodes:
            cands = []
            for j in range(r):
                t = tabs[j][tabs[j]["__region"] == node]
                xs = t[xcol(j)].to_numpy(np.int64)
                span = (xs.max() - xs.min()) / sizes_m[j] if len(xs) and sizes_m[j] > 0 else 0.0
                cands.append((-span, j, t))
            cands.sort(key=lambda c: (c[0], c[1]))
            for negspan, j, t in cands:
                if negspan == 0:
                    break
                cut = _median_cut(t, j, sens and scol(table.sensitive_index(sens)), V, ms, proxy)
                if cut is None:
                    continue
                value, nl, nr = cut
                left, right = len(dims), len(dims) + 1
                dims[node], vals[node], lefts[node], rights[node] = j, value, left, right
                for child, cnt in ((left, nl), (right, nr)):
                    dims.append(-1)
                    vals.append(0)
                    lefts.append(-1)
                    rights.append(-1)
                    sizes[child] = cnt
                    if cnt > max_partition_rows:
                        next_open.append(child)
                break
        open_nodes = next_open
    tree = _CutTree(dims, vals, lefts, rights)
    regioned = eng.map_partitions(table.frame, tree, meta=tree(table.frame._meta))
    leaves = [i for i, d in enumerate(dims) if d < 0]
    return regioned, leaves, sizes, rounds


def _median_cut(t: pd.DataFrame, j: int, s: str | None, V: int, ms: tuple, proxy: Dataset) -> tuple[int, int, int] | None:
    """The strict median cut of one region along attribute ``j`` from its value histogram
    (``x <= value`` left), or None when a side would be empty or fail a model."""
    xs = t[xcol(j)].to_numpy(np.int64)
    w = t[COUNT].to_numpy(np.int64)
    uniq, inv = np.unique(xs, return_inverse=True)
    cnt = np.bincount(inv, w, len(uniq)).astype(np.int64)
    total = int(cnt.sum())
    pos = int(np.searchsorted(np.cumsum(cnt), (total + 1) // 2))  # the lower median's value
    value = int(uniq[pos])
    left = xs <= value
    nl = int(w[left].sum())
    nr = total - nl
    if nl == 0 or nr == 0:
        return None
    sizes = np.array([nl, nr], dtype=np.int64)
    hist = None
    if s is not None:
        codes = t[s].to_numpy(np.int64)
        hist = np.zeros((2, V), dtype=np.int64)
        np.add.at(hist, (np.where(left, 0, 1), codes), w)
    for m in ms:
        if not np.asarray(m.class_verdicts(sizes, hist, proxy), dtype=bool).all():
            return None
    return value, nl, nr


class _CutTree:
    """Partition -> the same rows with ``__region``, the leaf of the cut tree holding each row."""

    def __init__(self, dims: list, vals: list, lefts: list, rights: list) -> None:
        self.dims = np.asarray(dims, dtype=np.int64)
        self.vals = np.asarray(vals, dtype=np.int64)
        self.lefts = np.asarray(lefts, dtype=np.int64)
        self.rights = np.asarray(rights, dtype=np.int64)
        self.r = None

    def __call__(self, part: pd.DataFrame) -> pd.DataFrame:
        out = part.copy()
        cols = sorted((c for c in part.columns if str(c).startswith("__x")), key=lambda c: int(str(c)[3:]))
        X = part[cols].to_numpy(np.int64) if len(part) else np.zeros((0, len(cols)), dtype=np.int64)
        region = np.zeros(len(part), dtype=np.int64)
        active = np.flatnonzero(self.dims[region] >= 0)
        while len(active):  # one step per depth of the cut tree
            node = region[active]
            d = self.dims[node]
            x = X[active, d]
            region[active] = np.where(x <= self.vals[node], self.lefts[node], self.rights[node])
            active = active[self.dims[region[active]] >= 0]
        out["__region"] = region
        return out


class _RegionMondrian:
    """Partition of whole regions -> each region anonymized by the in-memory Mondrian."""

    def __init__(self, proxy: Dataset, models: tuple, mode: str, run: Any) -> None:
        self.proxy, self.models, self.mode, self.run = proxy, models, mode, run

    def __call__(self, part: pd.DataFrame) -> pd.DataFrame:
        # a worker's threads may meet the module half-imported: the registry holds ``mondrian`` as soon as
        # its decorator ran, before the helpers below it exist (NameError '_allowed'); an import statement
        # waits for another thread's import of the module to finish
        import ktype.algorithms.mondrian  # noqa: F401

        proxy = self.proxy
        r = proxy.r
        out = part.copy()
        lo = np.zeros((len(part), r), dtype=np.int32)
        hi = np.zeros((len(part), r), dtype=np.int32)
        if len(part):
            regions = part["__region"].to_numpy(np.int64)
            order = np.argsort(regions, kind="stable")
            bounds = np.flatnonzero(np.diff(regions[order])) + 1
            for rows in np.split(order, bounds):  # one in-memory Mondrian per region
                ds = _region_dataset(proxy, part, rows)
                rel = self.run("mondrian", ds, self.models, mode=self.mode)
                lo[rows[rel.source]] = rel.lo
                hi[rows[rel.source]] = rel.hi
        for j in range(r):
            out[locol(j)] = lo[:, j]
            out[hicol(j)] = hi[:, j]
        out[SUP] = np.zeros(len(part), dtype=bool)
        return out


def _region_dataset(proxy: Dataset, part: pd.DataFrame, rows: np.ndarray) -> Dataset:
    """An in-memory Dataset over some rows of an encoded partition (roles, hierarchies and
    domains of the whole table: the encoding is the table's)."""
    ds = object.__new__(Dataset)
    ds.__dict__.update(proxy.__dict__)
    sub = part.iloc[rows]
    ds.data = sub[[c for c in proxy.data.columns]].reset_index(drop=True)
    X = np.ascontiguousarray(sub[[xcol(j) for j in range(proxy.r)]].to_numpy(np.int32))
    X.setflags(write=False)
    ds.X = X
    codes = {}
    for i, c in enumerate(proxy.sensitive):
        v = sub[scol(i)].to_numpy(np.int32)
        v.setflags(write=False)
        codes[c] = v
    ds.sensitive_codes = codes
    ds.forced_suppression = np.zeros(len(rows), dtype=bool)
    ds.source_files = ()
    return ds


# ---------------------------------------------------------------------------------- output
def write_release(release: DaskRelease, path: str | Path, *, models: PrivacyModel | Sequence[PrivacyModel] | None = None) -> list[ModelSummary]:
    """Write the published rows as a partitioned Parquet dataset at ``path``, atomically.

    The files are written to a temporary directory beside ``path``, read back and checked
    by the distributed checker (the classes of the *written* QI labels, the written
    sensitive values) against ``models`` (default: the release's); only a release that
    passes is renamed to ``path``. Any failure removes the temporary directory: a failed run
    leaves nothing. A ``_ktype_release.json`` in the directory records the models, their
    verdicts and the counts.

    Raises
    ------
    OutputPathError
        ``path`` exists.
    VerificationError
        The written release fails a model (nothing is left at ``path``).
    """
    from ..io.formats import FORMATS

    t = release.table
    ms = class_models(models if models is not None else release.models)
    verdicts: list[ModelSummary] = []

    def write_files(tmp: Path) -> None:
        t.engine.write_parquet(published_frame(release, t.engine.filter(release.frame, SUP)), tmp)

    def describe(tmp: Path) -> dict[str, Any]:
        verdicts.extend(verify_written(t, tmp, ms))
        failed = [v for v in verdicts if not v.satisfied]
        if failed:
            raise VerificationError(
                "The written release fails " + "; ".join(f"{v.model} ({v.summary['failing_records']} records in "
                                                          f"{v.summary['failing_classes']} classes)" for v in failed)
                + ". Nothing was published; this is a bug in ktype, please report it."
            )
        written = verdicts[0].summary["records"] if verdicts else None
        if written != t.n - release.n_suppressed:
            raise VerificationError(
                f"The written release holds {written} records, {t.n - release.n_suppressed} expected. Nothing was published.")
        from ._meta import release_metadata

        return release_metadata(release, ms, verdicts, written, t.frame._meta)

    FORMATS["partitioned"].write(Path(path), write_files, describe)
    return verdicts


def verify_written(table: DaskTable, where: Path, models: tuple) -> list[ModelSummary]:
    """Check the Parquet release at ``where`` as written: classes are the rows with equal
    written QI labels, sensitive values re-encoded from the written cells."""
    from ._table import _Encoder

    eng = table.engine
    frame = eng.read(str(where))
    proxy = table.proxy
    enc = _Encoder(proxy)
    qis = list(proxy.quasi_identifiers)

    def fn(part: pd.DataFrame) -> pd.DataFrame:
        out = pd.DataFrame({f"__q{j}": part[c].astype(str) for j, c in enumerate(qis)}, index=part.index)
        for i, c in enumerate(proxy.sensitive):
            out[scol(i)] = enc.sensitive_codes(c, part[c])
        return out

    coded = eng.map_partitions(frame, fn, meta=fn(frame._meta))
    codes = {c: scol(i) for i, c in enumerate(proxy.sensitive)}
    out = class_summaries(eng, coded, [f"__q{j}" for j in range(len(qis))], codes, models, proxy, 0)
    records = eng.count(coded)
    for v in out:
        v.summary["records"] = records
    return out


# ---------------------------------------------------------------------------------- CLI entry
def anonymize(source: Any, output: str | Path, *, algorithm: str, models: PrivacyModel | Sequence[PrivacyModel],
              scheduler: str | None = None, options: dict[str, Any] | None = None, progress: bool = False,
              **roles: Any) -> dict[str, Any]:
    """What ``ktype anonymize data/*.parquet --scheduler local|tcp://host:8786`` runs.

    ``scheduler``: ``None`` (Dask's default), ``"local"`` (a ``distributed.LocalCluster`` on
    this machine for the duration of the call), ``"sync"``/``"threads"``/``"processes"`` or a
    scheduler address (``tcp://host:8786``). ``algorithm``: ``"flash"`` or ``"mondrian"``;
    ``options`` go to it; ``roles`` are :func:`ktype.dask.from_dask`'s. ``progress``: Dask's
    progress bar (local schedulers) or the dashboard address (a cluster) on standard error.
    Returns a summary (verdicts, counts, measures) for the CLI to print.
    """
    from ..io.metadata import jsonable
    from ._table import from_dask, measures

    if algorithm not in ("flash", "mondrian"):
        raise InvalidParameterError(f"ktype.dask runs 'flash' or 'mondrian'; got {algorithm!r}.")
    options = dict(options or {})
    client = cluster = None
    sched: Any = None
    try:
        if scheduler in ("sync", "threads", "processes"):
            sched = scheduler
        elif scheduler == "local" or (isinstance(scheduler, str) and "://" in scheduler):
            from distributed import Client, LocalCluster

            if scheduler == "local":
                import logging

                # the scheduler's p2p shuffle notes every shuffle at WARNING level: noise for the user
                logging.getLogger("distributed.shuffle").setLevel(logging.ERROR)
                cluster = LocalCluster(processes=True, silence_logs=logging.ERROR)
                client = Client(cluster)
            else:
                client = Client(scheduler)
            sched = client
        elif scheduler is not None:
            raise InvalidParameterError(
                f"Unknown scheduler {scheduler!r}; use local, sync, threads, processes or an address tcp://host:8786.")
        with shown_progress(sched, progress):
            table = from_dask(source, scheduler=sched, **roles)
            rel = (flash if algorithm == "flash" else mondrian)(table, models, **options)
            verdicts = write_release(rel, output)
            measured = measures(rel, ("loss_metric", "discernibility"))
        return {"output": str(output), "records": table.n, "suppressed": rel.n_suppressed,
                "verdicts": [{"model": v.model, "satisfied": v.satisfied, **v.summary} for v in verdicts],
                "measures": measured, "provenance": jsonable(rel.provenance)}
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
