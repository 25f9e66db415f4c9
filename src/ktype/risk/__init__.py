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

from typing import TYPE_CHECKING

from .._lazy import attach

# ``suda`` is both a submodule and its function: imported eagerly so that the package
# attribute is the function (a lazy name would be shadowed by the submodule once imported)
from .suda import MAX_SUDA_SIZE, SudaResult, suda

#: public name -> submodule (imported on first use: scipy.stats loads only for population uniqueness)
_LAZY: dict[str, tuple[str, str | None]] = {
    "risk_drivers": ("ktype.risk.drivers", "risk_drivers"),
    "IdentifierHint": ("ktype.risk.hipaa", "IdentifierHint"),
    "identifier_hints": ("ktype.risk.hipaa", "identifier_hints"),
    "IndividualRisk": ("ktype.risk.individual", "IndividualRisk"),
    "expected_inverse_frequency": ("ktype.risk.individual", "expected_inverse_frequency"),
    "individual_risk": ("ktype.risk.individual", "individual_risk"),
    "AttackerRisk": ("ktype.risk.reidentification", "AttackerRisk"),
    "ReidentificationRisk": ("ktype.risk.reidentification", "ReidentificationRisk"),
    "reidentification_risk": ("ktype.risk.reidentification", "reidentification_risk"),
    "PopulationUniqueness": ("ktype.risk.uniqueness", "PopulationUniqueness"),
    "dankar_uniques": ("ktype.risk.uniqueness", "dankar_uniques"),
    "pitman_uniques": ("ktype.risk.uniqueness", "pitman_uniques"),
    "population_uniqueness": ("ktype.risk.uniqueness", "population_uniqueness"),
    "snb_uniques": ("ktype.risk.uniqueness", "snb_uniques"),
    "zayatz_uniques": ("ktype.risk.uniqueness", "zayatz_uniques"),
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


__getattr__, __dir__ = attach(__name__, _LAZY, __all__)


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
