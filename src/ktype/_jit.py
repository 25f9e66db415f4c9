"""Compiled kernels: numba's ``njit`` with an on-disk cache that is safe across processes.

Every compiled kernel of ktype is declared with :func:`njit` from this module (never with
``numba.njit(cache=True)`` directly; ``test_jit.py`` enforces it). It compiles exactly as
numba's decorator does; only the on-disk cache differs.

Why not numba's own cache
-------------------------
numba keeps, per function, an *index* file (signature -> data file name) and one *data* file
per compiled signature. Saving a new signature reads the index, picks the first free data
file number, writes the index back and then the data file, with no lock between processes.
Two processes that compile two different signatures of one function at the same time both
read the same index, both pick number 1, and whichever writes last wins each file
separately: the index can then send signature B to a file holding the machine code of
signature A. The next process that loads B runs A's code on B's arguments: wrong results or
a segmentation fault (numba issues #4807 and #10128 describe this family of races; ktype saw
Mondrian change its output and ``iterative_local`` crash after concurrent first runs).

What this module does
---------------------
1. **A lock per cached function.** Saving (read the index, choose the data file, write both)
   holds an exclusive ``flock`` on ``<index>.lock`` beside the index; loading (read the index,
   then the data file it names) holds a shared one. A reader therefore sees an index and data
   files written together, and two writers never choose the same file for different
   signatures.
2. **A check on load.** A loaded entry is used only if the signature stored *inside* its data
   file is the one asked for; otherwise it is treated as a miss, compiled afresh and saved over
   the bad entry. A cache corrupted earlier (by numba's own cache, or by a file system without
   working locks) therefore heals instead of running the wrong code.

What is safe, and what is not
-----------------------------
- Any number of processes (pytest-xdist workers, a job scheduler, Dask workers) may start at
  once on one installation and compile or load the same kernels: each gets the machine code of
  the signature it asked for.
- The cache lives where numba puts it (``__pycache__`` beside the source, or
  ``NUMBA_CACHE_DIR``); its entries are tied to numba's version and to the size and modification
  time of **every** source file of the ktype package, not only the kernel's own: numba compiles a
  kernel together with the kernels it calls, which may live in other files (the shared rule
  predicate of ``algorithms/_rules.py`` is compiled into Mondrian's and the transparent
  kernels), so a change to any of them must invalidate the caller's cached code. An upgrade of
  ktype or numba, or an edit of any ktype file, therefore never loads old code (the price: an
  edit recompiles the kernels on their next use).
- ``flock`` needs a local file system or an NFS that supports it. Where locking fails (a
  read-only cache directory: nobody writes it, so nothing can race) loading goes on without the
  lock and the check on load still applies.
- Set ``NUMBA_CACHE_DIR`` to a directory per user when several users share one installation,
  as numba itself advises.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import os
from collections.abc import Callable, Iterator
from typing import Any

import numba
from numba.core import sigutils
from numba.core.caching import FunctionCache, IndexDataCacheFile

from .exceptions import InternalError

__all__ = ["njit", "threads"]


@contextlib.contextmanager
def _flock(path: str, *, exclusive: bool) -> Iterator[None]:
    """Hold an advisory ``flock`` on *path* (created if absent) for the ``with`` block.

    A shared lock that cannot be taken because the file cannot be created (read-only cache
    directory) is skipped; an exclusive one is always taken (the caller is about to write the
    directory anyway, so failing to lock it is a real error)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:
        if exclusive:
            raise
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


class _LockedIndexDataCacheFile(IndexDataCacheFile):
    """numba's index + data files, read and written under one lock per function."""

    def __init__(self, cache_path: str, filename_base: str, source_stamp: Any) -> None:
        super().__init__(cache_path, filename_base, source_stamp)
        self._lock_path = self._index_path + ".lock"

    def save(self, key: Any, data: Any) -> None:
        with _flock(self._lock_path, exclusive=True):
            super().save(key, data)

    def load(self, key: Any) -> Any:
        if not os.path.exists(self._index_path):
            return None  # nothing cached yet; do not create lock files in a directory we only read
        with _flock(self._lock_path, exclusive=False):
            return super().load(key)


