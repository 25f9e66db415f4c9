"""Progress of long runs: named stages and countable work, reported to a callback or a terminal bar.

A run reports through the reporter of its context (a :class:`contextvars.ContextVar`), so the
algorithms, the checkers and the audit report progress without a parameter threaded through
every function: :func:`reporting` installs one for the duration of a call, and the code that
does the work calls :func:`stage` (a context manager for a stage, with ``advance``/``update``
for countable work) or :func:`update`. Without a reporter every call is a context-variable
lookup and nothing else.

``progress`` (of :func:`ktype.anonymize`, :func:`ktype.algorithms.run`, the audit) is one of

* ``None`` or ``False`` — nothing (the Python default);
* a callable — called with a :class:`ProgressEvent` at the start and end of every stage and
  at most every ``0.1`` s in between;
* ``True`` — a progress bar on standard error when it is a terminal, else one plain line per
  stage and per tenth of the work;
* ``"auto"`` — the bar on a terminal, nothing on a pipe or file (the command line's default).

Events never carry data values: a stage name, counts and a short description of the work.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TextIO

__all__ = ["ProgressEvent", "ProgressCallback", "ProgressLike", "reporting", "stage", "update", "active"]


@dataclass(frozen=True)
class ProgressEvent:
    """One report: ``stage`` (e.g. ``"search"``), work ``done`` out of ``total`` (None when not
    countable), whether the stage just ``finished``, and a short ``detail``."""

    stage: str
    done: int
    total: int | None
    finished: bool = False
    detail: str = ""

    @property
    def fraction(self) -> float | None:
        """``done / total`` in [0, 1], or None when the work is not countable."""
        if not self.total:
            return None
        return min(max(self.done / self.total, 0.0), 1.0)


ProgressCallback = Callable[[ProgressEvent], None]
ProgressLike = bool | str | ProgressCallback | None

#: smallest interval between two in-stage reports to a callback (start and end always reported)
MIN_INTERVAL_S = 0.1


class _Reporter:
    def __init__(self, callback: ProgressCallback, min_interval: float = MIN_INTERVAL_S) -> None:
        self.callback = callback
        self.min_interval = min_interval
        self._last = 0.0
        #: stages open now, by name (an :func:`update` of an open stage updates it)
        self.open: dict[str, _Stage] = {}

    def emit(self, event: ProgressEvent, *, force: bool = False) -> None:
        now = time.monotonic()
        if force or event.finished or now - self._last >= self.min_interval:
            self._last = now
            self.callback(event)


_CURRENT: ContextVar[_Reporter | None] = ContextVar("ktype_progress", default=None)


def active() -> bool:
    """Whether a reporter is listening (lets costly progress bookkeeping be skipped)."""
    return _CURRENT.get() is not None


class _Stage:
    def __init__(self, reporter: _Reporter | None, name: str, total: int | None, detail: str) -> None:
        self.reporter, self.name, self.total, self.detail = reporter, name, total, detail
        self.done = 0

    def update(self, done: int, total: int | None = None, detail: str | None = None, *, force: bool = False) -> None:
        """Work done so far (absolute); ``force`` reports it whatever the rate limit (a named step)."""
        self.done = int(done)
        if total is not None:
            self.total = int(total)
        if detail is not None:
            self.detail = detail
        if self.reporter is not None:
            self.reporter.emit(ProgressEvent(self.name, self.done, self.total, False, self.detail), force=force)

    def advance(self, n: int = 1) -> None:
        """``n`` more units of work done."""
        self.update(self.done + n)


@contextmanager
def stage(name: str, total: int | None = None, detail: str = "") -> Iterator[_Stage]:
    """A stage of the current run: reported when it starts and when it ends (not when it fails)."""
    reporter = _CURRENT.get()
    st = _Stage(reporter, name, total, detail)
    if reporter is None:
        yield st
        return
    outer = reporter.open.get(name)
    reporter.open[name] = st
    reporter.emit(ProgressEvent(name, 0, total, False, detail), force=True)
    try:
        yield st
    finally:
        if outer is None:
            reporter.open.pop(name, None)
        else:
            reporter.open[name] = outer
    done = st.total if st.total is not None else st.done
    reporter.emit(ProgressEvent(name, done, st.total, True, st.detail), force=True)


def update(name: str, done: int, total: int | None = None, detail: str = "", *, force: bool = False) -> None:
    """A progress report: updates the open :func:`stage` of that name, if any (rate-limited unless ``force``)."""
    reporter = _CURRENT.get()
    if reporter is None:
        return
    st = reporter.open.get(name)
    if st is not None:
        st.update(done, total, detail or None, force=force)
    else:
        reporter.emit(ProgressEvent(name, int(done), None if total is None else int(total), False, detail), force=force)


class _LineWriter:
    """Plain progress lines (for ``progress=True`` when standard error is not a terminal)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._tenth: dict[str, int] = {}

    def __call__(self, ev: ProgressEvent) -> None:
        frac = ev.fraction
        if ev.finished:
            self._tenth.pop(ev.stage, None)
            line = f"ktype: {ev.stage} done" + (f" ({ev.done:,}/{ev.total:,})" if ev.total else "")
        elif ev.stage not in self._tenth:
            self._tenth[ev.stage] = 0
            line = f"ktype: {ev.stage}..." + (f" {ev.detail}" if ev.detail else "")
        elif frac is not None and int(frac * 10) > self._tenth.get(ev.stage, 0):
            self._tenth[ev.stage] = int(frac * 10)
            line = f"ktype: {ev.stage} {frac:.0%} ({ev.done:,}/{ev.total:,})"
        else:
            return
        print(line, file=self.stream, flush=True)


