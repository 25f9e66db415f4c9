"""The one table of privacy models: names, classes, parameters, small test parameters.

Everything that lists models derives from :data:`MODEL_TABLE`: ``ktype.api.MODEL_NAMES``
and :func:`ktype.api.model_from_name` (the names the CLI accepts), the model records in a
release file's metadata (:meth:`ktype.Release.metadata`), and the default parameters of
the common algorithm check suite (:mod:`ktype.testing.algorithm_checks`). A new model is
added here once.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, cast

from . import ktype_models as km
from . import ldiversity as ld
from . import tcloseness as tc
from ._base import PrivacyModel
from .freeform import FreeformKAnonymity
from .kanonymity import KAnonymity
from .transparent import ProtectedLDiversity, TransparentLDiversity

__all__ = ["ModelSpec", "MODEL_TABLE", "spec_of", "spec_by_name", "model_scope"]


@dataclass(frozen=True)
class ModelSpec:
    """One privacy model: its public (CLI) name, class and small test parameters."""

    name: str
    cls: type[PrivacyModel]
    test_params: dict[str, Any] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()

    @property
    def params(self) -> tuple[str, ...]:
        """Every parameter the model takes (its dataclass fields)."""
        return tuple(f.name for f in dataclasses.fields(cast(Any, self.cls)))

    @property
    def required(self) -> tuple[str, ...]:
        """Parameters without a default."""
        return tuple(
            f.name
            for f in dataclasses.fields(cast(Any, self.cls))
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        )


MODEL_TABLE: tuple[ModelSpec, ...] = (
    ModelSpec("k-anonymity", KAnonymity, {"k": 3}, aliases=("kanonymity",)),
    ModelSpec("1k-anonymity", km.OneKAnonymity, {"k": 3}),
    ModelSpec("k1-anonymity", km.KOneAnonymity, {"k": 3}),
    ModelSpec("kk-anonymity", km.KKAnonymity, {"k": 3}),
    ModelSpec("k-concealment", km.KConcealment, {"k": 3}, aliases=("kconcealment",)),
    ModelSpec("freeform-k-anonymity", FreeformKAnonymity, {"k": 3}, aliases=("freeform",)),
    ModelSpec("distinct-l-diversity", ld.DistinctLDiversity, {"l": 2}, aliases=("l-diversity",)),
    ModelSpec("entropy-l-diversity", ld.EntropyLDiversity, {"l": 1.2}),
    ModelSpec("recursive-cl-diversity", ld.RecursiveCLDiversity, {"c": 4.0, "l": 2}),  # fixture r1/tail = 3.8
    ModelSpec("frequency-l-diversity", ld.FrequencyLDiversity, {"l": 1.2}),
    ModelSpec("p-sensitivity", ld.PSensitivity, {"p": 2}),
    ModelSpec("t-closeness", tc.TCloseness, {"t": 0.5}),
    ModelSpec("transparent-l-diversity", TransparentLDiversity, {"l": 1}),
    ModelSpec("protected-l-diversity", ProtectedLDiversity, {"l": 1.2, "values": (">50K",)}),  # Mask's V (fixture: salary-class)
)


def spec_of(model: PrivacyModel | type) -> ModelSpec | None:
    """The table entry of a model instance or class (None for a model outside the table)."""
    cls = model if isinstance(model, type) else type(model)
    for spec in MODEL_TABLE:
        if spec.cls is cls:
            return spec
    return None


def spec_by_name(name: str) -> ModelSpec | None:
    """The entry whose name or alias is ``name`` (already normalized), or None."""
    for spec in MODEL_TABLE:
        if name == spec.name or name in spec.aliases:
            return spec
    return None


def model_scope(model: PrivacyModel, recoding: str) -> str:
    """Where a model's verdict is computed on a release of this recoding kind.

    ``"class"``: per equivalence class of identical published rows; ``"matches"``: per
    original record over the consistency graph (local / freeform recodings, and the k-type
    graph models and freeform k-anonymity always).
    """
    scope = getattr(model, "scope", None)
    if scope in ("class", "matches"):
        return scope
    if isinstance(model, (km._KTypeModel, FreeformKAnonymity)):
        return "matches"
    if scope == "auto":
        return "matches" if recoding in ("local", "freeform") else "class"
    return "class"
