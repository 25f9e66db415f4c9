"""Anonymization algorithms, grouped by recoding model, and their registry.

Public: ``run``, ``get_algorithm``, ``all_algorithms``, ``AlgorithmInfo``, ``register``,
``verify_release``. Each registered algorithm is also reachable by name through
:func:`run` and ``ktype anonymize --algorithm NAME``.
"""

from ._registry import AlgorithmInfo, all_algorithms, get_algorithm, register, run, verify_release

__all__ = ["AlgorithmInfo", "all_algorithms", "get_algorithm", "register", "run", "verify_release"]
