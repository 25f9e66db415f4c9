"""Refusals of the model shortcuts (ktype.models._names): each names what was given and what
to give instead, as one sentence (a capital first, a period last), so the user can fix the
call without reading the source (a message may open with a model's name, e.g. ``k-anonymity``)."""

from __future__ import annotations

import re

import pytest

from ktype.exceptions import InvalidParameterError
from ktype.models._names import make_models, models_from_names

CASES = [
    (lambda: models_from_names(["k-anonymty"], k=3), ["Unknown privacy model 'k-anonymty'", "Did you mean 'k-anonymity'?"]),
    (lambda: make_models(l=3, diversity="recursive"),
     ["Recursive (c,ℓ)-diversity needs c (--c), e.g. --l 3 --diversity recursive --c 2."]),
    (lambda: make_models(l=2.5, diversity="recursive", c=2),
     ["Recursive (c,ℓ)-diversity needs an integer l; got l=2.5", "entropy or frequency ℓ-diversity"]),
    (lambda: make_models(k=3, p=1.5), ["p-sensitivity needs an integer p; got p=1.5"]),
    (lambda: make_models(k=3.5), ["k-anonymity needs an integer k; got k=3.5"]),
    (lambda: make_models(l="many"), ["The 'l' parameter must be a number. Got 'many' instead."]),
    (lambda: make_models(l=3, diversity="recursive", c="two"), ["The 'c' parameter must be a number. Got 'two' instead."]),
    (lambda: make_models(t=float("nan")), ["The 't' parameter must be a finite number. Got nan instead."]),
]


@pytest.mark.parametrize(("call", "needles"), CASES)
def test_refusals_name_the_value_and_the_fix(call, needles):
    with pytest.raises(InvalidParameterError) as err:
        call()
    msg = str(err.value)
    for needle in needles:
        assert needle in msg, msg
    assert re.match(r"^([A-Z]|[kp]-)", msg) and msg.endswith("."), msg  # a sentence, or one opened by a model name


@pytest.mark.parametrize(("algorithm", "model"), [
    ("k_concealment", "KConcealment"), ("kk_anonymity", "KKAnonymity"), ("mondrian", "KAnonymity"),
    ("hybrid", "KAnonymity"), ("mask", "KAnonymity"),  # primary model without k: k is k-anonymity
])
def test_k_means_the_algorithms_own_k_type_model(algorithm, model):
    """The model ``k`` means: the algorithm's primary model when it takes k, else k-anonymity."""
    from ktype.algorithms import get_algorithm
    from ktype.job import AnonymizationJob

    (got,) = AnonymizationJob(algorithm=algorithm, k=3).models(get_algorithm(algorithm))
    assert type(got).__name__ == model and got.k == 3
