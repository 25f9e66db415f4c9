"""ktype: k-type anonymity for tabular microdata."""

__version__ = "0.1.0"

from .data import Dataset, Hierarchy, load_adult  # noqa: E402
from .release import Release  # noqa: E402

__all__ = ["Dataset", "Hierarchy", "Release", "load_adult", "__version__"]
