"""Tests written for the surviving mutants of Mondrian's numpy partitioner
(``algorithms/_mondrian_numpy.py``); see docs/mutation.md."""
