"""k-anonymity by micro-aggregation: MDAV and V-MDAV.

Survey: Ciriani, De Capitani di Vimercati, Foresti, Samarati, "k-Anonymity", in *Secure Data
Management in Decentralized Systems*, Springer 2007, §6 ("k-Anonymity and Micro-aggregation",
after Domingo-Ferrer & Mateo-Sanz): records are partitioned into groups of at least k records
and every quasi-identifier value is replaced by its group's average (centroid); the partition
should minimize the within-group sum of squares (SSE), an NP-hard problem. MDAV is the fixed
group-size heuristic of Domingo-Ferrer & Mateo-Sanz (IEEE TKDE 14(1), 2002) in the form of Domingo-Ferrer & Torra (Data Mining and
Knowledge Discovery 11(2), 2005, Algorithm MDAV-generic); V-MDAV is the variable group-size
version of Solanas & Martínez-Ballesté (COMPSTAT 2006).

Two outputs:

* :func:`microaggregate` publishes the centroids (the survey's micro-aggregation): numeric
  quasi-identifiers only; the table is checked by
  :func:`ktype.models.microaggregation.check_microaggregation` before it is returned.
* the registered algorithms ``mdav`` and ``v_mdav`` publish each group as a generalization
  (per QI, the tightest allowed value covering the group: ``[min-max]`` for ordered
  attributes, the lowest common ancestor for hierarchies), a local recoding verified by the
  registry like every other algorithm, so that a micro-aggregation partition can be audited,
  measured and compared with the other algorithms.

Deviations and choices, recorded:

* Distances are Euclidean on z-scores (each QI centred and divided by its standard deviation;
  a constant column contributes nothing), as in Domingo-Ferrer & Torra's experiments. For a
  QI without numeric values (the registered algorithms only) the leaf rank is used as its
  value, an ordinal encoding.
* Groups have k..2k-1 records in MDAV (the survey writes "between k and 2k"; the source
  bounds them by 2k-1). V-MDAV grows a group up to 2k-1 records; the fewer than k records
  left at the end join the group with the nearest centroid and may make it larger.
* Ties (equal distances) go to the record first in a canonical order of the records by
  content, so the groups do not depend on the input row order.
* Searches use a k-d tree over the remaining records (``_kernels``), not the quadratic scans
  of the original: the groups are the same, up to ties between equal distances.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..._grouping import lexsort_rows
from ..._validation import Interval
from ...data.dataset import Dataset
from ...exceptions import DataError, InvalidParameterError, VerificationError
from ...models._base import PrivacyModel
from ...models.kanonymity import KAnonymity
from ...release import Release, _sort_codes
from .._order import content_order
from .._registry import register

__all__ = ["mdav", "v_mdav", "microaggregate", "Microaggregation", "partition", "sse_sst"]

_REFERENCE = ("Domingo-Ferrer & Mateo-Sanz, IEEE TKDE 14(1) 2002; Domingo-Ferrer & Torra, DMKD 11(2) 2005 (MDAV); "
              "survey §6")


def _coordinates(dataset: Dataset, *, numeric_only: bool) -> np.ndarray:
    """Per QI, each record's numeric value (leaf rank when not numeric), as z-scores."""
    cols = []
    for j, h in enumerate(dataset.hierarchies):
        vals = h.numeric_values()
        if vals is None:
            if numeric_only:
                raise DataError(
                    f"Micro-aggregation replaces values by group means, and quasi-identifier {h.name!r} is not "
                    "numeric; make it an insensitive or sensitive column, or use the registered 'mdav' algorithm, "
                    "which publishes each group as ranges instead of means."
                )
            vals = np.arange(h.size, dtype=np.float64)
        cols.append(vals[dataset.X[:, j]])
    P = np.column_stack(cols).astype(np.float64)
    P -= P.mean(axis=0)
    sd = P.std(axis=0)
    P /= np.where(sd > 0, sd, 1.0)
    return np.ascontiguousarray(P)


def partition(dataset: Dataset, k: int, *, variable: bool = False, gamma: float = 0.2,
              numeric_only: bool = False) -> tuple[np.ndarray, int, np.ndarray]:
    """Group label of every record (dataset order), the number of groups, and the z-scores.

    ``variable`` selects V-MDAV (with its ``gamma``); otherwise MDAV.
    """
    from ._kernels import mdav_kernel

    if not 1 <= k <= dataset.n:
        raise InvalidParameterError(f"k={k} must be between 1 and the number of rows ({dataset.n}).")
    P = _coordinates(dataset, numeric_only=numeric_only)
    order = content_order(dataset)
    lab_sorted, g = mdav_kernel(np.ascontiguousarray(P[order]), int(k), bool(variable), float(gamma))
    label = np.empty(dataset.n, dtype=np.int64)
    label[order] = lab_sorted
    return label, int(g), P


