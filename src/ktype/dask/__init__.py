"""ktype on Dask: check, measure and anonymize partitioned tables larger than memory, with
the verdicts and measures of the in-memory functions (``pip install 'ktype[dask]'``).

Public API (see docs/scale.md):

* :func:`from_dask` (a ``dask.dataframe.DataFrame`` or a Parquet dataset path, roles and
  hierarchies as for :class:`ktype.Dataset`) -> :class:`DaskTable`
* :func:`check` -> one :class:`ModelSummary` per class model (k-anonymity, ℓ-diversity,
  p-sensitivity, t-closeness)
* :func:`measures` (``loss_metric``, ``ncp``, ``gcp``, ``non_uniform_entropy``,
  ``discernibility``, ``average_class_size``), :func:`class_size_stats`, :func:`risk`
* :func:`flash` (optimal full-domain, search on the distributed bottom frequency set),
  :func:`mondrian` (distributed top-level cuts, in-memory Mondrian per region) ->
  :class:`DaskRelease`
* :func:`local_recoding` (``k_concealment``, ``freeform_sortgreedy``: regions of at least
  k records, each solved in memory on a worker) -> :class:`DaskRelease`
* :func:`write_release` (partitioned Parquet, verified as written, renamed into place) and
  :func:`anonymize` (what the command line calls)

The engine sits behind :class:`ktype.dask._engine.Engine`; Dask is imported only when this
package's functions are used, never by ``import ktype``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import attach

_LAZY: dict[str, tuple[str, str | None]] = {
    "DaskTable": ("ktype.dask._table", "DaskTable"),
    "DaskRelease": ("ktype.dask._table", "DaskRelease"),
    "ModelSummary": ("ktype.dask._table", "ModelSummary"),
    "from_dask": ("ktype.dask._table", "from_dask"),
    "check": ("ktype.dask._table", "check"),
    "measures": ("ktype.dask._table", "measures"),
    "class_size_stats": ("ktype.dask._table", "class_size_stats"),
    "risk": ("ktype.dask._risk", "risk"),
    "flash": ("ktype.dask._algorithms", "flash"),
    "mondrian": ("ktype.dask._algorithms", "mondrian"),
    "write_release": ("ktype.dask._write", "write_release"),
    "anonymize": ("ktype.dask._algorithms", "anonymize"),
    "local_recoding": ("ktype.dask._local", "local_recoding"),
}

__all__ = ["DaskTable", "DaskRelease", "ModelSummary", "from_dask", "check", "measures", "class_size_stats", "risk",
           "flash", "mondrian", "write_release", "anonymize", "local_recoding"]

_getattr, __dir__ = attach(__name__, _LAZY, __all__)


def __getattr__(name: str):  # noqa: ANN202 - PEP 562
    if name in _LAZY:
        try:
            import dask.dataframe  # noqa: F401
        except ImportError:
            from ..exceptions import InvalidParameterError

            raise InvalidParameterError(
                "ktype.dask needs Dask: pip install 'ktype[dask]' (dask[dataframe] and distributed)."
            ) from None
    return _getattr(name)


if TYPE_CHECKING:
    from ._algorithms import anonymize, flash, mondrian
    from ._local import local_recoding
    from ._risk import risk
    from ._table import DaskRelease, DaskTable, ModelSummary, check, class_size_stats, from_dask, measures
    from ._write import write_release
