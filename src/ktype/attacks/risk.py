"""Prosecutor re-identification risk (kept for compatibility; the full risk analysis —
prosecutor, journalist and marketer risk, population uniqueness, individual risk, SUDA —
lives in :mod:`ktype.risk`).

Prosecutor model (El Emam & Dankar, JAMIA 2008): ``1 / |class|`` per record; for k-type
local recodings ``1 / #matches`` (the exact posterior is
:func:`ktype.attacks.matching.match_posteriors`).
"""

from __future__ import annotations

from ..risk.reidentification import RiskReport, dataset_risk, release_risk

__all__ = ["RiskReport", "release_risk", "dataset_risk"]
