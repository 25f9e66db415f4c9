"""Risk analysis before and after anonymization (what ARX's risk view and sdcMicro's
``measure_risk``/``suda2`` answer). Every function takes a :class:`~ktype.Dataset`, a
pandas DataFrame (with ``quasi_identifiers=``) or a :class:`~ktype.Release`.

Public API (``__all__``):

* :func:`reidentification_risk` -> :class:`ReidentificationRisk` (:class:`AttackerRisk`
  per model) — prosecutor, journalist and marketer risk (El Emam), per record, highest,
  average, share above a threshold; journalist from a population table or a sampling
  fraction.
* :func:`population_uniqueness` -> :class:`PopulationUniqueness` — Pitman, Zayatz, SNB
  and Dankar et al.'s rule (:func:`pitman_uniques`, :func:`zayatz_uniques`,
  :func:`snb_uniques`, :func:`dankar_uniques`).
* :func:`individual_risk` -> :class:`IndividualRisk` — sdcMicro-style individual risk with
  sampling weights (Benedetti–Franconi); :func:`expected_inverse_frequency`.
* :func:`suda` -> :class:`SudaResult` — minimal sample uniques, SUDA scores, attribute
  contributions (``max_size <= MAX_SUDA_SIZE``).
* :func:`risk_drivers` — per-QI uniqueness when the attribute is removed or generalized
  one level.
* :func:`identifier_hints` -> list of :class:`IdentifierHint` — HIPAA Safe Harbor
  direct-identifier hints from column names and values.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# ``suda`` is both a submodule and its function: imported eagerly so that the package
# attribute is the function (a lazy name would be shadowed by the submodule once imported)
from .suda import MAX_SUDA_SIZE, SudaResult, suda

#: public name -> submodule (imported on first use: scipy.stats loads only for population uniqueness)
_LAZY: dict[str, str] = {
    "risk_drivers": "drivers",
    "IdentifierHint": "hipaa",
    "identifier_hints": "hipaa",
    "IndividualRisk": "individual",
    "expected_inverse_frequency": "individual",
    "individual_risk": "individual",
    "AttackerRisk": "reidentification",
    "ReidentificationRisk": "reidentification",
    "reidentification_risk": "reidentification",
    "PopulationUniqueness": "uniqueness",
    "dankar_uniques": "uniqueness",
    "pitman_uniques": "uniqueness",
    "population_uniqueness": "uniqueness",
    "snb_uniques": "uniqueness",
    "zayatz_uniques": "uniqueness",
}

__all__ = [
    "AttackerRisk",
    "ReidentificationRisk",
    "reidentification_risk",
    "PopulationUniqueness",
    "population_uniqueness",
    "pitman_uniques",
    "zayatz_uniques",
    "snb_uniques",
    "dankar_uniques",
    "IndividualRisk",
    "individual_risk",
    "expected_inverse_frequency",
    "SudaResult",
    "suda",
    "MAX_SUDA_SIZE",
    "risk_drivers",
    "IdentifierHint",
    "identifier_hints",
]


def __getattr__(name: str) -> Any:
    try:
        module = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'ktype.risk' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:
    from .drivers import risk_drivers
    from .hipaa import IdentifierHint, identifier_hints
    from .individual import IndividualRisk, expected_inverse_frequency, individual_risk
    from .reidentification import AttackerRisk, ReidentificationRisk, reidentification_risk
    from .suda import MAX_SUDA_SIZE, SudaResult, suda
    from .uniqueness import (
        PopulationUniqueness,
        dankar_uniques,
        pitman_uniques,
        population_uniqueness,
        snb_uniques,
        zayatz_uniques,
    )
