"""Registration mistakes are refused with a message naming the algorithm, never an IndexError."""

from __future__ import annotations

import pytest

from ktype.algorithms._registry import _REGISTRY, all_algorithms, register
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


# The catalog says which module registers each algorithm, so that running one imports only its module.
def test_the_catalog_names_every_algorithm_and_the_module_that_registers_it():
    from ktype.algorithms import _catalog

    names = {a.name: a.impl.__module__ for a in all_algorithms()}
    assert set(_catalog.CATALOG) == set(names)
    for name, module in names.items():
        assert module == _catalog.CATALOG[name] or module.startswith(_catalog.CATALOG[name] + "."), name


def test_running_one_algorithm_imports_only_its_module():
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from ktype.algorithms import get_algorithm\n"
        "get_algorithm('flash')\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('ktype.algorithms.'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert "ktype.algorithms.fulldomain._api" in out
    assert not [m for m in out if m.startswith(("ktype.algorithms.freeform", "ktype.algorithms.local",
                                                "ktype.algorithms.transparent", "ktype.algorithms.mondrian"))], out


_SLOW_PROBE = """
import time

from ktype.algorithms._registry import register
from ktype.models.kanonymity import KAnonymity


@register("slow_import_probe", models=(KAnonymity,), recoding="full-domain", description="test probe")
def slow_import_probe(dataset, models):
    return _helper(dataset, models)


time.sleep(1.0)  # a large module takes a while to finish importing after it registered


def _helper(dataset, models):
    from ktype.algorithms import get_algorithm

    return get_algorithm("flash").impl(dataset, models, measure="loss_metric", max_suppression=0.0)
"""


def test_a_thread_never_gets_an_algorithm_whose_module_is_still_importing(clean_registry, monkeypatch, tmp_path):
    """get_algorithm imports the algorithm's module even when the name is already registered,
    so a second thread waits for the import to finish instead of running half a module."""
    import sys
    import threading
    import time

    from ktype.algorithms import _catalog, get_algorithm
    from ktype.data import load_adult

    (tmp_path / "ktype_slow_probe.py").write_text(_SLOW_PROBE)  # written here: never collected by pytest
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(_catalog.CATALOG, "slow_import_probe", "ktype_slow_probe")
    monkeypatch.delitem(sys.modules, "ktype_slow_probe", raising=False)
    ds = load_adult(n=200)
    errors: list[BaseException] = []

    def first():
        get_algorithm("slow_import_probe")

    def second():
        try:
            time.sleep(0.3)  # the first thread is inside the module's import, after register
            get_algorithm("slow_import_probe").func(ds, KAnonymity(3))
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    sys.modules.pop("ktype_slow_probe", None)
    assert not errors, errors
