"""Registered local-recoding algorithms (see :mod:`ktype.algorithms._registry`).

=================  ==========================================  =====================================
name               models                                      what runs
=================  ==========================================  =====================================
``k1_anonymity``   KOneAnonymity                               Algorithm 2
``kk_anonymity``   KKAnonymity                                 Algorithm 2 → 3
``k_concealment``  KConcealment (+ PSensitivity /              2 → 3 → 5 (``randomized``: 6 → 3 → 5
                   FrequencyLDiversity, match scope)           with random orders), then Alg 7 / ℓ
``agglomerative``  KAnonymity (+ FrequencyLDiversity,          agglomerative clustering (+ Alg 8)
                   class scope)
``forest``         KAnonymity                                  FOREST + decomposition (AFK05)
``gt_forest``      KAnonymity                                  same engine: Gionis-Tassa Algorithm B
``gt_setcover``    KAnonymity                                  Gionis-Tassa Algorithm A
=================  ==========================================  =====================================

Every output is a local recoding (row i gets its own box) built with
:meth:`Release.build`; the registry wrapper then runs each model's independent checker.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ... import _progress
from ..._validation import Interval, Options
from ...data.dataset import Dataset
from ...exceptions import UnsupportedModelError
from ...models._base import PrivacyModel
from ...models.kanonymity import KAnonymity
from ...models.ktype_models import KConcealment, KKAnonymity, KOneAnonymity
from ...models.ldiversity import FrequencyLDiversity, PSensitivity
from ...release import Release
from .._registry import register
from ._core import MEASURES, Problem
from .clustering import agglomerative_clusters, cluster_boxes, forest_clusters, l_diverse_merge
from .gionis_tassa import setcover_clusters
from .kconcealment import k1_expansion, k_conceal, l_diversify, one_k_completion, p_sensitize, randomized_k1

__all__ = [
    "k1_anonymity",
    "kk_anonymity",
    "k_concealment",
    "agglomerative",
    "forest",
    "gt_forest",
    "gt_setcover",
]

_MEASURE = {"measure": [Options(MEASURES)]}
_REF_TMG = "Tassa, Mazza, Gionis. k-Concealment: An Alternative Model of k-Type Anonymity. Trans. Data Privacy 5 (2012)"
_REF_GT = "Gionis, Tassa. k-Anonymization with Minimal Loss of Information. IEEE TKDE 21(2) (2009)"


def _one(models: Sequence[PrivacyModel], cls: type, algo: str) -> PrivacyModel:
    found = [m for m in models if isinstance(m, cls)]
    if len(found) != 1:
        raise UnsupportedModelError(
            f"{algo} needs exactly one {cls.__name__} model (the others are extra conditions); got {len(found)}."
        )
    return found[0]


def _release(dataset: Dataset, p: Problem, LO: np.ndarray, HI: np.ndarray, info: dict) -> Release:
    """The local recoding ``LO, HI`` with the kernels' own value of the measure as ``objective``.

    ``provenance["objective"]`` equals ``ktype.measures.MEASURES[objective_measure](release,
    **objective_options)`` (the common checks recompute it independently): the kernels
    average the record costs, i.e. the registry measure normalized per cell.
    """
    prov = {
        "local": info,
        "objective": p.table_cost(LO, HI),
        "objective_measure": p.measure_name,
        "objective_options": {"normalize": True} if p.measure_name == "entropy" else {},
    }
    return Release.build(dataset, LO, HI, recoding="local", provenance=prov)


def _cluster_release(dataset: Dataset, p: Problem, lab: np.ndarray, info: dict) -> Release:
    """Release of a clustering: every record gets its cluster's closure."""
    LO, HI = cluster_boxes(p, lab)
    return _release(dataset, p, LO, HI, {**info, "clusters": int(lab.max()) + 1})


def _sensitive_models(
    dataset: Dataset, models: Sequence[PrivacyModel], scope: str, algo: str
) -> list[tuple[PrivacyModel, np.ndarray]]:
    out = []
    for m in models:
        if isinstance(m, (PSensitivity, FrequencyLDiversity)):
            if m.scope not in ("auto", scope):
                raise UnsupportedModelError(
                    f"{algo} enforces {type(m).__name__} in {scope!r} scope; got scope={m.scope!r}. "
                    f"Pass {type(m).__name__}(..., scope={scope!r})."
                )
            col = dataset.sensitive_column(m.sensitive)
            out.append((m, np.asarray(dataset.sensitive_codes[col], dtype=np.int64)))
    return out


@register(
    "k1_anonymity",
    models=(KOneAnonymity,),
    recoding="local",
    order_invariant=False,
    constraints=dict(_MEASURE),
    description="(k,1)-anonymity by greedy expansion (Algorithm 2)",
    reference=_REF_TMG + ", §6.1, Algorithm 2",
)
def k1_anonymity(dataset: Dataset, models: Sequence[PrivacyModel], *, measure: str = "loss_metric") -> Release:
    """(k,1)-anonymization: every released record is consistent with >= k originals.

    Algorithm 2 of Tassa, Mazza & Gionis (§6.1): each record's generalization is the
    closure of itself and k-1 records added greedily. Within ``(k-1)`` times the optimum
    under LM (Prop. 13). O(k n^2 r). Deterministic, ties by lowest index.
    """
    k = _one(models, KOneAnonymity, "k1_anonymity").k
    p = Problem.from_dataset(dataset, measure)
    LO, HI = k1_expansion(p, k)
    return _release(dataset, p, LO, HI, {"pipeline": "alg2", "measure": measure})


