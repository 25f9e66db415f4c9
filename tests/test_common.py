"""Every registered algorithm passes the common check suite."""

from ktype.algorithms import all_algorithms
from ktype.testing.algorithm_checks import parametrize_with_checks


@parametrize_with_checks(all_algorithms())
def test_algorithm(info, check):
    check(info)
