"""Thread counts are scoped: ktype changes numba's thread count only inside
``ktype._jit.threads`` and restores it afterwards (docs/design/rules.md, kernels)."""

from __future__ import annotations

import numba
import numpy as np
import pandas as pd
import pytest

from ktype import Dataset
from ktype._jit import threads
from ktype.algorithms import run
from ktype.models import DistinctLDiversity, KAnonymity


def test_threads_sets_and_restores_the_count_also_on_error():
    prev = numba.get_num_threads()
    with threads(1):
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == prev
    with pytest.raises(ValueError), threads(1):
        raise ValueError("inside")
    assert numba.get_num_threads() == prev
    with threads(None):
        assert numba.get_num_threads() == prev
    with threads(10**6):  # clipped to the pool
        assert numba.get_num_threads() == numba.config.NUMBA_NUM_THREADS
    assert numba.get_num_threads() == prev


def test_mondrian_leaves_the_process_thread_count_unchanged():
    """Mondrian runs small tables on one thread; the caller's count is the same afterwards."""
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one numba thread: a changed count could not be seen")
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"u": rng.integers(0, 40, 200), "s": rng.choice(list("abcd"), 200)})
    ds = Dataset(df, quasi_identifiers=["u"], sensitive=["s"], hierarchies={"u": "ordered"})
    prev = numba.get_num_threads()
    try:
        numba.set_num_threads(2)
        rel = run("mondrian", ds, [KAnonymity(3), DistinctLDiversity(2)])  # the compiled core, < 200,000 rows
        assert rel.provenance["partitions"] > 1
        assert numba.get_num_threads() == 2
    finally:
        numba.set_num_threads(prev)
