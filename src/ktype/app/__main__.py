"""``python -m ktype.app [--host HOST] [--port PORT]``: start the app (what ``ktype app`` runs)."""

from __future__ import annotations

import argparse
import sys


def _cli(argv: list[str] | None = None) -> int:
    from . import main

    parser = argparse.ArgumentParser(prog="python -m ktype.app", description="ktype's local web app for data stewards.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this computer only)")
    parser.add_argument("--port", type=int, default=8080, help="port (default 8080)")
    args = parser.parse_args(argv)
    return main(args.host, args.port)


if __name__ == "__main__":  # guarded: the app's run processes import this module again
    sys.exit(_cli())
