"""Registered entry points ``flash`` and ``exhaustive`` and shared argument checks."""

from __future__ import annotations

from typing import Any

from ..._validation import Interval, Options, check_params
from ...data.dataset import Dataset
from ...exceptions import InvalidParameterError, UnsupportedModelError
from ...models._base import ClassModel, PrivacyModel
from ...models.kanonymity import KAnonymity
from ...models.ldiversity import (
    DistinctLDiversity,
    EntropyLDiversity,
    FrequencyLDiversity,
    PSensitivity,
    RecursiveCLDiversity,
)
from ...models.tcloseness import TCloseness
from ...release import Release
from .._registry import register
from ._engine import MEASURES, Encoded, require_levels
from ._lattice import LatticeResult, build_release, check_dense, run_search

__all__ = ["flash", "exhaustive", "lattice_search", "validate_call", "MEASURE_OPTION", "SUPPRESSION_OPTION", "CLASS_MODELS"]

#: per-class models the lattice algorithms declare (any ClassModel works through ``lattice_search``)
CLASS_MODELS = (
    KAnonymity,
    DistinctLDiversity,
    EntropyLDiversity,
    RecursiveCLDiversity,
    FrequencyLDiversity,
    PSensitivity,
    TCloseness,
)

MEASURE_OPTION = [Options(MEASURES)]
SUPPRESSION_OPTION = [Interval(float, 0, 1, closed="both")]


def validate_call(dataset: Dataset, model: Any, *, measure: str | None, max_suppression: float, name: str) -> tuple[PrivacyModel, ...]:
    """Checks for direct (non-registry) calls: the same constraints as the registered names."""
    if not isinstance(dataset, Dataset):
        raise InvalidParameterError(f"{name} needs a ktype Dataset; got {type(dataset).__name__}.")
    models = (model,) if isinstance(model, PrivacyModel) else tuple(model)
    if not models:
        raise InvalidParameterError("Give at least one privacy model (e.g. KAnonymity(5)).")
    params: dict[str, Any] = {"max_suppression": max_suppression}
    cons: dict[str, list] = {"max_suppression": SUPPRESSION_OPTION}
    if measure is not None:
        params["measure"] = measure
        cons["measure"] = MEASURE_OPTION
    check_params(name, params, cons)
    for m in models:
        if not isinstance(m, ClassModel):
            raise UnsupportedModelError(f"{name} does not support {type(m).__name__}; it supports per-class models (ClassModel).")
        m.validate(dataset)
    return models


_REF = "Ciriani et al., k-Anonymity (2007), §2.1-2.2, §4; Kohlmayer et al., Flash (2012)"


@register(
    "flash",
    models=CLASS_MODELS,
    recoding="full-domain",
    optimal=True,
    constraints={"measure": MEASURE_OPTION, "max_suppression": SUPPRESSION_OPTION},
    description="Optimal full-domain lattice search (Flash-style, exact, with predictive tagging and bounds)",
    reference=_REF,
)
def flash(dataset: Dataset, models: tuple[PrivacyModel, ...], *, measure: str = "non_uniform_entropy", max_suppression: float = 0.0) -> Release:
    """Optimal full-domain generalization: the best lattice node for ``measure``.

    Classifies the whole lattice of level vectors (FLASH-style binary search on paths with
    predictive tagging, Kohlmayer et al. 2012), returns the node minimizing ``measure``
    among those whose required suppression is at most ``max_suppression * n`` (survey
    Def. 5), releases it with its outliers suppressed, and records the lattice summary
    (nodes evaluated, k-minimal nodes, optimum, time) in ``provenance["lattice"]``.

    Exact for every measure: when the measure is monotone (no suppression allowed, or
    ``height``) the optimum is among the k-minimal nodes; otherwise every feasible node is
    a candidate, pruned only by sound lower bounds. When the models' feasibility is not
    monotone the whole lattice is evaluated. Cost: at most ``Π(h_j+1)`` node evaluations,
    each ``O(#rows of a finer frequency set)``.
    """
    require_levels(dataset, "flash")
    check_dense("flash", [h.height for h in dataset.hierarchies])
    enc = Encoded(dataset, models, max_suppression, measure)
    return build_release(enc, run_search(enc, "flash"), "flash")


@register(
    "exhaustive",
    models=CLASS_MODELS,
    recoding="full-domain",
    optimal=True,
    constraints={"measure": MEASURE_OPTION, "max_suppression": SUPPRESSION_OPTION},
    description="Exhaustive full-domain lattice search (evaluates every node; the test oracle)",
    reference="Ciriani et al., k-Anonymity (2007), §4 (Sweeney's exhaustive MinGen)",
)
def exhaustive(dataset: Dataset, models: tuple[PrivacyModel, ...], *, measure: str = "non_uniform_entropy", max_suppression: float = 0.0) -> Release:
    """Evaluate every lattice node and release the best feasible one (survey §4).

    The reference oracle for the other full-domain algorithms: no pruning, each node rolled
    up from a direct specialization. ``Π(h_j+1)`` evaluations.
    """
    require_levels(dataset, "exhaustive")
    check_dense("exhaustive", [h.height for h in dataset.hierarchies])
    enc = Encoded(dataset, models, max_suppression, measure)
    return build_release(enc, run_search(enc, "exhaustive"), "exhaustive")


def lattice_search(
    dataset: Dataset,
    model: PrivacyModel | Any,
    *,
    algorithm: str = "flash",
    measure: str = "non_uniform_entropy",
    max_suppression: float = 0.0,
    k_minimal: bool = False,
) -> LatticeResult:
    """Search the full-domain generalization lattice and return the classified lattice.

    Parameters
    ----------
    dataset : Dataset
        Every quasi-identifier needs a uniform-depth hierarchy.
    model : ClassModel or sequence of ClassModel
        Privacy models evaluated per equivalence class (k-anonymity, ℓ-diversity, ...).
    algorithm : {"flash", "exhaustive"}
        ``"flash"`` prunes (exact); ``"exhaustive"`` evaluates every node (the test oracle).
    measure : str
        One of ``non_uniform_entropy``, ``loss_metric``, ``discernibility``,
        ``average_class_size``, ``precision``, ``height`` (see ``docs/fulldomain.md``).
    max_suppression : float
        Fraction of records that may be suppressed, in ``[0, 1]``.
    k_minimal : bool
        ``flash`` only. ``False`` (default): search for the optimum; with suppression, nodes
        whose lower bound exceeds the best value found are neither evaluated nor classified
        (``state`` 0); without suppression and an additive measure, nodes are visited by value
        and only those the proof of the optimum needs are classified. ``minimal`` then holds
        only the k-minimal nodes the search proved (``extra["k_minimal_complete"]`` is False).
        ``True``: classify every node and return all k-minimal nodes (slower).

    Returns
    -------
    LatticeResult
    """
    models = validate_call(dataset, model, measure=measure, max_suppression=max_suppression, name=algorithm)
    if algorithm not in ("flash", "exhaustive"):
        raise InvalidParameterError(f"Unknown lattice algorithm {algorithm!r}; use 'flash' or 'exhaustive'.")
    require_levels(dataset, algorithm)
    check_dense(algorithm, [h.height for h in dataset.hierarchies])
    enc = Encoded(dataset, models, max_suppression, measure)
    return run_search(enc, algorithm, k_minimal=k_minimal)
