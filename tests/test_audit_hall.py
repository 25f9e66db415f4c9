"""The audit's generalization step on a local recoding where a per-class count is not enough.

Overlapping boxes: rows [1-2] x 2 and [2-3] x 2 for the original values 1, 2, 3, 9. Each
box alone covers two records (a count per class passes), but the four rows together cover
only three records (1, 2, 3): by Hall's theorem no one-to-one assignment of rows to
records exists, so the table is no release of this original. The oracle is a brute force
over all assignments of the 4 rows to the 4 records.
"""

from __future__ import annotations

import itertools

import pandas as pd

from ktype.audit import audit
from ktype.models import KAnonymity


def _covers(label: str, value: int) -> bool:
    lo, hi = (int(x) for x in label.strip("[]").split("-"))
    return lo <= value <= hi


def test_overlapping_boxes_without_a_perfect_assignment_fail_the_audit():
    original = pd.DataFrame({"age": [1, 2, 3, 9], "s": ["x"] * 4})
    forged = pd.DataFrame({"age": ["[1-2]", "[1-2]", "[2-3]", "[2-3]"], "s": ["x"] * 4})
    assignable = any(all(_covers(forged["age"][r], original["age"][p[r]]) for r in range(4))
                     for p in itertools.permutations(range(4)))
    assert not assignable  # the brute-force oracle
    rep = audit(original, forged, KAnonymity(2), quasi_identifiers=["age"], sensitive=["s"], recoding="local")
    assert not rep.passed
    assert any(f.check == "generalization" for f in rep.findings), rep.findings
    # the same boxes over an original they can all be assigned to pass
    ok = pd.DataFrame({"age": [1, 2, 2, 3], "s": ["x"] * 4})
    assert audit(ok, forged, KAnonymity(2), quasi_identifiers=["age"], sensitive=["s"], recoding="local").passed
