"""The ``ktype`` command line.

Commands: ``anonymize``, ``check``, ``metrics``, ``risk``, ``attack``, ``anatomy``,
``check-anatomy``, ``datasets``, ``algorithms``. Every option can also come from a YAML or
TOML file given with ``--config`` (keys are the option names with ``_`` or ``-``; flags on the
command line win); unknown keys and values of the wrong type are errors in every command.

Layout: :mod:`._app` (the typer app, exit codes, consoles), :mod:`._options` (one declaration
per option, shared by the commands, and :func:`._options.gather`), :mod:`._reading` (the one
reading path), :mod:`._print` (printing helpers), and one module per command or command group.
A new command is a new module here that registers on ``_app.app`` and is imported below.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import typer

from ..exceptions import KtypeError
from . import _app
from . import anatomy as _anatomy  # noqa: F401 - registers its commands
from . import anonymize as _anonymize  # noqa: F401
from . import attack as _attack  # noqa: F401
from . import check as _check  # noqa: F401
from . import link as _link  # noqa: F401
from . import listing as _listing  # noqa: F401
from . import report as _report  # noqa: F401
from . import risk as _risk  # noqa: F401
from . import webapp as _webapp  # noqa: F401
from ._app import (
    EXIT_DATA,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    EXIT_VIOLATION,
    app,
)

__all__ = ["app", "run", "main", "EXIT_OK", "EXIT_VIOLATION", "EXIT_USAGE", "EXIT_DATA", "EXIT_INTERNAL",
           "EXIT_INTERRUPTED", "err", "out"]


def __getattr__(name: str) -> Any:
    if name in ("err", "out"):  # created on first use (ktype.cli._app)
        return getattr(_app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@contextlib.contextmanager
def _warnings_as_messages(escape: Callable[[str], str]) -> Iterator[None]:
    """Inside the block, a Python warning (ktype's, or a library's) is one ``warning:`` line on
    standard error, each distinct message once, instead of Python's ``file:line: Category``
    followed by a line of ktype's source. The previous warning filters and printer come back
    afterwards (the CLI may run inside another program)."""
    import warnings

    shown: set[str] = set()

    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
             file: Any = None, line: str | None = None) -> None:
        text = str(message)
        if text not in shown:
            shown.add(text)
            _app.err.print(f"[bold yellow]warning:[/] {escape(text)}")

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield


def run(argv: Sequence[str] | None = None) -> int:
    """Run one ``ktype`` command line and return its exit code (the table in :mod:`._app`).

    Every outcome goes through here: no traceback reaches a user. A :class:`KtypeError`
    (bad data, parameter, config or file) or an unusable path prints its message (exit 3); a command-line
    mistake prints the usage error (exit 2); Ctrl-C prints ``interrupted`` (exit 130); any
    other exception is a bug in ktype and says so (exit 4; ``KTYPE_DEBUG=1`` re-raises it).
    """
    import os

    from typer._click.exceptions import ClickException

    def escape(text: str) -> str:
        from rich.markup import escape as rich_escape

        return rich_escape(text)

    try:
        with _warnings_as_messages(escape):
            rv = app(args=list(argv) if argv is not None else None, standalone_mode=False, prog_name="ktype")
    except typer.Exit as e:
        return int(e.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        _app.err.print("[bold red]interrupted[/]: nothing was written (outputs are complete or absent).")
        return EXIT_INTERRUPTED
    except ClickException as e:
        e.show()
        return EXIT_USAGE
    except KtypeError as e:
        _app.err.print(f"[bold red]error:[/] {escape(str(e))}")
        return EXIT_DATA
    except NotImplementedError as e:
        _app.err.print(f"[bold red]error:[/] not implemented: {escape(str(e))}")
        return EXIT_DATA
    except OSError as e:  # a path the user gave cannot be read or written
        where = f" {e.filename!r}" if getattr(e, "filename", None) else ""
        _app.err.print(f"[bold red]error:[/] cannot use{escape(where)}: {escape(str(e.strerror or e))}.")
        return EXIT_DATA
    except Exception as e:  # a bug: say so in one line, never a traceback
        if os.environ.get("KTYPE_DEBUG") == "1":
            raise
        _app.err.print(f"[bold red]internal error[/] (a bug in ktype; please report it with the command line): "
                  f"{type(e).__name__}: {escape(str(e))}. Set KTYPE_DEBUG=1 to see the traceback.")
        return EXIT_INTERNAL
    return int(rv) if isinstance(rv, int) else EXIT_OK


def main() -> None:
    """Console entry point: :func:`run` on ``sys.argv``."""
    sys.exit(run())
