"""Data layer: :class:`Dataset`, :class:`Hierarchy` and the bundled datasets.

Public: ``Dataset``, ``Hierarchy``, ``load_adult``, ``bundled_datasets``.
"""

from .bundled import bundled_datasets, load_adult
from .dataset import Dataset
from .hierarchy import Hierarchy

__all__ = ["Dataset", "Hierarchy", "load_adult", "bundled_datasets"]
