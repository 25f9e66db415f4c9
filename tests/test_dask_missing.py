"""Without Dask installed, asking ``ktype.dask`` for one of its functions is a ktype error
that says what to install (not an ImportError traceback)."""

from __future__ import annotations

import sys

import pytest

import ktype.dask as kd
from ktype.exceptions import InvalidParameterError

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize("name", ["flash", "from_dask", "risk"])
def test_a_missing_dask_is_a_message_naming_the_extra_to_install(name, monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.dataframe", None)  # "import dask.dataframe" now raises ImportError
    with pytest.raises(InvalidParameterError, match=r"needs Dask: pip install 'ktype\[dask\]'"):
        kd.__getattr__(name)
