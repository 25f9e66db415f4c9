"""Top-down specialization (TDS) for k-anonymity, guided by information gain and anonymity loss.

Survey: Ciriani et al., "k-Anonymity" (Springer 2007), §4.4 (heuristic algorithms, AG_ model:
"starts from the most general solution and iteratively specializes some values ... each
iteration picks a good specialization by a goodness metric trading information gain against
anonymity loss"). The algorithm and the score are those of Fung, Wang & Yu, "Top-Down
Specialization for Information and Privacy Preservation", ICDE 2005:

* a specialization ``v -> children(v)`` replaces, in the current cut of one attribute's
  taxonomy, the value ``v`` by its child values, for every record generalized to ``v``;
* ``InfoGain(v) = I(R_v) - Σ_c |R_c| / |R_v| · I(R_c)`` with ``I(R) = -Σ_cls p log2 p`` the
  entropy of the class attribute over the records ``R`` (``R_v``: the records generalized to
  ``v``; ``R_c``: those that ``c`` generalizes after the specialization);
* ``AnonyLoss(v) = A - A_v``, the anonymity ``A`` being the smallest number of records sharing
  one combination of QI values (a single virtual identifier made of all QIs), before and after
  specializing v;
* ``Score(v) = InfoGain(v) / (AnonyLoss(v) + 1)``; a specialization is *valid* if ``A_v >= k``;
  each iteration performs the valid specialization of highest score.

Continuous (ordered) attributes have no taxonomy: as in the paper, a value (an interval) is
split in two at the threshold of highest information gain, computed on the fly among the
values present in its records.

Deviations, recorded:

* The paper stops when no valid specialization is *beneficial* (positive information gain);
  here valid specializations with zero gain are performed too, after every gainful one (their
  score is 0), so the final cut is maximal (no valid specialization remains) and k = 1 returns
  the original values. Pass ``zero_gain=False`` for the paper's stopping rule.
* The child intervals of a split ordered value are tight around the values present in its
  records (an interval holding one distinct value becomes that value).
* The class attribute is the dataset's first sensitive attribute (or ``label=``).
* Ties of the score go to the attribute first in QI order, then the lowest value; the result
  does not depend on the row order. The paper's TIPS index is replaced by recomputing the
  classes (``group_rows``) after each specialization and bincounts per candidate, O(n · r) per
  iteration.
"""

from __future__ import annotations

import numpy as np

from .._grouping import group_rows
from ..data.dataset import Dataset
from ..exceptions import DataError
from ..models._base import PrivacyModel
from ..models.kanonymity import KAnonymity
from ..release import Release
from ._registry import register

__all__ = ["tds", "info_gain", "class_labels"]


def class_labels(dataset: Dataset, label: str | None, algorithm: str) -> tuple[str, np.ndarray, int]:
    """The class attribute of an entropy-guided algorithm: (column, class index per row 0..c-1, c).

    ``label`` names a released column; by default the dataset's first sensitive attribute.
    """
    col = label if label is not None else (dataset.sensitive[0] if dataset.sensitive else None)
    if col is None:
        raise DataError(f"{algorithm} needs a class attribute for its information gain: give the dataset a sensitive "
                        "column (e.g. sensitive=['salary-class']) or pass label='column'.")
    if col in dataset.sensitive:
        y = np.asarray(dataset.sensitive_codes[col], dtype=np.int64)
    elif col in dataset.data.columns and col not in dataset.identifiers:
        from ..release import _sort_codes

        y = _sort_codes(dataset.data[col].to_numpy()).astype(np.int64)
    else:
        raise DataError(f"{algorithm}: label column {col!r} is not a released column of the dataset "
                        f"(sensitive: {dataset.sensitive}, insensitive: {dataset.insensitive}).")
    y = np.unique(y, return_inverse=True)[1].ravel()
    return col, y, int(y.max()) + 1 if len(y) else 1


