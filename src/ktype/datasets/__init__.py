"""Synthetic benchmark datasets with the schemas of the source papers.

Public: ``census``, ``census_dataset``, ``census_hierarchy``, ``CENSUS_SCHEMA``,
``artificial_kconcealment``, ``ARTIFICIAL_PROBABILITIES``, ``ARTIFICIAL_SUBSETS``.
The bundled real dataset (Adult) is loaded with :func:`ktype.load_adult`.
"""

from .synthetic import (
    ARTIFICIAL_PROBABILITIES,
    ARTIFICIAL_SUBSETS,
    CENSUS_SCHEMA,
    artificial_kconcealment,
    census,
    census_dataset,
    census_hierarchy,
)

__all__ = [
    "ARTIFICIAL_PROBABILITIES",
    "ARTIFICIAL_SUBSETS",
    "CENSUS_SCHEMA",
    "artificial_kconcealment",
    "census",
    "census_dataset",
    "census_hierarchy",
]
