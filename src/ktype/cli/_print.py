"""Printing helpers shared by the commands.

The consoles are looked up on ``ktype.cli._app`` at each call (``_app.out``/``_app.err``),
so a test (or an embedding program) can replace them there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from rich.console import Console

from . import _app
from ._app import EXIT_DATA


def stdout() -> Console:
    return _app.out


def stderr() -> Console:
    return _app.err


def fail(e: Exception, code: int = EXIT_DATA) -> None:
    """Print an error's message (never a traceback) and exit with ``code``."""
    from rich.markup import escape

    stderr().print(f"[bold red]error:[/] {escape(str(e))}")  # a message may quote '[/0]': never markup
    raise typer.Exit(code)


def warnings(items: list[str]) -> None:
    from rich.markup import escape

    for w in items:
        stderr().print(f"[bold yellow]{escape(str(w))}[/]")


def print_json(value: Any) -> None:
    import json

    print(json.dumps(value, indent=2, default=str))


def fmt_num(v: Any) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return f"{v:.4g}"
    return f"{v:,}" if isinstance(v, int) else str(v)
