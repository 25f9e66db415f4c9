"""Testing utilities: the common algorithm check suite.

Public: ``parametrize_with_checks``, ``all_checks``, ``fixture_dataset``, ``default_model``.
"""

from .algorithm_checks import all_checks, default_model, fixture_dataset, parametrize_with_checks

__all__ = ["parametrize_with_checks", "all_checks", "fixture_dataset", "default_model"]
