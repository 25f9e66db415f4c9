"""Measures over equivalence classes: discernibility, average class size, classification."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._grouping import group_rows
from ..release import Release
from ._base import MeasureUnavailable, measure, require_source

__all__ = ["discernibility", "average_class_size", "classification_metric", "class_sizes"]


def class_sizes(release: Release) -> tuple[np.ndarray, np.ndarray]:
    """Equivalence classes of the published (non-suppressed) rows.

    Returns ``(class_of_row, sizes)``; suppressed rows get class ``-1``.
    """
    keep = ~np.asarray(release.suppressed, dtype=bool)
    class_of = np.full(release.n, -1, dtype=np.int64)
    if not keep.any():
        return class_of, np.zeros(0, dtype=np.int64)
    ids, g = group_rows(release.lo[keep], release.hi[keep])
    class_of[keep] = ids
    return class_of, np.bincount(ids, minlength=g).astype(np.int64)


def _check_k(k: object, name: str, param: str = "k") -> int:
    if k is None:
        raise MeasureUnavailable(f"{name} needs {param}=...")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        from ..exceptions import InvalidParameterError

        raise InvalidParameterError(f"The {param!r} parameter of {name} must be an int in the range [1, inf). Got {k!r} instead.")
    return int(k)


@measure(
    "discernibility",
    summary="Discernibility C_DM: sum of |E|^2 over classes + |D| per suppressed record",
    reference="Bayardo & Agrawal 2005; Ciriani et al., k-Anonymity (survey), 2007",
    bounds="[n, n^2]",
)
def discernibility(release: Release, *, suppress_below: int | None = None) -> float:
    """Discernibility metric C_DM.

    .. math::  C_{DM} = \\sum_{E : |E| \\ge k} |E|^2 + \\sum_{E : |E| < k} |D| \\cdot |E|

    (Bayardo & Agrawal, ICDE 2005). Each published record is charged the size of
    its equivalence class; each **suppressed** record is charged ``|D|``, the number of
    records of the original table (``release.dataset.n``).

    Parameters
    ----------
    release : Release
    suppress_below : int, optional
        Variant. ``None`` (default): charge what was published — every published class
        costs ``|E|²`` whatever its size, suppressed records ``|D|`` each (the metric's
        formula applied to a release that already suppressed its outliers). An int ``k``:
        the Bayardo–Agrawal form, where published classes smaller than ``k`` are also
        charged ``|D|`` per record, as if they had been suppressed.

    Returns
    -------
    float
        Lower is better; ``n`` for distinct published records, ``n²`` for one class.
    """
    _, sizes = class_sizes(release)
    big_n = float(release.dataset.n)
    if suppress_below is None:
        small = np.zeros(len(sizes), dtype=bool)
    else:
        small = sizes < _check_k(suppress_below, "discernibility", "suppress_below")
    total = float((sizes[~small].astype(np.float64) ** 2).sum())
    total += big_n * float(sizes[small].sum())
    total += big_n * float(release.n_suppressed)
    return total


@measure(
    "average_class_size",
    summary="Normalized average equivalence class size C_AVG = (records/classes)/k",
    reference="LeFevre, DeWitt & Ramakrishnan, Mondrian (ICDE 2006); Ciriani et al., k-Anonymity (survey), 2007",
    bounds="[1/k, n/k]",
    requires=("k",),
)
def average_class_size(release: Release, *, k: int | None = None) -> float:
    """Normalized average equivalence class size.

    .. math::  C_{AVG} = \\frac{|T| / \\#\\text{classes}}{k}

    (LeFevre, DeWitt & Ramakrishnan, ICDE 2006). ``|T|`` counts the **published** records:
    suppressed records are removed from the table and form no class (they cannot be
    "fully generalized" here without creating a class of their own). An all-suppressed
    release has no class and returns ``inf`` (worst).

    Parameters
    ----------
    k : int
        The anonymity parameter (required).

    Returns
    -------
    float
        1 is ideal for a k-anonymous release; lower is better.
    """
    k = _check_k(k, "average_class_size")
    _, sizes = class_sizes(release)
    if len(sizes) == 0:
        return float("inf")
    return float(sizes.sum() / len(sizes) / k)


def _labels(release: Release, label: str) -> np.ndarray:
    ds = release.dataset
    if label in ds.sensitive:
        return np.asarray(release.sensitive_codes(label), dtype=np.int64)
    if label in getattr(ds, "insensitive", []):
        src = require_source(release, "classification_metric")
        codes, _ = pd.factorize(ds.data[label].to_numpy()[src], use_na_sentinel=False)
        return codes.astype(np.int64)
    raise MeasureUnavailable(
        f"classification_metric: label column {label!r} must be a sensitive or insensitive column "
        f"(sensitive: {ds.sensitive}, insensitive: {list(getattr(ds, 'insensitive', []))})."
    )


@measure(
    "classification_metric",
    summary="Classification metric CM: share of records suppressed or not of their class's majority label",
    reference="Iyengar 2002; Bayardo & Agrawal 2005; Ciriani et al., k-Anonymity (survey), 2007",
    bounds="[0, 1]",
    requires=("label",),
)
def classification_metric(release: Release, *, label: str | None = None) -> float:
    """Classification metric CM (Iyengar), normalized by the number of records.

    .. math::  CM = \\frac1N \\sum_{t} \\text{penalty}(t)

    with penalty 1 if ``t`` is suppressed or its class label differs from the majority
    label of its equivalence class, else 0 (Iyengar, KDD 2002). Suppressed records are
    charged 1 each (Iyengar's definition; they are not "fully generalized" into a
    class). With ties for the majority, the count of penalized records is the class size
    minus the majority count, whichever label is chosen.

    Parameters
    ----------
    label : str
        The class-label column: a sensitive or insensitive column of the dataset
        (required).

    Returns
    -------
    float
        In ``[0, 1]``; lower is better.
    """
    if label is None:
        raise MeasureUnavailable("classification_metric needs label=...")
    if release.n == 0:
        return 0.0
    y = _labels(release, label)
    class_of, sizes = class_sizes(release)
    pub = class_of >= 0
    penalty = float(release.n_suppressed)
    if pub.any():
        g = len(sizes)
        n_lab = int(y.max()) + 1
        pairs, cnt = np.unique(class_of[pub] * n_lab + y[pub], return_counts=True)
        top = np.zeros(g, dtype=np.int64)
        np.maximum.at(top, pairs // n_lab, cnt)
        penalty += float((sizes - top).sum())
    return penalty / release.n
