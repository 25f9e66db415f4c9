"""Information-loss measures of a release.

Every measure is a function ``name(release, **opts) -> float`` that reads the release
and the dataset it carries; "lower is better" unless stated (``precision`` is higher is
better). Suppressed records are charged as fully generalized (they hold the whole
domain) unless a measure's docstring says otherwise.

Measures (registered in :data:`MEASURES`)
-----------------------------------------
loss_metric(release)                                   LM, k-concealment Eq. 1-2, in [0, 1]
entropy(release, *, normalize=False)                   Π_e / EM, Gionis–Tassa Eq. 4 (not monotone)
monotone_entropy(release, *, normalize=False)          Π_me, Gionis–Tassa Eq. 5
non_uniform_entropy(release, *, normalize=False)       Π_ne, Gionis–Tassa Eq. 6
tree_measure(release, *, normalize=False)              AFK05 tree measure
discernibility(release, *, suppress_below=None) C_DM (Bayardo–Agrawal)
average_class_size(release, *, k)                      C_AVG (Mondrian)
precision(release)                                     Sweeney's Prec (higher is better)
height(release)                                        Σ of the level vector (full-domain only)
ncp(release, *, numeric_range="data", numeric=None)    total NCP, freeform Eq. 1-2
gcp(release, *, numeric_range="data", numeric=None)    GCP, freeform Eq. 3, in [0, 1]
perimeter(release, *, tight=False)                     transparent anonymization Eq. 4
classification_metric(release, *, label)               CM (Iyengar)
kl_divergence(release, *, base=2.0)                    KL(original ‖ max-entropy estimate)
range_query_error(release, *, qd, selectivity, queries, seed)  mean relative error of range-count queries (transparent §4.1)
suppressed_cells(release)                              cells published as * (the _CS cost, Aggarwal et al.)

Per-cell costs for algorithms (shape ``(n, r)``; ``lo``/``hi`` are leaf-rank intervals)
-------------------------------------------------------------------------------------
loss_metric_cells(dataset, lo, hi)
entropy_cells(dataset, lo, hi)
monotone_entropy_cells(dataset, lo, hi)
non_uniform_entropy_cells(dataset, lo, hi, x)
tree_cells(dataset, lo, hi, *, levels=None, suppressed=None)
ncp_cells(dataset, lo, hi, *, numeric_range="data", numeric=None)
gcp_from_boxes(lower, upper, *, domain_lower=None, domain_upper=None) -> float

Registry
--------
MEASURES : dict[str, callable]
compute(release, names=None, *, strict=False, **opts) -> MeasureResults (dict; ``.skipped``)
describe() -> list[dict]   one row per measure for the CLI
MeasureUnavailable         raised when a measure needs a missing option or cannot apply
class_sizes(release) -> (class_of_row, sizes)
"""

from ._base import MEASURES, MeasureInfo, MeasureResults, MeasureUnavailable, _reorder, compute, describe
from .classes import average_class_size, class_sizes, classification_metric, discernibility
from .entropy import (
    entropy,
    entropy_cells,
    monotone_entropy,
    monotone_entropy_cells,
    non_uniform_entropy,
    non_uniform_entropy_cells,
)
from .kl import kl_divergence
from .loss_metric import loss_metric, loss_metric_cells
from .ncp import gcp, gcp_from_boxes, ncp, ncp_cells, perimeter
from .range_query import range_query_error, range_query_errors, range_query_workload
from .suppression import suppressed_cells
from .tree import height, precision, tree_cells, tree_measure

_reorder(
    [
        "loss_metric",
        "entropy",
        "monotone_entropy",
        "non_uniform_entropy",
        "tree_measure",
        "discernibility",
        "average_class_size",
        "precision",
        "height",
        "ncp",
        "gcp",
        "perimeter",
        "classification_metric",
        "kl_divergence",
        "range_query_error",
        "suppressed_cells",
    ]
)

__all__ = [
    "MEASURES",
    "MeasureInfo",
    "MeasureResults",
    "MeasureUnavailable",
    "compute",
    "describe",
    "loss_metric",
    "loss_metric_cells",
    "entropy",
    "entropy_cells",
    "monotone_entropy",
    "monotone_entropy_cells",
    "non_uniform_entropy",
    "non_uniform_entropy_cells",
    "tree_measure",
    "tree_cells",
    "precision",
    "height",
    "discernibility",
    "average_class_size",
    "classification_metric",
    "class_sizes",
    "ncp",
    "ncp_cells",
    "gcp",
    "gcp_from_boxes",
    "perimeter",
    "kl_divergence",
    "range_query_error",
    "range_query_errors",
    "range_query_workload",
    "suppressed_cells",
]
