"""Exceptions raised by ktype.

Every error ktype raises derives from :class:`KtypeError`, so ``except KtypeError``
catches them all; the subclasses also derive from the built-in exception a Python user
would expect (``ValueError`` for bad values).
"""

from __future__ import annotations

__all__ = [
    "KtypeError",
    "InvalidParameterError",
    "HierarchyError",
    "DataError",
    "StaleMetadataError",
    "UnassignedColumnsError",
    "UnsupportedModelError",
    "InfeasibleError",
    "LatticeTooLargeError",
    "VerificationError",
    "InternalError",
    "OutputError",
    "OutputPathError",
    "AuditError",
    "ImmutableError",
    "ClusterError",
]


class KtypeError(Exception):
    """Base class for all ktype errors."""


class InvalidParameterError(KtypeError, ValueError, TypeError):
    """A parameter fails its constraint (type, range or allowed choices)."""


class HierarchyError(KtypeError, ValueError):
    """A hierarchy is missing, malformed, or does not cover a data value."""


class DataError(KtypeError, ValueError):
    """The input table is unusable: missing values, unknown columns, malformed file."""


class StaleMetadataError(DataError):
    """A release file's metadata does not belong to it (its recorded checksum differs): the
    file was changed after its metadata was written, or the metadata is another file's."""


class UnassignedColumnsError(DataError):
    """Input columns have no role (identifier, QI, sensitive or insensitive), so they may not be published.

    ``columns`` names them and ``frame`` holds their values, so that an interface can add advice
    (e.g. which of them look like direct identifiers, :func:`ktype.risk.identifier_hints`).
    """

    def __init__(self, message: str, columns: list[str], frame: object = None) -> None:
        super().__init__(message)
        self.columns = columns
        self.frame = frame


class UnsupportedModelError(KtypeError):
    """An algorithm does not support the requested privacy model."""


class InfeasibleError(KtypeError):
    """No release satisfies the model (within ``max_suppression``)."""


class LatticeTooLargeError(KtypeError, MemoryError):
    """A full-domain lattice is too large for an exact search (use a best-effort algorithm)."""


class VerificationError(KtypeError):
    """An algorithm produced a release that its model's independent checker rejects.

    This is a bug in ktype; the release is never returned.
    """


class InternalError(KtypeError, RuntimeError):
    """An internal invariant of ktype failed (a programming error, never bad input).

    Also raised when code registers an algorithm or a measure inconsistently. Please
    report it with the traceback.
    """


class OutputError(KtypeError, OSError):
    """Writing an output failed at the operating-system level (permissions, disk full, ...).

    Carries ``errno``, ``strerror`` and ``filename`` like any ``OSError``; nothing partial
    is left behind.
    """


class OutputPathError(KtypeError, ValueError):
    """An output path would destroy data or cannot be used: it is an input, another output,
    a link, FIFO, device or directory, an existing file without ``force``, a missing parent
    without ``mkdirs``, or has an unknown extension. Raised before anything is written."""


class AuditError(KtypeError):
    """A published release fails its audit against the original (``ktype.check``): it is not
    a generalization of it, publishes an identifier or an undeclared column, or its counts
    or metadata disagree. The message names the rows and the reason; ``report`` holds the
    full :class:`ktype.audit.AuditReport`."""

    def __init__(self, message: str, report: object = None) -> None:
        super().__init__(message)
        self.report = report


class ImmutableError(KtypeError, TypeError):
    """A change of something ktype made immutable: a field, array or metadata mapping of a
    :class:`~ktype.release.Release`. Build a new value instead (``Release.replace``)."""


class ClusterError(KtypeError, RuntimeError):
    """The distributed engine (Dask) lost work it could not recover: a worker died (its
    memory limit, killed, crashed) more often than ``distributed.scheduler.allowed-failures``
    allows, or the scheduler or a worker connection went away. Nothing is published: a
    release directory is renamed into place only after its files were written and verified.
    The message names the cause and what to change (workers' memory limit, partition size)."""
