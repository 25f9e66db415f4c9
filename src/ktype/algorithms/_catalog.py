"""Imports every algorithm module so that it registers itself (see ``_registry``).

Add one line per algorithm module. A module that fails to import is a bug, not an
optional feature, so no import is guarded.
"""

from . import cell_suppression, freeform, fulldomain, microaggregation, mondrian, tds, transparent  # noqa: F401
from .local import iterative, pipelines  # noqa: F401
