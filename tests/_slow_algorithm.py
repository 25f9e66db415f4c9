"""A throw-away algorithm module for tests/test_registry.py: it registers its algorithm, then
takes a while to finish importing (as a large module does), then defines what the algorithm uses."""

import time

from ktype.algorithms._registry import register
from ktype.models.kanonymity import KAnonymity


@register("slow_import_probe", models=(KAnonymity,), recoding="full-domain", description="test probe")
def slow_import_probe(dataset, models):
    return _helper(dataset, models)


time.sleep(1.0)


def _helper(dataset, models):
    from ktype.algorithms import get_algorithm

    return get_algorithm("flash").impl(dataset, models, measure="loss_metric", max_suppression=0.0)
