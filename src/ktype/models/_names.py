"""Privacy models by name: what ``--model NAME`` and a release's metadata mean.

:func:`model_from_name` and :func:`models_from_names` turn the public names of the model
table (:data:`ktype.models._table.MODEL_TABLE`) and their parameters into model objects, with
the messages the command line and the auditor show. They live beside the table, below the
API and the auditor that both use them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import unknown_name
from ..exceptions import InvalidParameterError
from ._base import PrivacyModel
from ._table import MODEL_TABLE, spec_by_name, spec_of

__all__ = ["MODEL_NAMES", "model_from_name", "models_from_names", "make_models", "default_k_model", "default_diversity"]


def _model_classes() -> dict[str, type]:
    """CLI name -> model class, from the one model table."""
    return {spec.name: spec.cls for spec in MODEL_TABLE}


#: the model names the CLI and :func:`model_from_name` accept (from the model table)
MODEL_NAMES: tuple[str, ...] = tuple(spec.name for spec in MODEL_TABLE)

#: CLI flag of each model parameter (for messages)
_FLAGS = {"k": "--k", "l": "--l", "c": "--c", "p": "--p", "t": "--t", "distance": "--distance",
          "sensitive": "--sensitive-attribute", "scope": "--scope"}


def _normalize_model_name(name: str) -> str:
    return str(name).strip().lower().replace("_", "-").replace("(", "").replace(")", "").replace(",", "").replace(" ", "-")


def model_from_name(name: str, **params: Any) -> PrivacyModel:
    """Build a model from its CLI name (``"k-anonymity"``, ``"k-concealment"``, ...).

    Parameters whose value is ``None`` are ignored. A parameter the model does not take is
    an error (``model_from_name("k-anonymity", k=10, l=3)`` raises), and so is a missing
    required one (``model_from_name("k-anonymity")`` says to give ``k``).
    """
    spec = spec_by_name(_normalize_model_name(name))
    if spec is None:
        raise unknown_name("privacy model", str(name), [m.name for m in MODEL_TABLE])
    given = {k: v for k, v in params.items() if v is not None}
    extra = sorted(set(given) - set(spec.params))
    if extra:
        takes = ", ".join(f"{p} ({_FLAGS.get(p, p)})" for p in spec.params)
        raise InvalidParameterError(
            f"{spec.name} does not take {', '.join(f'{p}={given[p]!r}' for p in extra)}; it takes {takes}. "
            "Remove the parameter or add a model that uses it."
        )
    missing = [p for p in spec.required if p not in given]
    if missing:
        raise InvalidParameterError(
            f"{spec.name} needs {', '.join(f'{p} ({_FLAGS.get(p, p)})' for p in missing)}; "
            f"e.g. {spec.name} with " + ", ".join(f"{p}={spec.test_params.get(p, '...')}" for p in missing) + "."
        )
    return spec.cls(**given)


def models_from_names(names: Sequence[str], **params: Any) -> list[PrivacyModel]:
    """Several models by name sharing one set of parameters (the ``ktype check`` flags).

    Each model receives the parameters it takes; a parameter that no named model takes is
    an error, and so is a missing required one. ``l`` must be an integer for distinct and
    recursive ℓ-diversity (never rounded).
    """
    given = {k: v for k, v in params.items() if v is not None}
    specs = []
    for nm in names:
        spec = spec_by_name(_normalize_model_name(nm))
        if spec is None:
            raise unknown_name("privacy model", str(nm), [m.name for m in MODEL_TABLE])
        specs.append(spec)
    unused = sorted(set(given) - {p for spec in specs for p in spec.params})
    if unused:
        raise InvalidParameterError(
            f"No model named ({', '.join(s.name for s in specs)}) takes {', '.join(f'{p}={given[p]!r}' for p in unused)}. "
            "Remove it or name the model that uses it with --model."
        )
    out = []
    for spec in specs:
        mine = {k: v for k, v in given.items() if k in spec.params}
        for key in ("k", "p"):
            if key in mine:
                mine[key] = _integer(key, mine[key], spec.name)
        if "l" in mine:
            integral = spec.name in _INTEGER_L
            mine["l"] = _integer("l", mine["l"], spec.name) if integral else _finite("l", mine["l"])
        for key in ("c", "t"):
            if key in mine:
                mine[key] = _finite(key, mine[key])
        out.append(model_from_name(spec.name, **mine))
    return out


#: ℓ-diversity models whose ℓ is an integer (never rounded)
_INTEGER_L = ("distinct-l-diversity", "recursive-cl-diversity", "transparent-l-diversity")


def _finite(name: str, value: Any) -> float:
    if isinstance(value, (bool, np.bool_)):  # True is not 1: k=True must not mean k = 1
        raise InvalidParameterError(f"The '{name}' parameter must be a number, not a boolean. Got {value!r} instead.")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"The '{name}' parameter must be a number. Got {value!r} instead.") from None
    if not math.isfinite(v):
        raise InvalidParameterError(f"The '{name}' parameter must be a finite number. Got {value!r} instead.")
    return v


def _integer(name: str, value: Any, what: str) -> int:
    v = _finite(name, value)
    if not v.is_integer():
        # only ℓ has real-valued variants; k and p are counts of records or values
        alt = ", or use entropy or frequency ℓ-diversity for a real-valued ℓ" if name == "l" else ""
        raise InvalidParameterError(
            f"{what} needs an integer {name}; got {name}={value!r}. It is not rounded: give an integer{alt}."
        )
    return int(v)


def default_k_model(info: Any) -> str:
    """The model ``k`` means for an algorithm: its own primary k-type model if it takes ``k``
    (``k_concealment`` -> k-concealment), else k-anonymity."""
    primary = spec_of(info.models[0]) if info.models else None
    if primary is not None and "k" in primary.params:
        return primary.name
    return "k-anonymity"


def default_diversity(info: Any) -> str:
    """The ℓ-diversity variant ``l`` means for an algorithm: the one its primary model uses
    (``transparent`` for Tailor/Ace/Hybrid, ``frequency`` for Mask and mondrian_ldiv), else
    ``distinct``. The same in Python, config and command line."""
    primary = info.models[0].__name__ if info.models else ""
    return {"TransparentLDiversity": "transparent", "FrequencyLDiversity": "frequency"}.get(primary, "distinct")


_DIVERSITY = {"distinct": "distinct-l-diversity", "entropy": "entropy-l-diversity",
              "recursive": "recursive-cl-diversity", "frequency": "frequency-l-diversity",
              "transparent": "transparent-l-diversity"}


def make_models(
    *,
    k: int | None = None,
    l: float | None = None,  # noqa: E741
    diversity: str | None = None,
    c: float | None = None,
    p: int | None = None,
    t: float | None = None,
    distance: str | None = None,
    sensitive: str | None = None,
    kind: str = "k-anonymity",
) -> list[PrivacyModel]:
    """Models from simple parameters: ``k`` (with ``kind`` among the k-type models), ``l``
    (with ``diversity`` in distinct/entropy/recursive/frequency, default distinct; ``c`` for
    recursive (c,ℓ)), ``p``, ``t`` (with ``distance``).

    Parameters are honoured or refused, never silently changed: a non-integer ``l`` for
    distinct or recursive ℓ-diversity, a NaN, ``c`` without recursive diversity, ``distance``
    without ``t`` or ``diversity`` without ``l`` raise :class:`InvalidParameterError`.
    """
    models: list[PrivacyModel] = []
    if k is not None:
        models.append(model_from_name(kind, k=_integer("k", k, kind)))
    elif _normalize_model_name(kind) not in ("k-anonymity", "kanonymity"):
        raise InvalidParameterError(f"The k-type model {kind!r} needs k (--k).")
    if l is None:
        if diversity is not None:
            raise InvalidParameterError(f"diversity={diversity!r} needs ℓ (--l).")
        if c is not None:
            raise InvalidParameterError("c is the c of recursive (c,ℓ)-diversity; give --l and --diversity recursive too.")
    else:
        variant = "distinct" if diversity is None else str(diversity).strip().lower()
        name = _DIVERSITY.get(variant)
        if name is None:
            raise unknown_name("ℓ-diversity variant", str(diversity), list(_DIVERSITY))
        lv = _finite("l", l)
        if name == "recursive-cl-diversity":
            if c is None:
                raise InvalidParameterError("Recursive (c,ℓ)-diversity needs c (--c), e.g. --l 3 --diversity recursive --c 2.")
            models.append(model_from_name(name, l=_integer("l", l, "Recursive (c,ℓ)-diversity"), c=_finite("c", c), sensitive=sensitive))
        else:
            if c is not None:
                raise InvalidParameterError(f"c applies to recursive (c,ℓ)-diversity only, not to {variant} ℓ-diversity.")
            lval: float | int = _integer("l", l, f"{variant.capitalize()} ℓ-diversity") if name in _INTEGER_L else lv
            models.append(model_from_name(name, l=lval, sensitive=sensitive))
    if p is not None:
        models.append(model_from_name("p-sensitivity", p=_integer("p", p, "p-sensitivity"), sensitive=sensitive))
    if t is not None:
        models.append(model_from_name("t-closeness", t=_finite("t", t), distance=distance or "equal", sensitive=sensitive))
    elif distance is not None:
        raise InvalidParameterError(f"distance={distance!r} is the ground distance of t-closeness; give --t too.")
    if not models:
        raise InvalidParameterError(
            "No privacy requirement: give k, l, p or t (Python: k=5 or model=...; command line: --k 5; config: k: 5). "
            "ktype never picks one for you."
        )
    return models
