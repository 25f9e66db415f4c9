"""Level-based measures: the AFK05 tree measure, Sweeney's precision, and lattice height."""

from __future__ import annotations

import numpy as np

from ..data.dataset import Dataset
from ..release import Release
from ._base import MeasureUnavailable, check_cells, measure, node_heights

__all__ = ["tree_cells", "tree_measure", "precision", "height"]


def _full_domain_levels(release: Release) -> np.ndarray | None:
    if release.recoding == "full-domain" and release.levels is not None:
        return np.asarray(release.levels, dtype=np.int64)
    return None


def tree_cells(
    dataset: Dataset,
    lo: np.ndarray,
    hi: np.ndarray,
    *,
    levels: np.ndarray | None = None,
    suppressed: np.ndarray | None = None,
) -> np.ndarray:
    """Per-cell tree-measure cost ``level / ℓ_j`` in ``[0, 1]``.

    Parameters
    ----------
    dataset : Dataset
        Every quasi-identifier needs a tree hierarchy (``kind="tree"``).
    lo, hi : array of int, shape (n, r)
        Generalized cells; each must be a node of its hierarchy.
    levels : array of int, shape (r,), optional
        Level vector of a full-domain release. When given, every cell costs
        ``levels[j] / height_j`` (rows in ``suppressed`` cost 1), whatever node it is.
    suppressed : array of bool, shape (n,), optional
        Suppressed rows (only used with ``levels``).

    Notes
    -----
    Without ``levels``, a cell's level is the **height of its node** — the longest path
    from the node down to a leaf — divided by the height of the root. For the balanced
    trees of AFK05 this is exactly the level ``r / ℓ_j``. For unbalanced (proper)
    hierarchies this choice keeps the cost record-independent, 0 on every leaf, 1 on the
    root, and strictly increasing from child to parent, so the measure stays monotone
    (the tree measure as Gionis & Tassa state it, TKDE 2009 §4.1, assumes balanced trees;
    for unbalanced ones the normalization is ktype's choice). When several nodes
    share an interval (a chain of single-child nodes), the deepest is used: the release
    carries no more information than that node.

    Raises
    ------
    MeasureUnavailable
        An attribute without a tree hierarchy, or a cell that is not a node.
    """
    lo, hi = check_cells(dataset, lo, hi)
    n, r = lo.shape
    out = np.empty((n, r), dtype=np.float64)
    for j, h in enumerate(dataset.hierarchies):  # loop over attributes
        if not h.is_tree:
            raise MeasureUnavailable(
                f"The tree measure needs a hierarchy for {h.name!r}; it has none (any interval allowed)."
            )
        if levels is not None:
            height = h.height
            out[:, j] = levels[j] / height if height > 0 else 0.0
            if suppressed is not None:
                out[np.asarray(suppressed, dtype=bool), j] = 1.0 if height > 0 else 0.0
            continue
        node = h.node_of(lo[:, j], hi[:, j])
        if (node < 0).any():
            bad = int(np.flatnonzero(node < 0)[0])
            raise MeasureUnavailable(
                f"Cell [{lo[bad, j]}, {hi[bad, j]}] of {h.name!r} (row {bad}) is not a node of its hierarchy; "
                "the tree measure is defined for hierarchy nodes only."
            )
        nh = node_heights(h)
        root = nh[0]
        out[:, j] = nh[node] / root if root > 0 else 0.0
    return out


def _release_tree_cells(release: Release) -> np.ndarray:
    levels = _full_domain_levels(release)
    if levels is not None and len(levels) != release.r:
        raise MeasureUnavailable(f"The release has {len(levels)} levels for {release.r} quasi-identifiers.")
    return tree_cells(release.dataset, release.lo, release.hi, levels=levels, suppressed=release.suppressed)


@measure(
    "tree_measure",
    summary="AFK05 tree measure: sum of level/height over cells (hierarchies only)",
    reference="Aggarwal et al. 2005 (AFK05), as stated in Gionis & Tassa §4.1",
    bounds="[0, n·r]",
)
def tree_measure(release: Release, *, normalize: bool = False) -> float:
    """Tree measure of Aggarwal et al. (AFK05).

    Replacing a value by a node in level ``L_{j,t}`` of a hierarchy with ``ℓ_j + 1``
    levels costs ``t / ℓ_j``; the measure is the sum over all ``n·r`` cells (Gionis &
    Tassa §4.1). With height-1 hierarchies it counts suppressed cells (MW04).

    Full-domain releases use their level vector. Other releases use the height of each
    cell's node (see :func:`tree_cells` for the choice made for unbalanced trees).
    Suppressed records are charged as fully generalized (each cell costs 1).

    Parameters
    ----------
    release : Release
    normalize : bool, default False
        False: the sum over cells (AFK05). True: the average ``1/(n·r)``, in ``[0, 1]``.

    Raises
    ------
    MeasureUnavailable
        A quasi-identifier has no tree hierarchy (``"ordered"``).
    """
    cells = _release_tree_cells(release)
    if cells.size == 0:
        return 0.0
    return float(cells.mean() if normalize else cells.sum())


@measure(
    "precision",
    summary="Sweeney's precision Prec = 1 - mean of level/height (higher is better)",
    reference="Sweeney 2002 (MinGen), as catalogued in Ciriani et al., k-Anonymity (survey), 2007",
    better="higher",
    bounds="[0, 1]",
)
def precision(release: Release) -> float:
    """Sweeney's precision metric.

    .. math::  Prec = 1 - \\frac{\\sum_{i=1}^{N_A} \\sum_{j=1}^{|PT|} h_{ij} / |DGH_{A_i}|}{|PT| \\cdot N_A}

    where ``h_ij`` is the level of the released cell and ``|DGH_{A_i}|`` the height of
    attribute ``i``'s hierarchy (Sweeney, Int. J. Uncertainty, Fuzziness and Knowledge-Based
    Systems 10(5), 2002). Full-domain releases use
    ``release.levels``; other releases use the height of each cell's node over the
    root's height (the same choice as :func:`tree_cells`), so ``Prec = 1 −`` the
    normalized tree measure.

    Suppressed records are charged as fully generalized (level = height, each cell costs
    1) and stay in ``|PT|``. Without suppression and for full-domain recoding,
    ``Prec = 1 − (relative distance) / N_A``.

    Returns
    -------
    float
        In ``[0, 1]``; **higher is better** (1 for the identity release).

    Raises
    ------
    MeasureUnavailable
        A quasi-identifier has no tree hierarchy.
    """
    cells = _release_tree_cells(release)
    if cells.size == 0:
        return 1.0
    return float(1.0 - cells.mean())


@measure(
    "height",
    summary="Height of a full-domain release: sum of its level vector",
    reference="Samarati 2001 / Ciriani et al. survey §2.2 (height(DV) = Σ d_i)",
    bounds="[0, Σ_j height_j]",
)
def height(release: Release) -> float:
    """Height of a full-domain release in the generalization lattice: ``Σ_j levels[j]``
    (the absolute distance of the distance vector, Definition 4, and the "minimum absolute
    distance" preference criterion of Ciriani et al. 2007, §2.2).

    Suppressed records do not change the height (it is a property of the level vector).

    Raises
    ------
    MeasureUnavailable
        The release is not a full-domain release with a level vector.
    """
    levels = _full_domain_levels(release)
    if levels is None:
        raise MeasureUnavailable(
            f"height is defined for full-domain releases only (with a level vector); this release uses "
            f"{release.recoding!r} recoding"
            + ("." if release.levels is None else " (levels are ignored unless recoding='full-domain').")
        )
    return float(levels.sum())
