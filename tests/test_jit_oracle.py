"""The process-safe numba cache's pieces, called in this process (``test_jit_cache.py`` runs them
in subprocesses, where a mutation-testing tracer cannot see them): which package's source stamp
keys a kernel, and the lock that makes a reader wait for a writer of the same cache index."""

from __future__ import annotations

import fcntl
import os
import sys
import threading
import types

import pytest

import ktype
from ktype import _jit
from ktype.risk import _kernels as risk_kernels


def _function_in(module_name: str) -> types.FunctionType:
    def f() -> None:
        return None

    f.__module__ = module_name
    return f


def test_a_ktype_kernel_is_keyed_by_ktypes_own_package_directory():
    kernel = next(v for v in vars(risk_kernels).values() if hasattr(v, "py_func"))
    expected = os.path.dirname(os.path.abspath(ktype.__file__))  # oracle: where `import ktype` found it
    assert _jit._package_root(kernel.py_func) == expected
    assert _jit._package_root(_function_in("ktype.risk._kernels")) == expected


def test_a_function_outside_any_package_has_no_package_stamp(monkeypatch):
    plain = types.ModuleType("ktype_probe_plain")  # a top-level module file, not a package
    plain.__file__ = "/somewhere/ktype_probe_plain.py"
    monkeypatch.setitem(sys.modules, "ktype_probe_plain", plain)
    assert _jit._package_root(_function_in("ktype_probe_plain")) is None
    namespace = types.ModuleType("ktype_probe_namespace")  # a namespace package: no __init__ file
    namespace.__file__ = None
    monkeypatch.setitem(sys.modules, "ktype_probe_namespace", namespace)
    assert _jit._package_root(_function_in("ktype_probe_namespace.inner")) is None
    assert _jit._package_root(_function_in("ktype_probe_not_imported.inner")) is None  # no module at all
    nameless = _function_in("x")
    del nameless.__module__  # a callable without a module: nothing to stamp
    assert _jit._package_root(nameless) is None


def test_a_package_whose_init_is_compiled_counts_as_a_package(monkeypatch, tmp_path):
    pkg = types.ModuleType("ktype_probe_pkg")
    pkg.__file__ = str(tmp_path / "ktype_probe_pkg" / "__init__.pyc")
    monkeypatch.setitem(sys.modules, "ktype_probe_pkg", pkg)
    assert _jit._package_root(_function_in("ktype_probe_pkg.mod")) == str(tmp_path / "ktype_probe_pkg")


def _cache_file(tmp_path) -> _jit._LockedIndexDataCacheFile:
    return _jit._LockedIndexDataCacheFile(str(tmp_path), "kernel-probe", ("stamp", 1))


def test_a_saved_entry_loads_back_and_an_absent_index_creates_no_lock(tmp_path):
    cache = _cache_file(tmp_path)
    assert cache.load(("sig", "int64")) is None
    assert os.listdir(tmp_path) == []  # a reader of an empty cache writes nothing there
    cache.save(("sig", "int64"), {"code": b"\x01\x02"})
    assert _cache_file(tmp_path).load(("sig", "int64")) == {"code": b"\x01\x02"}
    assert _cache_file(tmp_path).load(("sig", "float64")) is None


@pytest.mark.parametrize("operation", ["load", "save"])
def test_a_cache_operation_waits_while_another_process_holds_the_lock(tmp_path, operation):
    """The lock is what keeps a reader from seeing an index and data file of different writers:
    while an exclusive ``flock`` is held on ``<index>.lock`` (as a writer in another process holds
    it), neither a load nor a save of the same index proceeds; both finish once it is released."""
    cache = _cache_file(tmp_path)
    cache.save(("sig", "int64"), "first")
    fd = os.open(cache._index_path + ".lock", os.O_RDWR)  # a second open file description: as another process
    fcntl.flock(fd, fcntl.LOCK_EX)
    done = threading.Event()
    out: list[object] = []

    def work() -> None:
        try:
            if operation == "load":
                out.append(cache.load(("sig", "int64")))
            else:
                cache.save(("sig", "float64"), "second")
                out.append("saved")
        except BaseException as e:  # noqa: BLE001 - reported by the assertion below
            out.append(e)
        finally:
            done.set()

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    try:
        assert not done.wait(0.5), f"{operation} did not wait for the lock: {out}"
    finally:
        os.close(fd)  # releases the lock
    assert done.wait(30)
    assert out == (["first"] if operation == "load" else ["saved"])
