"""ktype: k-type anonymity for tabular microdata.

Public API (``__all__``): ``Dataset``, ``Hierarchy``, ``Release``, ``anonymize``,
``check``, ``load_adult``, ``algorithms`` (registry: ``run``, ``all_algorithms``),
``models`` (privacy models and checkers), ``measures`` (information loss),
``exceptions``.
"""

__version__ = "0.1.0"

from . import algorithms, exceptions, measures, models  # noqa: E402
from .api import anonymize, check  # noqa: E402
from .data import Dataset, Hierarchy, load_adult  # noqa: E402
from .release import Release  # noqa: E402

__all__ = ["Dataset", "Hierarchy", "Release", "anonymize", "check", "load_adult", "algorithms", "exceptions", "measures", "models", "__version__"]
