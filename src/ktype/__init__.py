"""ktype: k-type anonymity for tabular microdata.

Public API (``__all__``): ``Dataset``, ``Hierarchy``, ``Release``, ``anonymize``,
``AnonymizationJob`` and ``run_job`` (one job from Python, a config or the command line),
``check``, ``load_adult``, ``algorithms`` (registry: ``run``, ``all_algorithms``),
``models`` (privacy models and checkers), ``measures`` (information loss),
``exceptions``.

``import ktype`` is light: the names above are imported on first use (PEP 562), so that
pandas, numba and scipy load only when a table, an algorithm or a checker is needed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import attach

__version__ = "0.1.0"

#: public name -> (module, attribute or None for the module itself)
_LAZY: dict[str, tuple[str, str | None]] = {
    "algorithms": ("ktype.algorithms", None),
    "exceptions": ("ktype.exceptions", None),
    "measures": ("ktype.measures", None),
    "models": ("ktype.models", None),
    "anonymize": ("ktype.api", "anonymize"),
    "check": ("ktype.checking", "check"),
    "CheckReport": ("ktype.checking", "CheckReport"),
    "AnonymizationJob": ("ktype.job", "AnonymizationJob"),
    "run_job": ("ktype.job", "run_job"),
    "Dataset": ("ktype.data", "Dataset"),
    "Hierarchy": ("ktype.data", "Hierarchy"),
    "load_adult": ("ktype.data", "load_adult"),
    "Release": ("ktype.release", "Release"),
}

__all__ = ["Dataset", "Hierarchy", "Release", "AnonymizationJob", "anonymize", "check", "CheckReport", "run_job", "load_adult", "algorithms", "exceptions", "measures", "models", "__version__"]


__getattr__, __dir__ = attach(__name__, _LAZY, __all__, submodules=True)


if TYPE_CHECKING:  # for type checkers and IDEs: the eager imports this module defers
    from . import algorithms, exceptions, measures, models
    from .api import anonymize
    from .checking import CheckReport, check
    from .data import Dataset, Hierarchy, load_adult
    from .job import AnonymizationJob, run_job
    from .release import Release