def _package_root(py_func: Callable[..., Any]) -> str | None:
    """The directory of the top-level package the kernel's module belongs to (ktype's own for
    ktype's kernels), or None for a kernel outside any package."""
    import sys

    top = sys.modules.get(str(getattr(py_func, "__module__", "")).split(".")[0])
    path = getattr(top, "__file__", None)
    if not path or not os.path.basename(path).startswith("__init__."):
        return None
    return os.path.dirname(os.path.abspath(path))


@functools.lru_cache(maxsize=8)
def package_stamp(root: str) -> tuple[int, int, str]:
    """A stamp of every ``.py`` file under ``root`` (count, total size, hash of the relative paths,
    sizes and modification times): part of every cached kernel's key (module docstring). Computed
    once per process."""
    entries = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith(".py"):
                st = os.stat(os.path.join(dirpath, name))
                entries.append(f"{os.path.relpath(os.path.join(dirpath, name), root)}:{st.st_size}:{st.st_mtime_ns}")
    digest = hashlib.sha256("\n".join(entries).encode()).hexdigest()
    return len(entries), sum(int(e.rsplit(":", 2)[1]) for e in entries), digest


def _stamp_of(py_func: Callable[..., Any]) -> tuple[int, int, str] | None:
    root = _package_root(py_func)
    return package_stamp(root) if root is not None else None


class _SafeFunctionCache(FunctionCache):
    """numba's ``FunctionCache`` with the locked index, the signature check on load, and a
    source stamp that covers the whole package (module docstring)."""

    def __init__(self, py_func: Callable[..., Any]) -> None:
        super().__init__(py_func)
        self._cache_file = _LockedIndexDataCacheFile(
            cache_path=self._cache_path,
            filename_base=self._impl.filename_base,
            source_stamp=(self._impl.locator.get_source_stamp(), _stamp_of(py_func)),
        )

    def _load_overload(self, sig: Any, target_context: Any) -> Any:
        cres = super()._load_overload(sig, target_context)
        if cres is None:
            return None
        args, _ = sigutils.normalize_signature(sig)
        if tuple(cres.signature.args) != tuple(args):
            return None  # another signature's code under this key: compile afresh, save over it
        return cres


def njit(*args: Any, cache: bool = True, **options: Any) -> Any:
    """``numba.njit`` with a process-safe on-disk cache (on by default).

    Used exactly as numba's decorator: ``@njit``, ``@njit(parallel=True)``,
    ``@njit(cache=False)``. Explicit signatures (eager compilation) are not supported: the
    cache must be attached before the first compilation, and ktype's kernels compile lazily.
    """
    if args and not callable(args[0]):
        raise InternalError("ktype._jit.njit takes no signatures: kernels compile lazily on first call")

    def decorate(func: Callable[..., Any]) -> Any:
        dispatcher = numba.njit(**options)(func)
        if cache:
            dispatcher._cache = _SafeFunctionCache(dispatcher.py_func)
        return dispatcher

    if args:
        return decorate(args[0])
    return decorate


@contextlib.contextmanager
def threads(n: int | None) -> Iterator[None]:
    """Run the ``with`` block with ``n`` numba threads (None: unchanged), then restore the
    count it had before, also when the block raises.

    ktype never changes numba's thread count for good: a user's ``numba.set_num_threads``
    (or ``NUMBA_NUM_THREADS``) stays in force after every call. ``n`` is clipped to
    ``[1, numba.config.NUMBA_NUM_THREADS]``.
    """
    previous = numba.get_num_threads()
    if n is not None:
        numba.set_num_threads(max(1, min(int(n), numba.config.NUMBA_NUM_THREADS)))
    try:
        yield
    finally:
        numba.set_num_threads(previous)
