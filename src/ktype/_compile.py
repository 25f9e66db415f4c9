"""Numba compile-time accounting: how much of a call was spent compiling kernels.

ktype's kernels are compiled on first use and cached on disk (``cache=True``); on a fresh
install the first run pays the compilation. The registry reports it apart from the
algorithm's own time (``provenance["timings"]["compile_s"]``), measured with numba's event
API (``numba:compile`` events; nested compilations counted once).
"""

from __future__ import annotations

from types import TracebackType

import numba.core.event as _event

__all__ = ["CompileTimer"]


class CompileTimer:
    """Context manager: ``seconds`` spent in numba compilation inside the ``with`` block."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._listener = _event.TimingListener()
        self._ctx = _event.install_listener("numba:compile", self._listener)

    def __enter__(self) -> CompileTimer:
        self._ctx.__enter__()
        return self

    def __exit__(self, typ: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._ctx.__exit__(typ, exc, tb)
        self.seconds = float(self._listener.duration) if self._listener.done else 0.0
