"""Testing utilities: the common algorithm check suite.

Public: ``parametrize_with_checks``, ``all_checks``, ``fixture_dataset``, ``default_model``.
Submodule :mod:`ktype.testing.repo_data` finds the datasets of the tests, benchmarks and
experiments in the repository (``data/``, source checkout only).
"""

from .algorithm_checks import all_checks, default_model, fixture_dataset, parametrize_with_checks

__all__ = ["parametrize_with_checks", "all_checks", "fixture_dataset", "default_model"]
