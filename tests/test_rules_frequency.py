"""The frequency ℓ-diversity rule that the local ℓ-diversity steps build from ``l`` itself
(``ktype.algorithms._rules.frequency_rule``), against its definition in exact arithmetic: a
class passes when its most frequent sensitive value makes up at most 1/ℓ of its records,
ℓ read as the decimal the user wrote (1.1 is 11/10, not the float just above it)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from ktype.algorithms._rules import frequency_rule, rule_verdicts

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize("l", [1, 1.1, 1.5, 2, 4 / 3, 2.5, 3])  # noqa: E741
def test_frequency_rule_passes_when_the_top_value_is_at_most_one_lth_of_the_class(l):  # noqa: E741
    rng = np.random.default_rng(7)
    hists = rng.integers(0, 6, size=(400, 4))
    # classes right at the threshold: top count times l equals the size
    hists[:4] = [[2, 1, 0, 0], [1, 1, 1, 0], [10, 1, 0, 0], [3, 3, 3, 1]]
    hists = hists[hists.sum(axis=1) > 0]
    sizes = hists.sum(axis=1)
    got = rule_verdicts(frequency_rule(l), sizes, hists)
    ell = Fraction(str(l)).limit_denominator(10**6)
    want = [Fraction(int(h.max()), int(s)) * ell <= 1 for h, s in zip(hists, sizes, strict=True)]
    assert got.tolist() == want
    assert 0 < sum(want) < len(want) or l == 1  # both verdicts occur (l = 1 passes every class)
