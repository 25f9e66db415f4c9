"""The one table of privacy models: names, classes, parameters, small test parameters.

Everything that lists models derives from :data:`MODEL_TABLE`: ``ktype.models._names.MODEL_NAMES``
and :func:`ktype.models._names.model_from_name` (the names the CLI accepts), the model records in a
release file's metadata (:meth:`ktype.Release.metadata`), and the default parameters of
the common algorithm check suite (:mod:`ktype.testing.algorithm_checks`). A new model is
added here once.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, cast

from ..exceptions import InternalError
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
    """One privacy model: its class (which declares its public, CLI name), small test parameters and aliases."""

    cls: type[PrivacyModel]
    test_params: dict[str, Any] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """The public (CLI, metadata) name the class declares (``PrivacyModel.public_name``)."""
        name = self.cls.__dict__.get("public_name")
        if not name:
            raise InternalError(f"{self.cls.__name__} is in the model table but declares no public_name")
        return str(name)

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
    ModelSpec(KAnonymity, {"k": 3}, aliases=("kanonymity",)),
    ModelSpec(km.OneKAnonymity, {"k": 3}),
    ModelSpec(km.KOneAnonymity, {"k": 3}),
    ModelSpec(km.KKAnonymity, {"k": 3}),
    ModelSpec(km.KConcealment, {"k": 3}, aliases=("kconcealment",)),
    ModelSpec(FreeformKAnonymity, {"k": 3}, aliases=("freeform",)),
    ModelSpec(ld.DistinctLDiversity, {"l": 2}, aliases=("l-diversity",)),
    ModelSpec(ld.EntropyLDiversity, {"l": 1.2}),
    ModelSpec(ld.RecursiveCLDiversity, {"c": 4.0, "l": 2}),  # fixture r1/tail = 3.8
    ModelSpec(ld.FrequencyLDiversity, {"l": 1.2}),
    ModelSpec(ld.PSensitivity, {"p": 2}),
    ModelSpec(tc.TCloseness, {"t": 0.5}),
    ModelSpec(TransparentLDiversity, {"l": 1}),
    ModelSpec(ProtectedLDiversity, {"l": 1.2, "values": (">50K",)}),  # Mask's V (fixture: salary-class)
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
    """Where a model's verdict is computed on a release of this recoding kind (:meth:`PrivacyModel.scope_on`)."""
    return model.scope_on(recoding)
