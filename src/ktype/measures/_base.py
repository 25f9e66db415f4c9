"""Shared machinery of the information-loss measures: the registry, ``compute`` and helpers.

Every measure is a function ``name(release, **opts) -> float`` registered with
:func:`measure`. It reads only the release and the dataset it carries (a measure never
imports an algorithm; docs/design/layers.md). Per-cell cost arrays (``*_cells``) take
``(dataset, lo, hi)`` so that algorithms can evaluate candidate generalizations cheaply.
"""

from __future__ import annotations

import difflib
import inspect
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..data.dataset import Dataset
from ..data.hierarchy import Hierarchy
from ..exceptions import InternalError, InvalidParameterError, KtypeError
from ..release import Release

__all__ = [
    "MeasureInfo",
    "MeasureResults",
    "MeasureUnavailable",
    "MEASURES",
    "compute",
    "describe",
    "measure",
]


class MeasureUnavailable(KtypeError, ValueError):
    """A measure cannot be computed for this release: a required option is missing
    (``k=``, ``label=``) or the release lacks what the measure needs (levels of a
    full-domain release, a hierarchy tree, the link to input rows).

    :func:`compute` skips such measures and records the reason in ``results.skipped``.
    """


@dataclass(frozen=True)
class MeasureInfo:
    """Metadata of a registered measure (drives :func:`compute`, :func:`describe` and the CLI)."""

    name: str
    func: Callable[..., float]
    summary: str
    reference: str
    better: str = "lower"  # "lower" or "higher"
    bounds: str = ""  # e.g. "[0, 1]"
    requires: tuple[str, ...] = ()  # options without a default

    @property
    def options(self) -> dict[str, Any]:
        """Keyword options and their defaults (``None`` for required ones)."""
        sig = inspect.signature(self.func)
        return {p.name: (None if p.default is inspect.Parameter.empty else p.default)
                for p in sig.parameters.values() if p.kind is inspect.Parameter.KEYWORD_ONLY}


