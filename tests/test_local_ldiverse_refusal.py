"""agglomerative with ``l`` (Algorithm 8 of Tassa, Mazza & Gionis, Trans. Data Privacy 2012,
Appendix C) refuses an ``l`` above the whole table's diversity n / f_max — no clustering can
reach it — and the refusal says which ``l`` and what the table allows, recounted here."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ktype import Dataset
from ktype.algorithms import run
from ktype.exceptions import InfeasibleError
from ktype.models import KAnonymity


@pytest.mark.parametrize("l", [1.5, 2.0])
def test_an_l_above_the_tables_diversity_is_refused_with_the_numbers(l):  # noqa: E741
    sensitive = ["a"] * 9 + ["b", "c", "d"]
    df = pd.DataFrame({"age": np.arange(20, 32), "d": sensitive})
    ds = Dataset(df, quasi_identifiers=["age"], sensitive=["d"], hierarchies={"age": {"intervals": [5, 10, 20]}})
    n, f_max = len(sensitive), max(sensitive.count(v) for v in set(sensitive))
    assert n / f_max < l
    with pytest.raises(InfeasibleError) as err:
        run("agglomerative", ds, KAnonymity(2), l=l)
    assert f"l={l}" in str(err.value) and f"{n}/{f_max}" in str(err.value)
    assert run("agglomerative", ds, KAnonymity(2), l=n / f_max).provenance["local"]["l_diversity"] == n / f_max