@register(
    "kk_anonymity",
    models=(KKAnonymity,),
    recoding="local",
    order_invariant=False,
    constraints=dict(_MEASURE),
    description="(k,k)-anonymity: Algorithm 2 then the (1,k) completion of Algorithm 3",
    reference=_REF_TMG + ", §6.1-6.2, Algorithms 2-3",
)
def kk_anonymity(dataset: Dataset, models: Sequence[PrivacyModel], *, measure: str = "loss_metric") -> Release:
    """(k,k)-anonymization: Algorithm 2 followed by Algorithm 3 (O(k n^2 r)). Deterministic."""
    k = _one(models, KKAnonymity, "kk_anonymity").k
    p = Problem.from_dataset(dataset, measure)
    LO, HI = k1_expansion(p, k)
    LO, HI = one_k_completion(p, LO, HI, k)
    return _release(dataset, p, LO, HI, {"pipeline": "alg2+alg3", "measure": measure})


@register(
    "k_concealment",
    models=(KConcealment, PSensitivity, FrequencyLDiversity),
    recoding="local",
    randomized=True,
    order_invariant=False,
    constraints={
        "randomized": [bool],
        "measure": [Options(MEASURES)],
        "q": [Interval(int, 1, None, closed="left"), None],
        "scc_update": [Options(("incremental", "full"))],
    },
    description="k-concealment: Alg 2 (or 6) → 3 → 5, optionally p-sensitive / l-diverse (Alg 7)",
    reference=_REF_TMG + ", §6-8, Algorithms 2-7",
)
def k_concealment(
    dataset: Dataset,
    models: Sequence[PrivacyModel],
    *,
    randomized: bool = True,
    measure: str = "loss_metric",
    q: int | None = None,
    scc_update: str = "incremental",
    rng: np.random.Generator | None = None,
) -> Release:
    """k-concealment: every record has at least k *matches* (edges on a perfect matching).

    Randomized pipeline (``randomized=True``, the default: the one to use for real
    releases, §7): Algorithm 6 (``q`` nearest neighbours, default ``2(k-1)``) → 3 → 5, both
    latter in independent uniformly random visiting orders. Basic pipeline
    (``randomized=False``, for experiments): Algorithm 2 → 3 → 5, deterministic (ties by
    lowest index); its release carries a warning and its provenance says no randomness
    was used. Extra models
    ``PSensitivity(p)`` / ``FrequencyLDiversity(l)`` (match scope) then run Algorithm 7 /
    its ℓ-variant (to a fixed point). ``scc_update`` selects the SCC maintenance of Algorithm 5
    (both give identical output). Worst case O(k n^2 r) plus the SCC updates.
    """
    algo = "k_concealment"
    k = _one(models, KConcealment, algo).k
    sens = _sensitive_models(dataset, models, "matches", algo)
    p = Problem.from_dataset(dataset, measure)
    n = dataset.n
    info: dict = {"measure": measure, "randomized": randomized}
    with _progress.stage("(k,1) generalization", detail="Algorithm 6" if randomized else "Algorithm 2"):
        if randomized:
            assert rng is not None
            LO, HI, st6 = randomized_k1(p, k, q=q, rng=rng)
            info.update({"pipeline": "alg6+alg3+alg5", "q": q if q is not None else 2 * (k - 1), **st6})
            o3, o5 = rng.permutation(n), rng.permutation(n)
        else:
            LO, HI = k1_expansion(p, k)
            info["pipeline"] = "alg2+alg3+alg5"
            o3 = o5 = None
    with _progress.stage("(1,k) completion", detail="Algorithm 3"):
        LO, HI = one_k_completion(p, LO, HI, k, order=o3)
    with _progress.stage("k-concealment", total=n, detail="Algorithm 5"):
        LO, HI = k_conceal(p, LO, HI, k, order=o5, scc_update=scc_update)
    for m, s in sens:
        order = rng.permutation(n) if randomized else None
        if isinstance(m, PSensitivity):
            LO, HI = p_sensitize(p, LO, HI, s, m.p, order=order, scc_update=scc_update)
            info["p_sensitivity"] = m.p
        else:
            LO, HI = l_diversify(p, LO, HI, s, m.l, order=order, scc_update=scc_update)
            info["l_diversity"] = m.l
    return _release(dataset, p, LO, HI, info)


def _kanon(models: Sequence[PrivacyModel], algo: str) -> int:
    return _one(models, KAnonymity, algo).k


