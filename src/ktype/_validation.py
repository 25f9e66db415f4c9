"""Parameter validation, name suggestions and random-state handling (SPEC 7)."""

from __future__ import annotations

import difflib
import math
import numbers
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .exceptions import InternalError, InvalidParameterError

__all__ = ["Interval", "Options", "check_params", "check_rng", "unknown_name", "renamed_hint", "RNGLike", "RENAMED"]

#: option values renamed to the names of ``ktype.measures.MEASURES`` (old name -> new name);
#: the old ones are rejected with a message naming the new one
RENAMED = {"lm": "loss_metric", "loss": "loss_metric", "em": "entropy"}


def renamed_hint(value: Any, valid: Iterable[Any]) -> str:
    """`` ('lm' is now called 'loss_metric')`` when ``value`` is an old name of a valid value."""
    if isinstance(value, str) and value in RENAMED and RENAMED[value] in tuple(valid):
        return f" ({value!r} is now called {RENAMED[value]!r}, the name in ktype.measures.)"
    return ""

RNGLike = int | np.random.Generator | None

#: how a randomized run was seeded (recorded in provenance; a seed value never is)
RANDOMNESS_SECRET = "secret OS entropy (seed not recorded)"
RANDOMNESS_CALLER_SEED = "seed given by the caller (not recorded)"
RANDOMNESS_CALLER_GENERATOR = "numpy Generator given by the caller"
RANDOMNESS_NONE = "none (deterministic algorithm)"
#: a randomized algorithm run with ``randomized=False`` (e.g. basic k-concealment)
RANDOMNESS_DETERMINISTIC_VARIANT = "none (deterministic variant, randomized=False)"
#: a randomized algorithm whose run happened to draw no random number (e.g. mask with no
#: group to replace): its output does not depend on the generator
RANDOMNESS_UNUSED = "none (the run made no random choice)"
#: the warning a release of a deterministic variant carries ({algorithm} is filled in)
DETERMINISTIC_WARNING = (
    "WARNING: {algorithm} ran its DETERMINISTIC variant (randomized=False / -o randomized=false): an adversary who "
    "knows the algorithm can rerun it on candidate tables and match the output (Kerckhoffs' principle). Use it for "
    "experiments, not for real releases; the default randomized variant is the one to publish."
)
#: the warning a summary carries when the caller fixed the randomness
REPRODUCIBLE_WARNING = (
    "This release was produced with a randomness source given by the caller (--rng / rng=): anyone who holds "
    "that seed and the input table can rerun the algorithm, reproduce the release and undo its randomization. "
    "Keep the seed secret, or omit it (secret OS entropy) for real releases."
)


@dataclass(frozen=True)
class Interval:
    """A numeric range constraint, e.g. ``Interval(int, 1, None, closed="left")``."""

    type: type
    left: float | None
    right: float | None
    closed: str = "both"  # "both", "left", "right", "neither"

    def accepts(self, value: Any) -> bool:
        if isinstance(value, bool):
            return False
        if self.type is int and not isinstance(value, numbers.Integral):
            return False
        if self.type is float and not isinstance(value, numbers.Real):
            return False
        if isinstance(value, float) and math.isnan(value):
            return False
        lo_ok = self.left is None or (
            value >= self.left if self.closed in ("both", "left") else value > self.left
        )
        hi_ok = self.right is None or (
            value <= self.right if self.closed in ("both", "right") else value < self.right
        )
        return lo_ok and hi_ok

    def describe(self) -> str:
        kind = "an int" if self.type is int else "a float"
        lb = "[" if self.closed in ("both", "left") and self.left is not None else "("
        rb = "]" if self.closed in ("both", "right") and self.right is not None else ")"
        left = "-inf" if self.left is None else _fmt(self.left)
        right = "inf" if self.right is None else _fmt(self.right)
        return f"{kind} in the range {lb}{left}, {right}{rb}"


@dataclass(frozen=True)
class Options:
    """A constraint accepting one of a fixed set of values."""

    values: tuple

    def accepts(self, value: Any) -> bool:
        return value in self.values

    def describe(self) -> str:
        return "one of " + ", ".join(repr(v) for v in self.values)


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def check_params(owner: str, params: dict[str, Any], constraints: dict[str, list]) -> None:
    """Validate ``params`` against ``constraints`` with scikit-learn's message template.

    ``constraints`` maps a parameter name to a list of accepted constraints; each is an
    :class:`Interval`, :class:`Options`, a type, or ``None`` (the value ``None``).
    """
    for name, allowed in constraints.items():
        value = params.get(name)
        if any(_accepts(c, value) for c in allowed):
            continue
        desc = " or ".join(_describe(c) for c in allowed)
        hint = "".join(renamed_hint(value, c.values) for c in allowed if isinstance(c, Options))
        raise InvalidParameterError(
            f"The '{name}' parameter of {owner} must be {desc}. Got {value!r} instead.{hint}"
        )


def _accepts(c: Any, value: Any) -> bool:
    if c is None:
        return value is None
    if isinstance(c, (Interval, Options)):
        return c.accepts(value)
    if isinstance(c, type):
        return isinstance(value, c) and not (c is not bool and isinstance(value, bool))
    if c == "rng":
        return value is None or isinstance(value, (numbers.Integral, np.random.Generator)) and not isinstance(value, bool)
    raise InternalError(f"unknown constraint {c!r}")


def _describe(c: Any) -> str:
    if c is None:
        return "None"
    if isinstance(c, (Interval, Options)):
        return c.describe()
    if isinstance(c, type):
        return f"an instance of {c.__name__!r}"
    if c == "rng":
        return "an int seed, a numpy Generator or None"
    return repr(c)


def check_rng(rng: RNGLike) -> tuple[np.random.Generator, str]:
    """Normalize ``rng`` once, at the entry point (SPEC 7).

    Returns the generator and a description of the randomness for provenance. The
    description **never contains a seed**: with ``rng=None`` the generator is seeded from
    fresh OS entropy that is never stored anywhere (whoever held that seed and the input could
    rerun the algorithm and undo the randomization the release relies on); with an explicit
    int seed or Generator the caller holds the secret, and the record says only that.
    """
    if rng is None:
        return np.random.default_rng(np.random.SeedSequence()), RANDOMNESS_SECRET
    if isinstance(rng, bool):
        raise InvalidParameterError("The 'rng' parameter must be an int seed, a numpy Generator or None. Got a bool.")
    if isinstance(rng, numbers.Integral):
        if rng < 0:
            raise InvalidParameterError(f"The 'rng' parameter must be a non-negative int seed. Got {rng}.")
        return np.random.default_rng(int(rng)), RANDOMNESS_CALLER_SEED
    if isinstance(rng, np.random.Generator):
        return rng, RANDOMNESS_CALLER_GENERATOR
    raise InvalidParameterError(
        f"The 'rng' parameter must be an int seed, a numpy Generator or None. Got {type(rng).__name__}."
    )


def unknown_name(kind: str, name: str, valid: Iterable[str]) -> InvalidParameterError:
    """Build the error for an unknown name, with the closest suggestion."""
    valid = sorted(valid)
    close = difflib.get_close_matches(name, valid, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    listing = ", ".join(repr(v) for v in valid)
    return InvalidParameterError(f"Unknown {kind} {name!r}.{hint} Valid: {listing}.")
