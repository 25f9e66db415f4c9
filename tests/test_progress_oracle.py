"""Progress reporting and the exceptions' payloads, stated as properties: what a listener
receives, where the bar is drawn, what an error carries."""

from __future__ import annotations

import pytest

from ktype._progress import ProgressEvent, _Bar, reporting, update
from ktype.exceptions import AuditError, UnassignedColumnsError

pytestmark = pytest.mark.timeout(60)


def test_an_update_outside_any_stage_reaches_the_listener_as_given():
    events: list[ProgressEvent] = []
    with reporting(events.append):
        update("read", 3, 10, "rows", force=True)
        update("read", 7, force=True)
    assert events == [ProgressEvent("read", 3, 10, False, "rows"), ProgressEvent("read", 7, None, False, "")]


def test_the_bar_draws_on_standard_error_one_task_per_stage():
    """The bar never writes to standard output (a command's --json output goes there)."""
    bar = _Bar()
    assert bar.progress.console.stderr
    bar(ProgressEvent("search", 1, 10))
    bar(ProgressEvent("search", 5, 10))
    bar(ProgressEvent("verify", 0, 3))
    assert len(bar.progress.tasks) == 2
    bar(ProgressEvent("search", 10, 10, finished=True))
    assert [t.description for t in bar.progress.tasks] == ["verify"]
    bar(ProgressEvent("verify", 3, 3, finished=True))
    assert bar.progress.tasks == [] and bar.tasks == {}
    bar.close()


def test_errors_carry_their_message_and_payload():
    e = UnassignedColumnsError("columns without a role: 'name'", ["name"], frame="F")
    assert str(e) == "columns without a role: 'name'" and e.columns == ["name"] and e.frame == "F"
    a = AuditError("row 3 is not a generalization", report="R")
    assert str(a) == "row 3 is not a generalization" and a.report == "R"


def test_lazy_attributes_resolve_once_and_name_what_is_missing(monkeypatch):
    """``_lazy.attach`` on a package of its own: a listed name imports its module on first use
    and is then cached in the package; a submodule is found when asked for; an unknown name is
    an AttributeError naming package and attribute; ``dir`` lists the public names."""
    import sys
    import types

    from ktype._lazy import attach

    pkg = types.ModuleType("ktype_lazy_probe")
    pkg.__path__ = []  # a package: submodules are looked up under it
    monkeypatch.setitem(sys.modules, "ktype_lazy_probe", pkg)
    getattr_, dir_ = attach("ktype_lazy_probe", {"dumps": ("json", "dumps"), "jsonmod": ("json", None)},
                            ["dumps", "jsonmod", "extra"])
    import json

    assert getattr_("dumps") is json.dumps and vars(pkg)["dumps"] is json.dumps
    assert getattr_("jsonmod") is json and vars(pkg)["jsonmod"] is json
    with pytest.raises(AttributeError, match="module 'ktype_lazy_probe' has no attribute 'nope'"):
        getattr_("nope")
    assert dir_() == sorted(set(vars(pkg)) | {"dumps", "jsonmod", "extra"})
    sub_getattr, _ = attach("ktype", {}, [], submodules=True)
    assert sub_getattr("exceptions") is sys.modules["ktype.exceptions"]
    with pytest.raises(AttributeError, match="has no attribute '__wrapped__'"):
        sub_getattr("__wrapped__")
    plain_getattr, _ = attach("ktype", {}, [])  # without submodules=True a submodule is not an attribute
    with pytest.raises(AttributeError, match="module 'ktype' has no attribute 'exceptions'"):
        plain_getattr("exceptions")
