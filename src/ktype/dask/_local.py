"""Local recoding at scale: ``k_concealment`` and ``freeform_sortgreedy`` (and the other
in-memory local or freeform algorithms) solved partition by partition.

The table is split into regions of at least k records — by the distributed strict median
cuts of :func:`ktype.dask.mondrian` (both sides of a cut hold at least k records) or by the
table's own partitions — and each region is anonymized in memory on a worker by
``ktype.algorithms.run`` (so each region's release passes the model's in-memory checker
before it leaves the worker).

Why the union is valid (k-concealment, Tassa, Mazza & Gionis, "k-Concealment", Transactions
on Data Privacy 2012, §3; freeform k-anonymity, Doka, Xue, Tsoumakos & Karras, "k-Anonymization
by freeform generalization", ASIA CCS 2015, §3): a record's matches are the published rows
it can be linked to on some perfect matching of the bipartite graph "record is consistent
with published row". The graph of the union contains every region's graph; a perfect
matching of one region extended by any perfect matching of every other region (each
region's own assignment is one) is a perfect matching of the union. So an edge that lies on
a perfect matching of its region lies on one of the union: matches only grow when regions
are united, and a record with k matches in its region has at least k in the whole table.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..exceptions import InvalidParameterError, VerificationError
from ..models._base import PrivacyModel
from ._table import SUP, DaskRelease, DaskTable, ModelSummary, hicol, locol, published_frame

__all__ = ["local_recoding", "write_local_release", "LOCAL_ALGORITHMS", "clocol", "chicol", "setcol", "value_sets"]

#: the in-memory algorithms ``local_recoding`` runs per region, with their recoding
LOCAL_ALGORITHMS = {"k_concealment": "local", "freeform_sortgreedy": "freeform", "freeform_greedy": "freeform",
                    "k1_anonymity": "local", "kk_anonymity": "local"}


def clocol(j: int) -> str:
    return f"__clo{j}"


def chicol(j: int) -> str:
    return f"__chi{j}"


def setcol(j: int, b: int) -> str:
    """Byte ``b`` of the packed membership bits of set column ``j``."""
    return f"__set{j}_{b}"


def local_recoding(table: DaskTable, algorithm: str, models: PrivacyModel | Sequence[PrivacyModel], *,
                   rng: int | np.random.Generator | None = None, regions: str = "cuts", max_partition_rows: int = 5_000,
                   **options: Any) -> DaskRelease:
    """Run a local-recoding or freeform algorithm region by region (partition, then solve).

    Parameters
    ----------
    table : DaskTable
    algorithm : str
        ``"k_concealment"``, ``"freeform_sortgreedy"`` (or ``freeform_greedy``,
        ``k1_anonymity``, ``kk_anonymity``).
    models : the algorithm's model(s), e.g. ``KConcealment(5)`` or ``FreeformKAnonymity(5)``
    rng : int seed, numpy Generator or None
        Secret randomness; each region gets an independent child of it (never recorded).
    regions : ``"cuts"`` or ``"partitions"``
        ``"cuts"``: distributed strict median cuts until every region holds at most
        ``max_partition_rows`` records (both sides of a cut hold at least k); ``"partitions"``:
        the table's partitions as they are (each must hold at least k records).
    options
        Passed to the algorithm (e.g. ``partition_size`` of the freeform heuristics).

    Released rows come per region in the in-memory release's order (canonical, not the
    input order). The per-row output has ``__lo{j}``/``__hi{j}`` (the published box) and,
    for freeform releases, the exact cells ``__clo{j}``/``__chi{j}`` and value sets
    ``__set{j}_{b}`` (byte ``b`` of the packed membership bits, all zero for a range column).
    """
    from ..algorithms import run as run_algorithm  # noqa: F401  (fails early on a missing algorithm module)
    from ..models.kanonymity import KAnonymity
    from ._algorithms import cut_regions

    if algorithm not in LOCAL_ALGORITHMS:
        raise InvalidParameterError(f"ktype.dask.local_recoding runs {', '.join(LOCAL_ALGORITHMS)}; got {algorithm!r}.")
    given = (models,) if isinstance(models, PrivacyModel) else tuple(models)
    ks = [int(getattr(m, "k")) for m in given if getattr(m, "k", None) is not None]  # noqa: B009
    if not ks:
        raise InvalidParameterError(f"{algorithm} at scale needs a model with k (e.g. KConcealment(5)).")
    k = max(ks)
    if regions not in ("cuts", "partitions"):
        raise InvalidParameterError(f"regions must be 'cuts' or 'partitions'; got {regions!r}.")
    if not (isinstance(max_partition_rows, int) and max_partition_rows >= 2 * k):
        raise InvalidParameterError(f"max_partition_rows must be an int >= 2k = {2 * k}; got {max_partition_rows!r}.")
    if table.n_forced:
        raise InvalidParameterError("local_recoding does not take the 'suppress' missing-value policy; use 'category'.")
    if k > table.n:
        raise InvalidParameterError(f"k={k} exceeds the number of rows ({table.n}) in the table.")
    eng = table.engine
    if regions == "cuts":
        regioned, leaves, sizes, rounds = cut_regions(table, (KAnonymity(k),), None, max_partition_rows)
        frame = eng.shuffle(regioned, "__region", len(leaves))
        n_regions, prov_regions = max(leaves) + 1, {"regions": len(leaves), "cut_rounds": rounds,
                                                     "largest_region": int(max(sizes[i] for i in leaves))}
    else:
        counts = np.asarray(eng._compute(table.frame.map_partitions(len))[0], dtype=np.int64)
        small = [i for i, c in enumerate(counts) if 0 < int(c) < k]
        if small:
            raise InvalidParameterError(
                f"Partition {small[0]} holds {int(counts[small[0]])} records, fewer than k={k}; repartition the table "
                "(ddf.repartition(npartitions=...)) or use regions='cuts'.")
        frame = table.frame.map_partitions(_number_partition, meta=_number_partition(table.frame._meta))
        n_regions, prov_regions = len(counts), {"regions": int(sum(1 for c in counts if int(c))),
                                                "largest_region": int(max(counts))}
    seeds = np.random.SeedSequence(_entropy(rng)).spawn(n_regions)
    fn = _RegionLocal(table.proxy, algorithm, given, options, seeds, LOCAL_ALGORITHMS[algorithm] == "freeform")
    out = eng._persist(eng.map_partitions(frame, fn, meta=fn(frame._meta)))
    suppressed = eng.sums(out, [SUP])[SUP]
    prov = {"algorithm": algorithm, "engine": "dask", "scheme": f"partition ({regions}) then solve",
            "max_partition_rows": max_partition_rows, **prov_regions}
    return DaskRelease(table, out, LOCAL_ALGORITHMS[algorithm], int(suppressed), levels=None, models=given,
                       provenance=prov)


def _entropy(rng: int | np.random.Generator | None) -> int | None:
    """Entropy for the regions' seed sequence: from an int seed, drawn from a Generator,
    or the OS's (None)."""
    if rng is None:
        return None
    if isinstance(rng, np.random.Generator):
        return int(rng.integers(0, 2**63 - 1))
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and rng >= 0:
        return int(rng)
    raise InvalidParameterError(f"rng must be a non-negative int seed, a numpy Generator or None; got {rng!r}.")


