"""``ktype app``: a local web app for data stewards (``pip install ktype[app]``).

Load a table, set the columns' roles, choose k, ℓ, t and an algorithm, run with progress and
a Cancel that stops the work, inspect and compare results, download the release, its report
and a config that reproduces the run on the command line. See ``docs/app.md``.

The logic lives in :mod:`ktype.app._state` (no browser needed); the page in
:mod:`ktype.app._ui` (NiceGUI, imported only by :func:`main`).
"""

from __future__ import annotations

import sys

__all__ = ["main", "LOCAL_HOSTS"]

#: addresses that only this computer can reach
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def main(host: str = "127.0.0.1", port: int = 8080) -> int:
    """Serve the app on ``host:port`` until interrupted (Ctrl-C); returns an exit code.

    The default address is reachable from this computer only. Any other ``host`` prints a
    warning: the app shows the personal data that is loaded into it to whoever can reach it.
    """
    if not isinstance(port, int) or isinstance(port, bool) or not 0 < port < 65536:
        print(f"error: the port must be a whole number from 1 to 65535; got {port!r}.", file=sys.stderr)
        return 3
    try:
        from . import _ui
    except ImportError as e:
        print(f"error: ktype app needs the 'app' extra ({e.name or e}): pip install 'ktype[app]'.", file=sys.stderr)
        return 3
    if host not in LOCAL_HOSTS:
        print(f"warning: ktype app listens on {host}: anyone who can reach this address sees the personal data "
              "loaded into it. Use --host 127.0.0.1 unless you mean it.", file=sys.stderr)
    print(f"ktype app: open http://{'[' + host + ']' if ':' in host else host}:{port} in a browser "
          "(Ctrl-C stops it).", file=sys.stderr)
    try:
        _ui.serve(host, port)
    except KeyboardInterrupt:
        pass
    except OSError as e:  # the address is taken or cannot be used
        print(f"error: cannot listen on {host}:{port}: {e.strerror or e}.", file=sys.stderr)
        return 3
    except Exception as e:  # noqa: BLE001 - a bug: one line, never a traceback
        print(f"internal error (a bug in ktype; please report it): {type(e).__name__}: {e}", file=sys.stderr)
        return 4
    return 0
