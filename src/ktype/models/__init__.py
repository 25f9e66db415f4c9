"""Privacy models and their independent checkers.

Public: ``KAnonymity``, ``OneKAnonymity``, ``KOneAnonymity``, ``KKAnonymity``,
``KConcealment``, ``DistinctLDiversity``, ``EntropyLDiversity``, ``RecursiveCLDiversity``,
``FrequencyLDiversity``, ``PSensitivity``, ``TCloseness``, ``TransparentLDiversity``, ``CheckResult``,
``PrivacyModel``, ``ClassModel``.

Every model's ``check(release)`` is independent of every algorithm: it recomputes
equivalence classes or the consistency graph from the published values.
"""

from ._base import CheckResult, ClassModel, PrivacyModel
from .kanonymity import KAnonymity
from .ktype_models import KConcealment, KKAnonymity, KOneAnonymity, OneKAnonymity
from .ldiversity import DistinctLDiversity, EntropyLDiversity, FrequencyLDiversity, PSensitivity, RecursiveCLDiversity
from .tcloseness import TCloseness
from .transparent import ProtectedLDiversity, TransparentLDiversity

__all__ = [
    "CheckResult",
    "ClassModel",
    "PrivacyModel",
    "KAnonymity",
    "OneKAnonymity",
    "KOneAnonymity",
    "KKAnonymity",
    "KConcealment",
    "DistinctLDiversity",
    "EntropyLDiversity",
    "RecursiveCLDiversity",
    "FrequencyLDiversity",
    "PSensitivity",
    "TCloseness",
    "TransparentLDiversity",
    "ProtectedLDiversity",
]