def _number_partition(part: pd.DataFrame, partition_info: dict | None = None) -> pd.DataFrame:
    out = part.copy()
    out["__region"] = np.full(len(part), 0 if partition_info is None else int(partition_info["number"]), dtype=np.int64)
    return out


class _RegionLocal:
    """Partition of whole regions -> each region's in-memory release, rows in its order."""

    def __init__(self, proxy: Any, algorithm: str, models: tuple, options: dict, seeds: list, freeform: bool) -> None:
        self.proxy, self.algorithm, self.models, self.options = proxy, algorithm, models, options
        self.seeds, self.freeform = seeds, freeform

    def __call__(self, part: pd.DataFrame) -> pd.DataFrame:
        import ktype.algorithms.freeform  # noqa: F401  (a worker's threads may meet the modules half-imported)
        import ktype.algorithms.local.pipelines  # noqa: F401

        from ..algorithms import run
        from ._algorithms import _region_dataset

        r = self.proxy.r
        if not len(part):
            return self._empty(part)
        regions = part["__region"].to_numpy(np.int64)
        order = np.argsort(regions, kind="stable")
        pieces = []
        for rows in np.split(order, np.flatnonzero(np.diff(regions[order])) + 1):  # one in-memory run per region
            ds = _region_dataset(self.proxy, part, rows)
            gen = np.random.default_rng(self.seeds[int(regions[rows[0]])])
            rel = run(self.algorithm, ds, self.models, rng=gen, **self.options)
            piece = part.iloc[rows[rel.source]].copy()
            for j in range(r):
                piece[locol(j)] = rel.lo[:, j]
                piece[hicol(j)] = rel.hi[:, j]
            piece[SUP] = rel.suppressed
            if self.freeform:
                clo, chi, sets = rel.cells()
                for j in range(r):
                    piece[clocol(j)] = clo[:, j]
                    piece[chicol(j)] = chi[:, j]
                    packed = np.packbits(_sets(sets, j, len(rows), self.proxy.hierarchies[j].size), axis=1)
                    for b in range(packed.shape[1]):
                        piece[setcol(j, b)] = packed[:, b]
            pieces.append(piece)
        return pd.concat(pieces).reset_index(drop=True)

    def _empty(self, part: pd.DataFrame) -> pd.DataFrame:
        out = part.iloc[:0].copy().reset_index(drop=True)
        for j in range(self.proxy.r):
            out[locol(j)] = np.zeros(0, dtype=np.int32)
            out[hicol(j)] = np.zeros(0, dtype=np.int32)
        out[SUP] = np.zeros(0, dtype=bool)
        if self.freeform:
            for j, h in enumerate(self.proxy.hierarchies):
                out[clocol(j)] = np.zeros(0, dtype=np.int32)
                out[chicol(j)] = np.zeros(0, dtype=np.int32)
                for b in range((h.size + 7) // 8):
                    out[setcol(j, b)] = np.zeros(0, dtype=np.uint8)
        return out


def _sets(sets: dict[int, np.ndarray], j: int, n: int, size: int) -> np.ndarray:
    """Membership bits of column ``j`` (all False for a range column: its cells say it)."""
    return sets[j] if j in sets else np.zeros((n, size), dtype=bool)


def value_sets(frame: pd.DataFrame, sizes: Sequence[int]) -> dict[int, np.ndarray]:
    """The value sets of a collected freeform frame (columns with any member set)."""
    out = {}
    for j, size in enumerate(sizes):
        packed = frame[[setcol(j, b) for b in range((size + 7) // 8)]].to_numpy(np.uint8)
        bits = np.unpackbits(packed, axis=1, count=size).astype(bool)
        if bits.any():
            out[j] = bits
    return out


def write_local_release(release: DaskRelease, path: Path) -> list[ModelSummary]:
    """Write a local-recoding release of :func:`ktype.dask.local_recoding` (partition, then
    solve). Its models (k-concealment, (k,k), ...) are judged on matchings, not classes: every
    region's release passed the model's in-memory checker on its worker, and the union of
    regions keeps every record's matches (docs/scale.md). What is checked here is that the
    files hold exactly those verified rows: each written partition, read back, has the same
    rows in the same order as the partition computed for it (a digest of pandas' row hashes),
    and the number of rows is the number of published records."""
    from ..io.formats import FORMATS

    if release.recoding == "freeform":
        raise InvalidParameterError(
            "kd.write_release writes local-recoding releases (k_concealment, k1_anonymity, kk_anonymity); a freeform "
            "release at scale is not written yet: collect a small one with release.to_pandas().")
    if release.provenance.get("algorithm") not in LOCAL_ALGORITHMS:
        raise InvalidParameterError("kd.write_release writes local-recoding releases made by kd.local_recoding.")
    t = release.table
    pub = published_frame(release, t.engine.filter(release.frame, SUP))
    summaries: list[ModelSummary] = []

    def write_files(tmp: Path) -> None:
        t.engine.write_parquet(pub, tmp)

    def describe(tmp: Path) -> dict[str, Any]:
        written = t.engine.read(str(tmp))
        want, got = t.engine._compute(pub.map_partitions(_digest, meta=_DIGEST_META),
                                      written.map_partitions(_digest, meta=_DIGEST_META))
        rows = int(got["rows"].sum())
        if len(want) != len(got) or not (want.to_numpy() == got.to_numpy()).all():
            raise VerificationError("The written files do not hold the verified rows (a partition differs after "
                                    "reading it back). Nothing was published; this is a bug in ktype, please report it.")
        if rows != t.n - release.n_suppressed:
            raise VerificationError(
                f"The written release holds {rows} records, {t.n - release.n_suppressed} expected. Nothing was published.")
        for m in release.models:
            summaries.append(ModelSummary(str(m), True, {
                "classes": None, "smallest_class": None, "failing_records": 0, "records": rows,
                "verified": f"every region by the in-memory checker of {m} on its worker; the files read back equal"}))
        from ._meta import release_metadata

        return release_metadata(release, tuple(release.models), summaries, rows, t.frame._meta)

    FORMATS["partitioned"].write(path, write_files, describe)
    return summaries


_DIGEST_META = pd.DataFrame({"rows": pd.Series([], dtype="int64"), "digest": pd.Series([], dtype="object")})


def _digest(part: pd.DataFrame) -> pd.DataFrame:
    """One row per partition: its number of rows and a SHA-256 of its rows' hashes in order."""
    import hashlib

    h = pd.util.hash_pandas_object(part.reset_index(drop=True).astype(str), index=False).to_numpy()
    return pd.DataFrame({"rows": [len(part)], "digest": [hashlib.sha256(h.tobytes()).hexdigest()]})