def sse_sst(P: np.ndarray, label: np.ndarray, n_groups: int) -> tuple[float, float]:
    """Within-group sum of squares (SSE) and total sum of squares (SST) of the rows of ``P``."""
    cnt = np.bincount(label, minlength=n_groups).astype(np.float64)
    sse = 0.0
    for j in range(P.shape[1]):  # columns, not rows
        s = np.bincount(label, weights=P[:, j], minlength=n_groups)
        mean = np.divide(s, cnt, out=np.zeros_like(s), where=cnt > 0)
        sse += float(((P[:, j] - mean[label]) ** 2).sum())
    sst = float(((P - P.mean(axis=0)) ** 2).sum())
    return sse, sst


def _release(dataset: Dataset, label: np.ndarray, g: int, P: np.ndarray, method: str, gamma: float | None) -> Release:
    """Each group published as its tightest allowed box."""
    n, r = dataset.n, dataset.r
    lo = np.empty((n, r), dtype=np.int32)
    hi = np.empty((n, r), dtype=np.int32)
    for j, h in enumerate(dataset.hierarchies):  # columns, not rows
        x = dataset.X[:, j].astype(np.int64)
        glo = np.full(g, np.iinfo(np.int64).max, dtype=np.int64)
        ghi = np.full(g, -1, dtype=np.int64)
        np.minimum.at(glo, label, x)
        np.maximum.at(ghi, label, x)
        clo, chi = h.closure(glo.astype(np.int32), ghi.astype(np.int32))
        lo[:, j] = clo[label]
        hi[:, j] = chi[label]
    sse, sst = sse_sst(P, label, g)
    sizes = np.bincount(label, minlength=g)
    prov: dict[str, Any] = {
        "microaggregation": {
            "method": method,
            "groups": g,
            "smallest_group": int(sizes.min()),
            "largest_group": int(sizes.max()),
            "sse": sse,
            "sst": sst,
            "sse_sst": sse / sst if sst > 0 else 0.0,
            **({"gamma": gamma} if gamma is not None else {}),
        }
    }
    return Release.build(dataset, lo, hi, recoding="local", provenance=prov, classes=label)


@register(
    "mdav",
    models=(KAnonymity,),
    recoding="local",
    optimal=False,
    randomized=False,
    order_invariant=True,
    constraints={},
    description="Micro-aggregation by MDAV: fixed-size groups of k..2k-1 nearest records, published as ranges.",
    reference=_REFERENCE,
    combinable=False,
)
def mdav(dataset: Dataset, models: tuple[PrivacyModel, ...]) -> Release:
    """MDAV groups (survey §6, Domingo-Ferrer & Mateo-Sanz 2002), each published as a generalization.

    Returns a local recoding: every group of k..2k-1 records publishes, per QI, the tightest
    allowed value covering its records. ``release.provenance["microaggregation"]`` holds the
    groups' SSE, the SST and SSE/SST on the z-scores of the QIs. For the centroids
    themselves (numeric QIs) use :func:`microaggregate`.

    Examples
    --------
    >>> import ktype
    >>> from ktype.models.kanonymity import KAnonymity
    >>> ds = ktype.load_adult(n=500, quasi_identifiers=["age", "sex", "race"])
    >>> rel = ktype.algorithms.run("mdav", ds, KAnonymity(5))
    >>> rel.provenance["microaggregation"]["smallest_group"] >= 5
    True
    """
    k = int(models[0].k)  # type: ignore[attr-defined]
    label, g, P = partition(dataset, k)
    return _release(dataset, label, g, P, "mdav", None)


@register(
    "v_mdav",
    models=(KAnonymity,),
    recoding="local",
    optimal=False,
    randomized=False,
    order_invariant=True,
    constraints={"gamma": [Interval(float, 0, None, closed="neither")]},
    description="Micro-aggregation by V-MDAV: variable-size groups (k..2k-1, grown while gamma allows), as ranges.",
    reference="Solanas & Martínez-Ballesté, V-MDAV, COMPSTAT 2006; survey §6",
    combinable=False,
)
def v_mdav(dataset: Dataset, models: tuple[PrivacyModel, ...], *, gamma: float = 0.2) -> Release:
    """V-MDAV groups (Solanas & Martínez-Ballesté 2006), each published as a generalization.

    A group of k nearest records is extended, up to 2k-1 records, by the nearest remaining
    record while its distance to the group is below ``gamma`` times its distance to the
    nearest other remaining record (``gamma`` = 0.2 is the authors' suggestion for scattered
    data; larger values give larger groups).
    """
    k = int(models[0].k)  # type: ignore[attr-defined]
    label, g, P = partition(dataset, k, variable=True, gamma=gamma)
    return _release(dataset, label, g, P, "v_mdav", gamma)


