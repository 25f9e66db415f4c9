"""Local-recoding algorithms: the k-type family ((k,1), (1,k), (k,k), k-concealment) of
Tassa, Mazza & Gionis, the clustering baselines (agglomerative, forest) and the
approximation algorithms of Gionis & Tassa.

Registered names (``ktype.algorithms.run(name, dataset, model, ...)``): ``k1_anonymity``,
``kk_anonymity``, ``k_concealment``, ``agglomerative``, ``forest``, ``gt_forest``,
``gt_setcover`` (see :mod:`ktype.algorithms.local.pipelines`), and ``iterative_local``
(ARX-style local recoding by iterated full-domain transformations, see
:mod:`ktype.algorithms.local.iterative`).

Building blocks (on a :class:`Problem`, boxes ``(LO, HI)`` of leaf ranks):
``optimal_k1``, ``k1_expansion``, ``randomized_k1``, ``one_k_completion``, ``k_conceal``,
``p_sensitize``, ``l_diversify``, ``all_matches``, ``agglomerative_clusters``,
``forest_clusters``, ``l_diverse_merge``, ``cluster_boxes``, ``setcover_clusters``,
``sweep_partition``, ``merge_remainder``, ``refine_moves``.
"""

from ._core import Problem
from ._matching import all_matches
from .clustering import agglomerative_clusters, cluster_boxes, forest_clusters, l_diverse_merge
from .gionis_tassa import setcover_clusters
from .iterative import merge_remainder, sweep_partition
from .kconcealment import k1_expansion, k_conceal, l_diversify, one_k_completion, optimal_k1, p_sensitize, randomized_k1
from .refine import refine_moves

__all__ = [
    "Problem",
    "all_matches",
    "agglomerative_clusters",
    "cluster_boxes",
    "forest_clusters",
    "l_diverse_merge",
    "setcover_clusters",
    "sweep_partition",
    "merge_remainder",
    "refine_moves",
    "k1_expansion",
    "k_conceal",
    "l_diversify",
    "one_k_completion",
    "optimal_k1",
    "p_sensitize",
    "randomized_k1",
]
