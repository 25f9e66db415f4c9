"""The one narrow interface between ktype and a distributed engine, and its Dask implementation.

Everything ktype does at scale is expressed with the few operations of :class:`Engine`:
read a partitioned table, count its values, map a function over its partitions, count distinct key tuples
(collected to the driver, or streamed partition by partition with every key's rows in one
partition), sum columns, and write a partitioned Parquet dataset. Scheduling, shuffles and
spilling are the engine's; ktype ships no cluster code. A PySpark backend implements the
same methods on a ``pyspark.sql.DataFrame`` (``mapInPandas``, ``groupBy().count()``,
``repartition(cols)`` + ``toLocalIterator``, ``write.parquet``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pandas as pd

from ..exceptions import ClusterError, DataError, InvalidParameterError

__all__ = ["Engine", "DaskEngine", "COUNT"]

#: name of the count column of :meth:`Engine.group_count`
COUNT = "__count"


class Engine(Protocol):
    """What ktype needs from a distributed engine (a ``Frame`` is the engine's lazy table)."""

    def read(self, source: Any) -> Any: ...

    def columns(self, frame: Any) -> list[str]: ...

    def head(self, frame: Any, n: int) -> pd.DataFrame: ...

    def value_counts(self, frame: Any, columns: Sequence[str]) -> dict[str, pd.Series]: ...

    def map_partitions(self, frame: Any, fn: Callable[[pd.DataFrame], pd.DataFrame], meta: pd.DataFrame) -> Any: ...

    def filter(self, frame: Any, column: str) -> Any: ...

    def where(self, frame: Any, column: str) -> Any:
        """Rows whose boolean ``column`` is True."""
        return frame[frame[column]]

    def concat(self, frames: Sequence[Any]) -> Any:
        """The rows of several frames with the same columns, one after the other."""
        import dask.dataframe as dd

        return dd.concat(list(frames))

    def group_count(self, frame: Any, by: Sequence[str], *, max_rows: int | None = None) -> pd.DataFrame: ...

    def group_counts(self, frame: Any, bys: Sequence[Sequence[str]]) -> list[pd.DataFrame]: ...

    def grouped_partitions(self, frame: Any, by: Sequence[str], keys: Sequence[str]) -> Iterator[pd.DataFrame]: ...

    def class_stats(self, frame: Any, by: Sequence[str]) -> dict[str, int]: ...

    def group_counts_and_class_stats(self, frame: Any, bys: Sequence[Sequence[str]], classes: Any = None,
                                     by: Sequence[str] = ()) -> tuple[list[pd.DataFrame], dict[str, int] | None]: ...

    def sums(self, frame: Any, columns: Sequence[str]) -> dict[str, int]: ...

    def write_parquet(self, frame: Any, path: Path) -> None: ...


class DaskEngine:
    """:class:`Engine` on ``dask.dataframe`` and whatever scheduler is active.

    Parameters
    ----------
    scheduler : optional
        Passed to ``dask.compute`` (``"sync"``, ``"threads"``, a ``distributed.Client``);
        ``None`` = Dask's default (the active ``distributed.Client`` if there is one).
    """

    def __init__(self, scheduler: Any = None) -> None:
        import dask  # noqa: F401  (fails early with the install hint, see ktype.dask)

        self.scheduler = scheduler

    # ------------------------------------------------------------------ helpers
    @property
    def shuffle_method(self) -> str | None:
        """``"tasks"`` on a local scheduler (``"sync"``, threads, processes): Dask's p2p shuffle
        needs distributed workers, and would be picked whenever a ``Client`` exists in the
        process; None (Dask's choice) otherwise."""
        return "tasks" if isinstance(self.scheduler, str) else None

    @contextlib.contextmanager
    def _config(self) -> Iterator[None]:
        """Dask's configuration for one computation, and the translation of a lost worker or
        scheduler (an exception raised by ``distributed`` itself, not by a task) into
        :class:`~ktype.exceptions.ClusterError`."""
        import dask

        method = self.shuffle_method
        try:
            with dask.config.set({"dataframe.shuffle.method": method}) if method else _Nothing():
                yield
        except Exception as e:
            if not _is_cluster_failure(e):
                raise
            raise ClusterError(
                f"The Dask cluster lost work it could not recover ({type(e).__name__}: {e}). A worker died (over its "
                "memory limit, killed or crashed) more often than distributed.scheduler.allowed-failures allows, or a "
                "connection to the scheduler or a worker broke. Nothing was published. Give the workers more memory "
                "(dask-worker --memory-limit), use smaller partitions, or look at the workers' logs."
            ) from e

    def _compute(self, *objs: Any) -> tuple:
        import dask

        kw = {} if self.scheduler is None else {"scheduler": self.scheduler}
        with self._config():
            return dask.compute(*objs, **kw)

    def _persist(self, obj: Any) -> Any:
        kw = {} if self.scheduler is None else {"scheduler": self.scheduler}
        with self._config():
            return obj.persist(**kw)

    def _sizes(self, frame: Any, by: Sequence[str], split_out: int) -> Any:
        """Rows per distinct tuple of ``by`` (a dask Series indexed by the tuples)."""
        return frame.groupby(list(by), sort=False).size(split_out=split_out, shuffle_method=self.shuffle_method)

    # ------------------------------------------------------------------ interface
    def read(self, source: Any) -> Any:
        """A dask DataFrame as it is, or a Parquet dataset (directory, file or glob) read lazily."""
        import dask.dataframe as dd

        if isinstance(source, dd.DataFrame):
            return source
        if isinstance(source, pd.DataFrame):
            raise InvalidParameterError(
                "ktype.dask needs a dask.dataframe.DataFrame or a Parquet dataset path; for a pandas DataFrame use "
                "ktype.Dataset, or dask.dataframe.from_pandas(df, npartitions=...)."
            )
        if isinstance(source, (str, Path)):
            text = str(source)
            if not any(ch in text for ch in "*?[") and not Path(text).exists() and "://" not in text:
                raise DataError(f"Input Parquet dataset not found: {text}")
            try:
                return dd.read_parquet(text)
            except (OSError, ValueError) as e:
                raise DataError(f"Cannot read the Parquet dataset {text}: {e}") from None
        raise InvalidParameterError(
            f"ktype.dask reads a dask.dataframe.DataFrame or a Parquet dataset path; got {type(source).__name__}."
        )

    def columns(self, frame: Any) -> list[str]:
        return [str(c) for c in frame.columns]

    def head(self, frame: Any, n: int) -> pd.DataFrame:
        return self._compute(frame.head(n, npartitions=-1, compute=False))[0]

    def value_counts(self, frame: Any, columns: Sequence[str]) -> dict[str, pd.Series]:
        """Records per distinct value of each column, a missing value counted as one value
        (a Series indexed by the values; one pass for all columns)."""
        out = self._compute(*[frame[c].value_counts(dropna=False, split_out=1) for c in columns])
        return {c: vc[vc > 0] for c, vc in zip(columns, out)}  # a categorical column lists unused categories too

    def map_partitions(self, frame: Any, fn: Callable[[pd.DataFrame], pd.DataFrame], meta: pd.DataFrame) -> Any:
        return frame.map_partitions(fn, meta=meta)

    def filter(self, frame: Any, column: str) -> Any:
        """Rows whose boolean ``column`` is False (the published rows of a release)."""
        return frame[~frame[column]]

    def where(self, frame: Any, column: str) -> Any:
        """Rows whose boolean ``column`` is True."""
        return frame[frame[column]]

    def concat(self, frames: Sequence[Any]) -> Any:
        """The rows of several frames with the same columns, one after the other."""
        import dask.dataframe as dd

        return dd.concat(list(frames))

    def group_count(self, frame: Any, by: Sequence[str], *, max_rows: int | None = None) -> pd.DataFrame:
        """Distinct tuples of ``by`` with their counts (column :data:`COUNT`), collected.

        With ``max_rows`` the tuples are counted on the cluster first and
        :class:`MemoryError`-free refusal happens before anything is collected.
        """
        g = self._sizes(frame, by, max(1, frame.npartitions // 4))
        g = g.to_frame(COUNT).reset_index()
        if max_rows is not None:
            g = self._persist(g)
            rows = int(self._compute(g.shape[0])[0])
            if rows > max_rows:
                raise _TooManyRows(rows)
        out = self._compute(g)[0].reset_index(drop=True)
        return out

    def group_counts(self, frame: Any, bys: Sequence[Sequence[str]]) -> list[pd.DataFrame]:
        """:meth:`group_count` of several column lists in one pass over the table."""
        return self.group_counts_and_class_stats(frame, bys)[0]

    def group_counts_and_class_stats(self, frame: Any, bys: Sequence[Sequence[str]], classes: Any = None,
                                     by: Sequence[str] = ()) -> tuple[list[pd.DataFrame], dict[str, int] | None]:
        """:meth:`group_counts` of ``frame`` and, when ``classes`` is given, :meth:`class_stats`
        of ``classes`` by ``by``, in one computation: where both frames derive from the same
        table, Dask reads and encodes each partition once for both."""
        parts = [self._sizes(frame, b, max(1, frame.npartitions // 4)).to_frame(COUNT).reset_index() for b in bys]
        stats = [] if classes is None else self._class_stats_parts(classes, by)
        out = self._compute(*parts, *stats)
        counts = [p.reset_index(drop=True) for p in out[: len(parts)]]
        return counts, (None if classes is None else _class_stats(out[len(parts):]))

    def grouped_partitions(self, frame: Any, by: Sequence[str], keys: Sequence[str]) -> Iterator[pd.DataFrame]:
        """Counts of the distinct tuples of ``by``, streamed to the driver partition by
        partition, every tuple of one ``keys`` value (a class) in one partition."""
        by = list(by)
        nparts = max(1, frame.npartitions)
        # each partition's tuples counted where they are, one shuffle by class, the counts of a
        # tuple from different partitions added up: one shuffle (a split-out group-by followed by
        # a shuffle by class moved the data twice)
        local, total = _CountBy(by), _CountBy(by, COUNT)
        g = frame.map_partitions(local, meta=local(frame._meta))
        g = g.shuffle(on=list(keys), npartitions=nparts, shuffle_method=self.shuffle_method)
        g = self._persist(g.map_partitions(total, meta=total(g._meta)))
        for part in g.to_delayed():
            yield self._compute(part)[0]

    def class_stats(self, frame: Any, by: Sequence[str]) -> dict[str, int]:
        """Number of classes (distinct ``by`` tuples), smallest and largest class, ``Σ |E|²``."""
        return _class_stats(self._compute(*self._class_stats_parts(frame, by)))

    def _class_stats_parts(self, frame: Any, by: Sequence[str]) -> list[Any]:
        sizes = self._sizes(frame, by, max(1, frame.npartitions // 4)).astype("int64")
        return [sizes.shape[0], sizes.min(), sizes.max(), (sizes * sizes).sum()]

    def size_frequencies(self, frame: Any, by: Sequence[str]) -> pd.Series:
        """Frequency of class sizes: index = class size, value = number of classes of that size."""
        sizes = self._sizes(frame, by, max(1, frame.npartitions // 4)).astype("int64")
        # one output partition: a few thousand distinct sizes at most (a split output shuffles an unnamed index)
        return self._compute(sizes.value_counts(split_out=1))[0].sort_index()

    def sums(self, frame: Any, columns: Sequence[str]) -> dict[str, int]:
        if not columns:
            return {}
        vals = self._compute(*[frame[c].astype("int64").sum() for c in columns])
        return {c: int(v) for c, v in zip(columns, vals)}

    def count(self, frame: Any) -> int:
        return int(self._compute(frame.shape[0])[0])

    def shuffle(self, frame: Any, on: str, npartitions: int) -> Any:
        return frame.shuffle(on=on, npartitions=max(1, npartitions), shuffle_method=self.shuffle_method)

    def write_parquet(self, frame: Any, path: Path) -> None:
        kw = {} if self.scheduler is None else {"compute_kwargs": {"scheduler": self.scheduler}}
        with self._config():
            frame.to_parquet(str(path), write_index=False, **kw)

    @staticmethod
    def empty_like(meta: pd.DataFrame) -> pd.DataFrame:
        return meta.iloc[:0]


class _Nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


@contextlib.contextmanager
def shown_progress(scheduler: Any, enabled: bool, out: Any = None) -> Iterator[None]:
    """What the command line shows while Dask works (``--progress``): on a local scheduler
    (``"sync"``, ``"threads"``, ``"processes"``) Dask's progress bar for every computation; on
    a distributed ``Client`` the address of its dashboard (task stream, progress, memory per
    worker), printed once. Both go to ``out`` (standard error by default), never to standard
    output, which carries the JSON summary."""
    import sys

    stream = sys.stderr if out is None else out
    if not enabled:
        yield
        return
    if isinstance(scheduler, str) or scheduler is None:
        from dask.diagnostics import ProgressBar

        with ProgressBar(out=stream, dt=0.5):
            yield
        return
    link = getattr(scheduler, "dashboard_link", None)
    print(f"ktype: Dask is running the job; its dashboard: {link or '(none: the scheduler runs without one)'}",
          file=stream, flush=True)
    yield


class _CountBy:
    """Partition -> its distinct tuples of ``by`` with their number of rows, or with the sum of
    the column ``weights`` (column :data:`COUNT`, int64). Picklable."""

    def __init__(self, by: Sequence[str], weights: str | None = None) -> None:
        self.by, self.weights = list(by), weights

    def __call__(self, part: pd.DataFrame) -> pd.DataFrame:
        grouped = part.groupby(self.by, sort=False)
        sizes = grouped.size() if self.weights is None else grouped[self.weights].sum()
        return sizes.astype("int64").rename(COUNT).reset_index()


def _class_stats(values: Sequence[Any]) -> dict[str, int]:
    classes, smallest, largest, sq = values
    if int(classes) == 0:
        return {"classes": 0, "smallest": 0, "largest": 0, "sum_sq": 0}
    return {"classes": int(classes), "smallest": int(smallest), "largest": int(largest), "sum_sq": int(sq)}


def _is_cluster_failure(e: BaseException) -> bool:
    """An exception of Dask's distributed runtime (a killed worker, a closed comm, a failed
    p2p shuffle): raised by ``distributed`` itself, not re-raised from a task's own code."""
    if type(e).__module__.split(".")[0] == "distributed":
        return True
    # a p2p shuffle whose worker died ends in a plain RuntimeError raised from distributed.shuffle
    return isinstance(e, RuntimeError) and "P2P" in str(e) and "failed" in str(e)


class _TooManyRows(Exception):
    def __init__(self, rows: int) -> None:
        super().__init__(rows)
        self.rows = rows


def as_int(values: Any) -> np.ndarray:
    return np.asarray(values, dtype=np.int64)