@dataclass
class Microaggregation:
    """A micro-aggregated table: every numeric QI value replaced by its group's mean.

    Attributes
    ----------
    table : pandas.DataFrame
        The published table: QIs replaced by their group means, sensitive and insensitive
        columns unchanged, identifiers removed, rows in a canonical order (sorted by content,
        so the order reveals nothing about the input's).
    k, method : int, str
        The parameters.
    n_groups : int
        Number of groups.
    sse, sst : float
        Within-group and total sum of squares of the QIs' z-scores.
    information_loss : float
        ``sse / sst`` (0 when every record is equal), in [0, 1].
    check : CheckResult
        The independent checker's verdict (always satisfied on a returned object).
    """

    table: pd.DataFrame
    k: int
    method: str
    n_groups: int
    sse: float
    sst: float
    information_loss: float
    check: Any = None
    #: input row of each published row (in memory only, for checks; never exported)
    _source: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64), repr=False)


def microaggregate(dataset: Dataset, k: int, *, method: str = "mdav", gamma: float = 0.2) -> Microaggregation:
    """Micro-aggregate the (numeric) quasi-identifiers of ``dataset`` into groups of at least k.

    Parameters
    ----------
    dataset : Dataset
        Every quasi-identifier must be numeric (the means are published).
    k : int
        Minimum group size, ``1 <= k <= n``.
    method : {"mdav", "v_mdav"}
        Fixed-size MDAV or variable-size V-MDAV.
    gamma : float
        V-MDAV's extension threshold (ignored by MDAV).

    Returns
    -------
    Microaggregation
        Verified by :func:`ktype.models.microaggregation.check_microaggregation` (every
        combination of published QI values occurs at least k times, and each equals the
        mean of the records published with it) before it is returned.

    Examples
    --------
    >>> import pandas as pd, ktype
    >>> from ktype.algorithms.microaggregation import microaggregate
    >>> df = pd.DataFrame({"age": [21, 22, 23, 50, 52, 54], "income": [10, 12, 11, 40, 44, 42]})
    >>> ma = microaggregate(ktype.Dataset(df, quasi_identifiers=["age", "income"]), 3)
    >>> sorted(set(map(tuple, ma.table[["age", "income"]].to_numpy().tolist())))
    [(22.0, 11.0), (52.0, 42.0)]
    """
    from ...models.microaggregation import check_microaggregation

    if method not in ("mdav", "v_mdav"):
        raise InvalidParameterError(f"The 'method' parameter of microaggregate must be 'mdav' or 'v_mdav'; got {method!r}.")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise InvalidParameterError(f"The 'k' parameter of microaggregate must be an int; got {k!r}.")
    if not (isinstance(gamma, (int, float)) and gamma > 0):
        raise InvalidParameterError(f"The 'gamma' parameter of microaggregate must be a number > 0; got {gamma!r}.")
    label, g, P = partition(dataset, int(k), variable=method == "v_mdav", gamma=float(gamma), numeric_only=True)
    sse, sst = sse_sst(P, label, g)
    out = {}
    cnt = np.bincount(label, minlength=g).astype(np.float64)
    for j, c in enumerate(dataset.quasi_identifiers):  # columns, not rows
        vals = dataset.hierarchies[j].numeric_values()[dataset.X[:, j]]  # type: ignore[index]
        out[c] = (np.bincount(label, weights=vals, minlength=g) / cnt)[label]
    for c in dataset.sensitive + dataset.insensitive:
        out[c] = dataset.data[c].to_numpy()
    table = pd.DataFrame(out)
    order = lexsort_rows([label] + [_sort_codes(table[c].to_numpy()) for c in dataset.sensitive + dataset.insensitive])
    # groups ordered by their centroid (content), rows inside a group by their other values
    g_order = np.lexsort([(np.bincount(label, weights=table[c].to_numpy(), minlength=g) / cnt)
                          for c in reversed(dataset.quasi_identifiers)])
    g_rank = np.empty(g, dtype=np.int64)
    g_rank[g_order] = np.arange(g)
    order = order[np.argsort(g_rank[label[order]], kind="stable")]
    table = table.iloc[order].reset_index(drop=True)
    res = check_microaggregation(dataset, table, order, int(k))
    if not res.satisfied:
        raise VerificationError(f"micro-aggregation produced a table that fails its check: {res.summary}.")
    return Microaggregation(table=table, k=int(k), method=method, n_groups=g, sse=sse, sst=sst,
                            information_loss=sse / sst if sst > 0 else 0.0, check=res, _source=order)
