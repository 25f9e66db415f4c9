"""ktype: k-type anonymity for tabular microdata.

Public API (``__all__``): ``Dataset``, ``Hierarchy``, ``Release``, ``anonymize``,
``check``, ``load_adult``, ``algorithms`` (registry: ``run``, ``all_algorithms``),
``models`` (privacy models and checkers), ``measures`` (information loss),
``exceptions``.

``import ktype`` is light: the names above are imported on first use (PEP 562), so that
pandas, numba and scipy load only when a table, an algorithm or a checker is needed.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: public name -> (module, attribute or None for the module itself)
_LAZY: dict[str, tuple[str, str | None]] = {
    "algorithms": ("ktype.algorithms", None),
    "exceptions": ("ktype.exceptions", None),
    "measures": ("ktype.measures", None),
    "models": ("ktype.models", None),
    "anonymize": ("ktype.api", "anonymize"),
    "check": ("ktype.api", "check"),
    "Dataset": ("ktype.data", "Dataset"),
    "Hierarchy": ("ktype.data", "Hierarchy"),
    "load_adult": ("ktype.data", "load_adult"),
    "Release": ("ktype.release", "Release"),
}

__all__ = ["Dataset", "Hierarchy", "Release", "anonymize", "check", "load_adult", "algorithms", "exceptions", "measures", "models", "__version__"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module, attr = _LAZY[name]
    elif not name.startswith("__") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        module, attr = f"{__name__}.{name}", None  # a submodule (ktype.api, ktype.audit, ...), as after an eager import
    else:
        raise AttributeError(f"module 'ktype' has no attribute {name!r}")
    value = importlib.import_module(module)
    if attr is not None:
        value = getattr(value, attr)
    globals()[name] = value  # later look-ups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # for type checkers and IDEs: the eager imports this module defers
    from . import algorithms, exceptions, measures, models
    from .api import anonymize, check
    from .data import Dataset, Hierarchy, load_adult
    from .release import Release