@register(
    "agglomerative",
    models=(KAnonymity,),
    recoding="local",
    order_invariant=False,
    constraints={
        "measure": [Options(MEASURES)],
        "l": [Interval(float, 1, None, closed="left"), None],
        "w": [Interval(float, 0, 1, closed="both")],
    },
    description="agglomerative clustering for k-anonymity (+ Algorithm 8 for l-diverse clusters)",
    reference="Gionis, Mazza, Tassa. k-Anonymization Revisited. ICDE 2008; " + _REF_TMG + ", Appendix C",
)
def agglomerative(
    dataset: Dataset,
    models: Sequence[PrivacyModel],
    *,
    measure: str = "loss_metric",
    l: float | None = None,  # noqa: E741
    w: float = 0.15,
) -> Release:
    """k-anonymity by agglomerative clustering; every record gets its cluster's closure.

    Distance ``|A∪B| d(A∪B) - |A| d(A) - |B| d(B)`` (increase of total loss). With ``l``,
    Algorithm 8 then merges clusters until each has diversity ``|C| / f_max >= l`` on the
    (single) sensitive attribute (weight ``w`` between loss and diversity deficit, 0.15 in
    the paper): the release then satisfies ``FrequencyLDiversity(l, scope="class")``.
    O(n^2 r) for the initial neighbours plus O(n r) per merge. Deterministic.
    """
    k = _kanon(models, "agglomerative")
    p = Problem.from_dataset(dataset, measure)
    lab = agglomerative_clusters(p, k)
    info: dict = {"measure": measure}
    if l is not None:
        col = dataset.sensitive_column(None)
        lab = l_diverse_merge(p, lab, np.asarray(dataset.sensitive_codes[col], dtype=np.int64), l, w=w)
        info.update({"l_diversity": l, "w": w, "sensitive": col})
    return _cluster_release(dataset, p, lab, info)


def _forest_release(dataset: Dataset, models: Sequence[PrivacyModel], algo: str, measure: str) -> Release:
    """FOREST + decomposition, shared by ``forest`` and ``gt_forest`` (the same algorithm)."""
    k = _kanon(models, algo)
    p = Problem.from_dataset(dataset, measure)
    return _cluster_release(dataset, p, forest_clusters(p, k), {"measure": measure})


@register(
    "forest",
    models=(KAnonymity,),
    recoding="local",
    order_invariant=False,
    constraints=dict(_MEASURE),
    description="forest algorithm of Aggarwal et al. with tree decomposition",
    reference="Aggarwal et al. Approximation Algorithms for k-Anonymity. J. Privacy Technology (2005); "
    + _REF_GT
    + ", §6.4",
)
def forest(dataset: Dataset, models: Sequence[PrivacyModel], *, measure: str = "loss_metric") -> Release:
    """k-anonymity by the forest algorithm: FOREST over (k-1)-nearest-neighbour lists, then
    decomposition of trees larger than ``max(2k-1, 3k-3)``; clusters get their closures.
    O(n^2 r) time, O(n k) memory. Deterministic (ties by index)."""
    return _forest_release(dataset, models, "forest", measure)


@register(
    "gt_forest",
    models=(KAnonymity,),
    recoding="local",
    order_invariant=False,
    constraints=dict(_MEASURE),
    description="Gionis-Tassa Algorithm B: O(k)-approximation (forest + decomposition)",
    reference=_REF_GT + ", §6.4",
)
def gt_forest(dataset: Dataset, models: Sequence[PrivacyModel], *, measure: str = "loss_metric") -> Release:
    """Gionis & Tassa's polynomial O(k)-approximation (Algorithm B).

    ``Π <= max(2k-1, 3k-3)·OPT`` for LM (monotone, sub-additive on proper hierarchies);
    for EM only when every hierarchy is entropy-monotone (§6.1, assumption (11)).
    Same engine as :func:`forest` with the edge weight ``d`` of the chosen measure.
    """
    return _forest_release(dataset, models, "gt_forest", measure)


@register(
    "gt_setcover",
    models=(KAnonymity,),
    recoding="local",
    order_invariant=False,
    constraints={"measure": [Options(MEASURES)], "method": [Options(("auto", "subsets", "boxes"))]},
    description="Gionis-Tassa Algorithm A: O(ln k)-approximation by greedy set cover",
    reference=_REF_GT + ", §6.2-6.3",
)
def gt_setcover(
    dataset: Dataset, models: Sequence[PrivacyModel], *, measure: str = "loss_metric", method: str = "auto"
) -> Release:
    """Gionis & Tassa's ``2(1 + ln 2k)``-approximation (Algorithm A) for tiny inputs.

    Phase 1 greedy weighted set cover (lazy greedy over subsets, or the hierarchy-box
    greedy), Phase 2 cover → partition. Refuses inputs it cannot run in reasonable time
    (see :func:`ktype.algorithms.local.gionis_tassa.setcover_clusters`).
    """
    k = _kanon(models, "gt_setcover")
    p = Problem.from_dataset(dataset, measure)
    lab = setcover_clusters(p, k, method=method)
    return _cluster_release(dataset, p, lab, {"measure": measure, "method": method})
