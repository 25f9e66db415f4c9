"""The comparisons of tests/test_dask.py (ktype.dask's checkers, measures, risk, flash, Mondrian
and written release against the in-memory functions on the same table) on dask's synchronous
scheduler: every task runs in this process, so they need no cluster.

A cluster takes seconds to start, which the mutation run (tools/mutation.py, group ``dask``)
would pay once per mutant; what the comparisons hold does not depend on where the tasks run.
The tests are those of test_dask.py, collected again here with the ``client`` fixture
replaced by the scheduler name ``"sync"``.
"""

from __future__ import annotations

import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

from tests.test_dask import (  # noqa: E402, F401  (collected here, with this module's fixture)
    test_a_failing_write_leaves_nothing,
    test_checkers_equal_in_memory_on_the_table_and_on_a_release,
    test_encoding_is_the_datasets,
    test_flash_same_optimum_on_random_partitioned_tables,
    test_frequency_set_too_large_for_the_driver_is_refused,
    test_measures_equal_in_memory,
    test_mondrian_on_dask_passes_the_in_memory_checker,
    test_parquet_dataset_input_and_bad_input,
    test_risk_equals_in_memory,
    test_written_release_is_the_in_memory_release,
)

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def client() -> str:
    return "sync"
