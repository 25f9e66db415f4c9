"""Bottom-up generalization for k-anonymity, guided by information loss per anonymity gain.

Wang, Yu & Chakraborty, "Bottom-Up Generalization: A Data Mining Solution to Privacy
Protection", ICDM 2004; cited by Ciriani et al., "k-Anonymity" (Springer 2007), §4.4/§6 among
the works that evaluate k-anonymization by data mining (the chapter does not describe it).
The mirror image of top-down specialization (``tds``): start from the original values (every
leaf of every taxonomy is in the cut) and repeatedly perform the *generalization*
``G: {c_1, ..., c_m} -> p`` — replace, in one attribute's cut, all the children of a value p by
p — of least

* ``IP(G) = I(G) / P(G)``, the information loss per unit of anonymity gained, where
* ``I(G) = I(R_p) - Σ_c |R_c| / |R_p| · I(R_c)`` is the entropy of the class attribute lost by
  merging the children (``R_c``: the records published as c; ``R_p``: their union;
  ``I(R) = -Σ_cls p log2 p``), the same quantity as TDS's InfoGain of the reverse step; and
* ``P(G) = A_G - A`` is the anonymity gain, the anonymity ``A`` being the smallest number of
  records sharing one combination of QI values (one virtual identifier made of all QIs)
  before, and ``A_G`` after, G;

until the table is k-anonymous (``A >= k``). The result is a global recoding by a cut of each
taxonomy. Wang et al. present it as a greedy heuristic; no optimality is claimed (none is
tested: the tests replay every step against an independent computation of the candidates and
their scores, and check that the algorithm stops at the first k-anonymous cut).

Ordered attributes (no taxonomy) are generalized bottom-up too: their cut is a partition of
the present values into intervals, and a generalization merges two adjacent intervals.

Choices and deviations, recorded:

* ``P(G)`` is zero for almost every candidate while many classes are small (one merge rarely
  raises the *smallest* class), where the paper's score is undefined. Then (deviation) the
  privacy gained is measured by ``V(G)``, the decrease in the number of records in classes
  smaller than k, and the candidate of least ``I(G) / V(G)`` is performed; when no candidate
  decreases it either, the one of least ``I(G)``. So the order is: any candidate with
  ``P(G) > 0`` by ``I/P``, else by ``I/V``, else by ``I`` (the ``tier`` 0, 1, 2 recorded per
  step). Measured against the simpler rule "least ``I`` whenever ``P = 0``" on 2,000 Adult
  records (QI sets of 4 and 5 attributes, k = 5 and 10) the releases have the same LM (one
  run needs 35 steps instead of 34): the tier mainly makes each step's privacy gain explicit.
  On the 5-QI set with k = 10 both end with every QI at its root — the entropy loss of a
  whole attribute that does not predict the class is small, so the greedy spends the early
  steps there and the last small class (the oldest ages) can only join the rest at the root.
* A generalization that changes no record (a value whose children hold no record) is
  performed at once, without counting as a step, so that its parent can become a candidate; a
  value with a single child standing for the same interval is that child.
* Ties of the score (equal up to 1e-12) go to the attribute first in QI order, then the
  lowest value; the result does not depend on the row order.
* The class attribute is the dataset's first sensitive attribute (or ``label=``). Candidate
  anonymities are computed on the distinct QI combinations (bincounts, no loop over rows).
"""

from __future__ import annotations

import numpy as np

from ..data.dataset import Dataset
from ..data.hierarchy import Hierarchy
from ..models._base import PrivacyModel
from ..models.kanonymity import KAnonymity
from ..release import Release
from ._registry import register
from .tds import _entropy_rows, class_labels

__all__ = ["bottom_up", "candidates"]