class _Bar:
    """A rich progress bar per stage on standard error (transient: it disappears when done)."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self.progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.completed:,}/{task.total:,}"),
            TimeElapsedColumn(), console=Console(stderr=True), transient=True,
        )
        self.tasks: dict[str, Any] = {}

    def __call__(self, ev: ProgressEvent) -> None:
        task = self.tasks.get(ev.stage)
        if task is None:
            if ev.finished:
                return
            self.progress.start()
            task = self.tasks[ev.stage] = self.progress.add_task(ev.stage, total=ev.total)
        self.progress.update(task, completed=ev.done, total=ev.total)
        if ev.finished:
            self.progress.remove_task(task)
            del self.tasks[ev.stage]
            if not self.tasks:
                self.progress.stop()

    def close(self) -> None:
        if self.tasks:
            self.progress.stop()
            self.tasks.clear()


def _resolve(progress: ProgressLike, stream: TextIO | None) -> tuple[ProgressCallback | None, Callable[[], None]]:
    from .exceptions import InvalidParameterError

    def nothing() -> None:
        return None

    if progress is None or progress is False:
        return None, nothing
    if callable(progress):
        return progress, nothing
    if progress is True or progress == "auto":
        out = stream if stream is not None else sys.stderr
        terminal = bool(getattr(out, "isatty", lambda: False)())
        if terminal and stream is None:
            bar = _Bar()
            return bar, bar.close
        if progress is True:
            return _LineWriter(out), nothing
        return None, nothing
    raise InvalidParameterError(
        f"progress must be None, False, True, 'auto' or a callable taking a ProgressEvent; got {progress!r}."
    )


@contextmanager
def reporting(progress: ProgressLike, *, stream: TextIO | None = None) -> Iterator[None]:
    """Report the progress of the enclosed work as ``progress`` says (see the module docstring).

    Nested calls keep the outer reporter when the inner one is None (an algorithm run inside
    an audit reports to the audit's listener).
    """
    callback, close = _resolve(progress, stream)
    if callback is None:
        yield
        return
    token = _CURRENT.set(_Reporter(callback))
    try:
        yield
    finally:
        _CURRENT.reset(token)
        close()
