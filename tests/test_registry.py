"""Registration mistakes are refused with a message naming the algorithm, never an IndexError."""

from __future__ import annotations

import pytest

from ktype.algorithms._registry import _REGISTRY, register
from ktype.exceptions import InternalError
from ktype.models.kanonymity import KAnonymity


def _impl_without_doc(dataset, models):  # no docstring on purpose
    raise AssertionError("never run")


@pytest.fixture
def clean_registry():
    before = set(_REGISTRY)
    yield
    for name in set(_REGISTRY) - before:
        del _REGISTRY[name]


def test_undocumented_algorithm_is_refused_by_name(clean_registry):
    with pytest.raises(InternalError, match="'undocumented_toy'.*description"):
        register("undocumented_toy", models=(KAnonymity,), recoding="local")(_impl_without_doc)
    assert "undocumented_toy" not in _REGISTRY


def test_description_stands_in_for_a_docstring(clean_registry):
    register("described_toy", models=(KAnonymity,), recoding="local", description="a toy")(_impl_without_doc)
    assert _REGISTRY["described_toy"].description == "a toy"


def test_docstring_first_line_is_the_description(clean_registry):
    def impl(dataset, models):
        """First line.

        More.
        """

    register("docstring_toy", models=(KAnonymity,), recoding="local")(impl)
    assert _REGISTRY["docstring_toy"].description == "First line."


def test_registering_twice_is_refused(clean_registry):
    register("twice_toy", models=(KAnonymity,), recoding="local", description="x")(_impl_without_doc)
    with pytest.raises(InternalError, match="registered twice"):
        register("twice_toy", models=(KAnonymity,), recoding="local", description="x")(_impl_without_doc)
