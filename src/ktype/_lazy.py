"""Lazy attributes for a package (PEP 562): public names import their module on first use.

``attach(__name__, {"name": ("module", "attribute" or None)}, __all__)`` returns the package's
``__getattr__`` and ``__dir__``. With ``submodules=True`` any other attribute that names a
submodule imports it, as an eager ``from . import x`` would have made it available. Standard
library only: importing this module must stay free.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["attach"]


def attach(package: str, names: Mapping[str, tuple[str, str | None]], public: Sequence[str], *,
           submodules: bool = False) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    import sys

    def __getattr__(name: str) -> Any:
        if name in names:
            module, attr = names[name]
        elif submodules and not name.startswith("__") and importlib.util.find_spec(f"{package}.{name}") is not None:
            module, attr = f"{package}.{name}", None
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = importlib.import_module(module)
        if attr is not None:
            value = getattr(value, attr)
        vars(sys.modules[package])[name] = value  # later look-ups skip __getattr__
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(public))

    return __getattr__, __dir__