def _entropy_rows(counts: np.ndarray) -> np.ndarray:
    """Entropy (bits) of each row of a count matrix."""
    tot = counts.sum(axis=1, keepdims=True).astype(np.float64)
    p = np.divide(counts, tot, out=np.zeros(counts.shape, dtype=np.float64), where=tot > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return t.sum(axis=1)


def info_gain(y: np.ndarray, child: np.ndarray, n_classes: int) -> float:
    """``I(R_v) - Σ_c |R_c|/|R_v| I(R_c)`` for class labels ``y`` and child indices ``child`` of R_v."""
    if len(y) == 0:
        return 0.0
    nch = int(child.max()) + 1
    cnt = np.bincount(child * n_classes + y, minlength=nch * n_classes).reshape(nch, n_classes)
    size = cnt.sum(axis=1)
    whole = _entropy_rows(cnt.sum(axis=0, keepdims=True))[0]
    return float(whole - (size / len(y) * _entropy_rows(cnt)).sum())


def _thresholds(x: np.ndarray, y: np.ndarray, n_classes: int) -> list[tuple[np.ndarray, float]]:
    """Binary splits of ordered ranks ``x`` between present values, by decreasing information
    gain (ties: the lower threshold first): (child per row, gain) each; empty when one value is
    present."""
    vals, inv = np.unique(x, return_inverse=True)
    if len(vals) < 2:
        return []
    cnt = np.bincount(inv * n_classes + y, minlength=len(vals) * n_classes).reshape(len(vals), n_classes)
    left = np.cumsum(cnt, axis=0)[:-1]  # split after value index i (i = 0..m-2)
    right = cnt.sum(axis=0)[None, :] - left
    nl, nr = left.sum(axis=1), right.sum(axis=1)
    whole = _entropy_rows(cnt.sum(axis=0, keepdims=True))[0]
    gain = np.maximum(whole - (nl * _entropy_rows(left) + nr * _entropy_rows(right)) / len(x), 0.0)
    gain = np.where(gain <= 1e-12, 0.0, gain)
    order = np.lexsort((np.arange(len(gain)), -np.round(gain, 12)))  # equal up to rounding: the lower threshold
    return [((inv > i).astype(np.int64), float(gain[i])) for i in order]


@register(
    "tds",
    models=(KAnonymity,),
    recoding="local",
    optimal=False,
    randomized=False,
    order_invariant=True,
    constraints={"label": [str, None], "zero_gain": [bool]},
    description="Top-down specialization: from the most general cut, specialize by InfoGain/(AnonyLoss+1).",
    reference="Fung, Wang & Yu, Top-down specialization for information and privacy preservation, ICDE 2005; survey §4.4",
    combinable=False,
)
def tds(dataset: Dataset, models: tuple[PrivacyModel, ...], *, label: str | None = None, zero_gain: bool = True) -> Release:  # noqa: PLR0912, PLR0915
    """Top-down specialization (Fung, Wang & Yu, ICDE 2005) of every QI, k-anonymous.

    Parameters
    ----------
    dataset : Dataset
        Tree hierarchies are specialized along their taxonomy; ordered attributes by binary
        splits at the threshold of highest information gain.
    models : KAnonymity
    label : str, optional
        The class attribute of the information gain (default: the first sensitive attribute).
    zero_gain : bool
        Also perform valid specializations without information gain, after the gainful ones
        (default; the cut is then maximal). ``False``: stop as the paper does.

    Returns
    -------
    Release
        A global recoding by a cut of each taxonomy (each original value maps to one published
        value); ``provenance["tds"]`` records the number of specializations, the anonymity
        reached, the total information gain and the ``sequence`` of specializations (attribute,
        value, information gain, anonymity after, anonymity loss, score).

    Examples
    --------
    >>> import ktype
    >>> from ktype.models.kanonymity import KAnonymity
    >>> ds = ktype.load_adult(n=1000, quasi_identifiers=["age", "sex", "race", "education"])
    >>> rel = ktype.algorithms.run("tds", ds, KAnonymity(10))
    >>> rel.provenance["tds"]["anonymity"] >= 10
    True
    """
    k = int(models[0].k)  # type: ignore[attr-defined]
    col, y, n_cls = class_labels(dataset, label, "tds")
    n, r = dataset.n, dataset.r
    X = dataset.X.astype(np.int64)
    hs = dataset.hierarchies
    lo = np.zeros((n, r), dtype=np.int64)
    hi = np.tile((dataset.domain_sizes - 1).astype(np.int64), (n, 1))
    children: list[dict[int, tuple[np.ndarray, np.ndarray]]] = []
    for h in hs:
        ch: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        if h.is_tree:
            par = np.asarray(h.node_parent)
            for v in np.unique(par[par >= 0]):  # nodes, not rows
                kids = np.flatnonzero(par == v)
                kids = kids[np.argsort(h.node_lo[kids], kind="stable")]
                ch[int(v)] = (np.asarray(h.node_lo[kids], dtype=np.int64), np.asarray(h.node_hi[kids], dtype=np.int64))
        children.append(ch)
    gain_total = 0.0
    steps = 0
    sequence: list[dict] = []
    while True:
        cls, g = group_rows(lo, hi)
        sizes = np.bincount(cls, minlength=g)
        A = int(sizes.min())
        best = None  # (score, -j, -lo, j, rows, new_lo, new_hi, gain)
        for j, h in enumerate(hs):  # attributes, then their current values: candidates, not rows
            seg, nseg = group_rows(lo[:, j:j + 1], hi[:, j:j + 1])
            order = np.argsort(seg, kind="stable")
            bounds = np.searchsorted(seg[order], np.arange(nseg + 1))
            for s in range(nseg):
                rows = order[bounds[s]:bounds[s + 1]]
                vlo, vhi = int(lo[rows[0], j]), int(hi[rows[0], j])
                if vlo == vhi:
                    continue
                x = X[rows, j]
                if h.is_tree:
                    node = int(h.node_of(np.array([vlo]), np.array([vhi]))[0])
                    kids = children[j].get(node)
                    if kids is None:
                        continue
                    child = np.searchsorted(kids[0], x, side="right") - 1
                    options = [(child, max(info_gain(y[rows], child, n_cls), 0.0), kids[0][child], kids[1][child])]
                else:  # thresholds by decreasing gain (one value present: tighten to it)
                    splits = _thresholds(x, y[rows], n_cls) or [(np.zeros(len(rows), dtype=np.int64), 0.0)]
                    options = []
                    for child, gain in splits:  # thresholds of this value, not rows
                        cmin = np.full(2, np.iinfo(np.int64).max)
                        cmax = np.full(2, -1)
                        np.minimum.at(cmin, child, x)
                        np.maximum.at(cmax, child, x)
                        options.append((child, gain, cmin[child], cmax[child]))
                found = None
                for child, gain, new_lo, new_hi in options:  # the first (highest-gain) valid one
                    if gain <= 1e-12 and not zero_gain:
                        break
                    # anonymity after the specialization: the classes holding v split by child value
                    sub = cls[rows] * (int(child.max()) + 1) + child
                    _, sub_sizes = np.unique(sub, return_counts=True)
                    hit = np.zeros(g, dtype=bool)
                    hit[cls[rows]] = True
                    others = sizes[~hit]
                    A_v = int(min(sub_sizes.min(), others.min() if len(others) else np.iinfo(np.int64).max))
                    if A_v >= k:
                        found = (gain, A_v, new_lo, new_hi)
                        break
                if found is None:
                    continue
                gain, A_v, new_lo, new_hi = found
                score = gain / (A - A_v + 1)
                key = (score, -j, -vlo)
                if best is None or key > best[0]:
                    best = (key, j, rows, new_lo, new_hi, gain, A_v, vlo, vhi)  # type: ignore[assignment]
        if best is None:
            break
        key, j, rows, new_lo, new_hi, gain, A_v, vlo, vhi = best
        sequence.append({"attribute": dataset.quasi_identifiers[j], "value": hs[j].label_interval(vlo, vhi),
                         "info_gain": gain, "anonymity_after": A_v, "anonymity_loss": A - A_v, "score": key[0]})
        lo[rows, j] = new_lo
        hi[rows, j] = new_hi
        gain_total += gain
        steps += 1
    cls, g = group_rows(lo, hi)
    prov = {"tds": {"specializations": steps, "anonymity": int(np.bincount(cls).min()), "label": col,
                    "information_gain": gain_total, "score": "InfoGain(v) / (AnonyLoss(v) + 1)",
                    "sequence": sequence}}
    return Release.build(dataset, lo.astype(np.int32), hi.astype(np.int32), recoding="local", provenance=prov,
                         classes=cls)