def _tree_nodes(h: Hierarchy) -> list[tuple[int, int, np.ndarray, np.ndarray]]:
    """Internal values of a taxonomy, one per distinct interval (the deepest node of a chain):
    (lo, hi, children's lo, children's hi)."""
    par = np.asarray(h.node_parent)
    lo, hi = np.asarray(h.node_lo, dtype=np.int64), np.asarray(h.node_hi, dtype=np.int64)
    out: dict[tuple[int, int], tuple[int, int, np.ndarray, np.ndarray]] = {}
    for v in np.unique(par[par >= 0]):  # nodes, not rows
        kids = np.flatnonzero(par == v)
        if len(kids) == 1 and lo[kids[0]] == lo[v] and hi[kids[0]] == hi[v]:
            continue  # a chain: the child stands for the same interval
        kids = kids[np.argsort(lo[kids], kind="stable")]
        out[(int(lo[v]), int(hi[v]))] = (int(lo[v]), int(hi[v]), lo[kids], hi[kids])
    return list(out.values())


def candidates(h: Hierarchy, cur_lo: np.ndarray, cur_hi: np.ndarray, present: np.ndarray,
               nodes: list[tuple[int, int, np.ndarray, np.ndarray]] | None) -> list[tuple[int, int, np.ndarray, np.ndarray]]:
    """The generalizations available in one attribute's cut: (lo, hi, children's lo, hi).

    ``cur_lo``/``cur_hi``: per leaf rank, the interval of the cut containing it; ``present``:
    leaf ranks held by some record. Tree: values all of whose children are in the cut. Ordered:
    every pair of adjacent intervals of present values.
    """
    if h.is_tree:
        out = []
        for a, b, clo, chi in nodes or []:  # taxonomy values, not rows
            if cur_lo[a] == a and cur_hi[a] == b:
                continue  # already in the cut
            if (cur_lo[clo] == clo).all() and (cur_hi[clo] == chi).all():
                out.append((a, b, clo, chi))
        return out
    starts = np.unique(cur_lo[present])
    ends = cur_hi[starts]
    return [(int(starts[i]), int(ends[i + 1]), starts[i:i + 2], ends[i:i + 2]) for i in range(len(starts) - 1)]


def _info_loss(cum: np.ndarray, clo: np.ndarray, chi: np.ndarray) -> tuple[float, int]:
    """``I(G)`` from per-leaf cumulative class counts, and the number of records of p."""
    child = cum[chi + 1] - cum[clo]  # class counts of each child
    whole = child.sum(axis=0, keepdims=True)
    n_p = int(whole.sum())
    if n_p == 0:
        return 0.0, 0
    loss = _entropy_rows(whole)[0] - float((child.sum(axis=1) / n_p * _entropy_rows(child)).sum())
    return max(loss, 0.0), n_p


