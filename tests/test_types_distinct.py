"""Reading a typed column through its distinct values (``apply_types``) gives what converting it
row by row gives: the same values, the same dtype, the same missing cells, and for a value that
does not fit, the same message naming its first row."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ktype.data.types import apply_types, convert_column, infer_column
from ktype.exceptions import DataError

POOLS = {
    "int": ["1", " 2", "3 ", "-4", "0005", "17", "99"],
    "float": ["1.5", "2", "-0.25", "1e3", " 7.0", "3"],
    "date": ["2020-01-05", "2021-12-31", " 1999-07-04", "2000-02-29"],
    "text": ["a", "b", "1", "2020-01-05", "x y"],
}
BAD = {"int": ["1.5", "ten"], "float": ["1,5", "x"], "date": ["2020-13-01", "05/01/2020"], "text": []}


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(["int", "float", "date", "text"]), declared=st.booleans(), n=st.integers(1, 80),
       holes=st.sampled_from([0.0, 0.2]), bad=st.booleans(), seed=st.integers(0, 2**16), as_str=st.booleans())
def test_a_column_read_through_its_distinct_values_equals_the_row_wise_conversion(kind, declared, n, holes, bad, seed,
                                                                                  as_str):
    rng = np.random.default_rng(seed)
    pool = POOLS[kind][: int(rng.integers(1, len(POOLS[kind]) + 1))]  # few distinct values: the distinct path
    cells = rng.choice(pool, n).astype(object)
    cells[rng.random(n) < holes] = None
    if bad and BAD[kind]:
        cells[int(rng.integers(0, n))] = BAD[kind][int(rng.integers(0, len(BAD[kind])))]
    col = pd.Series(cells, dtype="str" if as_str else object, name="c")
    df = pd.DataFrame({"c": col})
    first_line = 2
    if declared:
        types, want_kind = {"c": kind}, kind
    else:
        types, want_kind = None, infer_column(col)
        want_kind = None if want_kind == "text" else want_kind
    try:
        want = convert_column(col, want_kind, "c", first_line) if want_kind else col
    except DataError as e:
        with pytest.raises(DataError) as got:
            apply_types(df, types, infer=not declared, first_line=first_line)
        assert str(got.value) == str(e)
        return
    got = apply_types(df, types, infer=not declared, first_line=first_line)["c"]
    pd.testing.assert_series_equal(got, want, check_names=False)


def test_the_first_bad_row_is_named_among_repeated_values():
    cells = ["12", "13", "12", None] * 50 + ["x12"] + ["12"] * 20 + ["x12"]
    with pytest.raises(DataError, match=r"declared int but line 202 holds 'x12'"):
        apply_types(pd.DataFrame({"age": pd.Series(cells, dtype=object)}), {"age": "int"}, first_line=2)