class MeasureResults(dict):
    """``dict[str, float]`` of computed measures, plus ``skipped``: name -> reason."""

    def __init__(self, *args: Any, skipped: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.skipped: dict[str, str] = dict(skipped or {})


_INFO: dict[str, MeasureInfo] = {}
#: name -> measure function, in registration order
MEASURES: dict[str, Callable[..., float]] = {}


def measure(
    name: str,
    *,
    summary: str,
    reference: str,
    better: str = "lower",
    bounds: str = "",
    requires: Iterable[str] = (),
) -> Callable[[Callable[..., float]], Callable[..., float]]:
    """Register a measure function under ``name`` (metadata only; no wrapping)."""

    def deco(func: Callable[..., float]) -> Callable[..., float]:
        if name in _INFO:  # pragma: no cover - programming error
            raise InternalError(f"measure {name!r} registered twice")
        _INFO[name] = MeasureInfo(name, func, summary, reference, better, bounds, tuple(requires))
        MEASURES[name] = func
        return func

    return deco


def _reorder(names: list[str]) -> None:
    """Put the registry in a fixed, documented order (others keep theirs, at the end)."""
    order = [n for n in names if n in _INFO] + [n for n in _INFO if n not in names]
    items = [(n, _INFO[n]) for n in order]
    _INFO.clear()
    MEASURES.clear()
    for n, mi in items:
        _INFO[n] = mi
        MEASURES[n] = mi.func


def info(name: str) -> MeasureInfo:
    """Metadata of one measure; unknown names list the valid ones."""
    if name not in _INFO:
        raise _unknown("measure", name, list(_INFO))
    return _INFO[name]


def _unknown(what: str, name: str, valid: list[str]) -> InvalidParameterError:
    close = difflib.get_close_matches(name, valid, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return InvalidParameterError(f"Unknown {what} {name!r}.{hint} Valid: {', '.join(map(repr, sorted(valid)))}.")


def compute(release: Release, names: Iterable[str] | None = None, *, strict: bool = False, progress: Any = None,
            **opts: Any) -> MeasureResults:
    """Compute several measures of a release.

    Parameters
    ----------
    release : Release
        The release (it carries its dataset).
    names : iterable of str, optional
        Measures to compute (default: all of :data:`MEASURES`).
    strict : bool, default False
        Raise :class:`MeasureUnavailable` instead of skipping a measure that cannot be
        computed.
    progress : None, bool, "auto" or callable, optional
        Report a stage ``"measures"`` counting the measures done (see :mod:`ktype._progress`:
        a callable receives each :class:`~ktype._progress.ProgressEvent`).
    **opts
        Options passed to every selected measure that accepts them (``k=5``,
        ``label="salary-class"``, ``normalize=True``, ...). An option no selected measure
        accepts is an error.

    Returns
    -------
    MeasureResults
        A ``dict`` name -> value; ``results.skipped`` maps each skipped measure to the
        reason (e.g. ``"average_class_size needs k=..."``).
    """
    selected = list(_INFO) if names is None else [info(n).name for n in names]
    accepted: set[str] = set()
    for n in selected:
        accepted |= set(_INFO[n].options)
    for key in opts:
        if key not in accepted:
            raise _unknown("measure option", key, sorted(accepted))
    from .._progress import reporting, stage

    out = MeasureResults()
    with reporting(progress), stage("measures", total=len(selected)) as st:
        for i, n in enumerate(selected):
            st.update(i, detail=n)
            mi = _INFO[n]
            kw = {k: v for k, v in opts.items() if k in mi.options}
            missing = [r for r in mi.requires if kw.get(r) is None]
            try:
                if missing:
                    raise MeasureUnavailable(f"{n} needs {', '.join(m + '=...' for m in missing)}")
                out[n] = float(mi.func(release, **kw))
            except MeasureUnavailable as e:
                if strict:
                    raise
                out.skipped[n] = str(e)
    return out


def describe() -> list[dict[str, str]]:
    """One row per measure for the CLI listing: name, summary, better, bounds, options, reference."""
    rows = []
    for mi in _INFO.values():
        opts = ", ".join(
            f"{k}=..." if k in mi.requires else f"{k}={v!r}" for k, v in mi.options.items()
        )
        rows.append(
            {
                "name": mi.name,
                "summary": mi.summary,
                "better": mi.better,
                "bounds": mi.bounds,
                "options": opts,
                "reference": mi.reference,
            }
        )
    return rows


# ---------------------------------------------------------------------------- helpers
def check_cells(dataset: Dataset, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Coerce ``lo``/``hi`` to int arrays of shape ``(n, r)`` matching the dataset."""
    lo = np.asarray(lo)
    hi = np.asarray(hi)
    if lo.ndim != 2 or lo.shape != hi.shape or lo.shape[1] != dataset.r:
        raise InvalidParameterError(
            f"lo and hi must both have shape (n, {dataset.r}) for this dataset; got {lo.shape} and {hi.shape}."
        )
    return lo.astype(np.int64, copy=False), hi.astype(np.int64, copy=False)


@dataclass
class _ColumnStats:
    """Per-QI cumulative statistics over leaf ranks, from the ORIGINAL data."""

    count_cum: list[np.ndarray] = field(default_factory=list)  # C[t] = #records with rank < t
    nlogn_cum: list[np.ndarray] = field(default_factory=list)  # S[t] = sum_{a<t} N(a) log2 N(a)
    counts: list[np.ndarray] = field(default_factory=list)


#: per dataset object (weakly held: an entry goes with its dataset), with the encoding it was computed from
_STATS_CACHE: weakref.WeakKeyDictionary[Any, tuple[Any, _ColumnStats]] = weakref.WeakKeyDictionary()


def column_stats(dataset: Dataset) -> _ColumnStats:
    """Leaf counts ``N_j(a)`` and cumulative sums, so that ``N_j(B)`` and
    ``Σ_{a∈B} N_j(a) log2 N_j(a)`` of any interval ``B`` are two lookups: both are additive
    over the leaves of ``B``, which is all the entropy measures of Gionis & Tassa (TKDE 2009,
    §4.2-4.4) need. Cached per dataset object."""
    hit = _STATS_CACHE.get(dataset)
    if hit is not None and hit[0] is dataset.X:
        return hit[1]
    st = _ColumnStats()
    X = dataset.X
    for j, h in enumerate(dataset.hierarchies):
        cnt = np.bincount(X[:, j], minlength=h.size).astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            nlogn = np.where(cnt > 0, cnt * np.log2(np.where(cnt > 0, cnt, 1.0)), 0.0)
        st.counts.append(cnt)
        st.count_cum.append(np.concatenate([[0.0], np.cumsum(cnt)]))
        st.nlogn_cum.append(np.concatenate([[0.0], np.cumsum(nlogn)]))
    _STATS_CACHE[dataset] = (dataset.X, st)
    return st


def node_heights(h: Hierarchy) -> np.ndarray:
    """Height of each node of a tree hierarchy: the longest path down to a leaf.

    For a balanced tree this is the node's *level* (0 = leaves, ``h.height`` = root).
    """
    return np.array(h.arrays().node_height, dtype=np.int64)  # a writable copy of the shared bundle


def require_source(release: Release, measure_name: str) -> np.ndarray:
    """The released rows' input rows, or :class:`MeasureUnavailable`."""
    if release.source is None:
        raise MeasureUnavailable(
            f"{measure_name} needs the original records, but this release was read from a published file."
        )
    return release.source