@register(
    "bottom_up",
    models=(KAnonymity,),
    recoding="local",
    optimal=False,
    randomized=False,
    order_invariant=True,
    constraints={"label": [str, None]},
    description="Bottom-up generalization: from the original values, generalize by least I(G)/P(G) until k-anonymous.",
    reference="Wang, Yu & Chakraborty, Bottom-up generalization: a data mining solution to privacy protection, "
              "ICDM 2004; cited in the survey, §4.4",
    combinable=False,
)
def bottom_up(dataset: Dataset, models: tuple[PrivacyModel, ...], *, label: str | None = None) -> Release:  # noqa: PLR0915
    """Bottom-up generalization (Wang, Yu & Chakraborty, ICDM 2004) of every QI, k-anonymous.

    Parameters
    ----------
    dataset : Dataset
        Tree hierarchies are generalized along their taxonomy (children -> parent); ordered
        attributes by merging two adjacent intervals of present values.
    models : KAnonymity
    label : str, optional
        The class attribute of the information loss (default: the first sensitive attribute).

    Returns
    -------
    Release
        A global recoding by a cut of each taxonomy; ``provenance["bottom_up"]`` records the
        number of generalizations, the anonymity reached, the total information loss and the
        ``sequence`` of generalizations (attribute, its index, the value's interval and label,
        information loss I, anonymity gain P, decrease V of the records in classes below k,
        the tier 0/1/2 — scored by I/P, I/V or I — the score and the anonymity after).

    Examples
    --------
    >>> import ktype
    >>> from ktype.models.kanonymity import KAnonymity
    >>> ds = ktype.load_adult(n=1000, quasi_identifiers=["age", "sex", "race", "education"])
    >>> rel = ktype.algorithms.run("bottom_up", ds, KAnonymity(10))
    >>> rel.provenance["bottom_up"]["anonymity"] >= 10
    True
    """
    k = int(models[0].k)  # type: ignore[attr-defined]
    col, y, n_cls = class_labels(dataset, label, "bottom_up")
    n, r = dataset.n, dataset.r
    X = dataset.X.astype(np.int64)
    hs = dataset.hierarchies
    cur_lo = [np.arange(h.size, dtype=np.int64) for h in hs]
    cur_hi = [np.arange(h.size, dtype=np.int64) for h in hs]
    present = [np.unique(X[:, j]) for j in range(r)]
    nodes = [_tree_nodes(h) if h.is_tree else None for h in hs]
    cum = []  # per attribute: cumulative class counts over leaf ranks
    for j, h in enumerate(hs):
        cnt = np.bincount(X[:, j] * n_cls + y, minlength=h.size * n_cls).reshape(h.size, n_cls)
        cum.append(np.vstack([np.zeros((1, n_cls), dtype=np.int64), np.cumsum(cnt, axis=0)]))
    sequence: list[dict] = []
    loss_total = 0.0
    while True:
        S = np.column_stack([cur_lo[j][X[:, j]] for j in range(r)])
        U, cnt = np.unique(S, axis=0, return_counts=True)
        A = int(cnt.min())
        if A >= k:
            break
        best = None
        free = None
        for j, h in enumerate(hs):  # attributes, then their candidate values: not rows
            rest = (np.unique(np.delete(U, j, axis=1), axis=0, return_inverse=True)[1].ravel() if r > 1
                    else np.zeros(len(U), dtype=np.int64))
            for a, b, clo, chi in candidates(h, cur_lo[j], cur_hi[j], present[j], nodes[j]):
                info, n_p = _info_loss(cum[j], clo, chi)
                hit = (U[:, j] >= a) & (U[:, j] <= b)
                if n_p == 0:
                    free = (j, a, b)  # no record below: performed at once
                    break
                sums = np.bincount(rest[hit], weights=cnt[hit]).astype(np.int64)
                sums = sums[sums > 0]
                others = cnt[~hit]
                A_G = int(min(sums.min(), others.min() if len(others) else n))
                gain = A_G - A
                # records in classes below k: fewer after G by
                fewer = int(cnt[hit][cnt[hit] < k].sum() - sums[sums < k].sum())
                if gain > 0:
                    key = (0, round(info / gain, 12), j, a)
                elif fewer > 0:
                    key = (1, round(info / fewer, 12), j, a)
                else:
                    key = (2, round(info, 12), j, a)
                if best is None or key < best[0]:
                    best = (key, j, a, b, info, gain, fewer, A_G)
            if free is not None:
                break
        if free is not None:
            j, a, b = free
            cur_lo[j][a:b + 1] = a
            cur_hi[j][a:b + 1] = b
            continue
        key, j, a, b, info, gain, fewer, A_G = best  # type: ignore[misc]
        cur_lo[j][a:b + 1] = a
        cur_hi[j][a:b + 1] = b
        loss_total += info
        sequence.append({"attribute": dataset.quasi_identifiers[j], "index": j, "lo": a, "hi": b,
                         "value": hs[j].label_interval(a, b), "info_loss": info, "anonymity_gain": gain,
                         "violating_gain": fewer, "tier": key[0], "score": key[1], "anonymity_after": A_G})
    lo = np.column_stack([cur_lo[j][X[:, j]] for j in range(r)]).astype(np.int32)
    hi = np.column_stack([cur_hi[j][X[:, j]] for j in range(r)]).astype(np.int32)
    prov = {"bottom_up": {"generalizations": len(sequence), "anonymity": A, "label": col,
                          "information_loss": loss_total, "score": "I(G) / P(G)", "sequence": sequence}}
    return Release.build(dataset, lo, hi, recoding="local", provenance=prov)
