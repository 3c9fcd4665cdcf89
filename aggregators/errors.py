"""The root of scorehouse's named errors, and the errors of the aggregators.

:class:`ScorehouseError` is the one root every named error of the project derives from: it
says the exit code of a command that fails with it and whether trying again can help. It
lives here, in the package every other imports and which imports none, so all can derive from it.

Every error is a ``ValueError`` so callers that only know "bad input" can catch
one type; the subclasses say which kind of bad input it was.  Messages name the
method, parameter, voter or system at fault and what to do instead.  None of
them can be helped by a retry: the input has to change.
"""


class ScorehouseError(Exception):
    """A named error: its message says what, where and what to do; the command prints it in one line.

    ``exit_code``: 1 for bad input or a failed operation, 2 for a usage error (as argparse).
    ``retryable``: whether the same call may succeed later unchanged (I/O, a service not
    answering); bad input and bugs never do.
    """

    exit_code = 1
    retryable = False


class UsageError(ScorehouseError):
    """Arguments missing, unknown or not going together: the call must change (exit 2, as argparse)."""

    exit_code = 2


class NotFoundError(UsageError, LookupError):
    """A thing the user named (a file, a folder, a snapshot, an analysis) is not there: exit 2."""


class AggregationError(ScorehouseError, ValueError):
    """Base class of every error raised by :mod:`aggregators`."""


class UnknownMethodError(AggregationError):
    """The method name is not in the registry."""


class InvalidParameterError(AggregationError):
    """A parameter is unknown to the method, or its value is out of range."""


class InvalidBallotsError(AggregationError):
    """The ballots table is malformed: missing columns, wrong dtypes,
    duplicated (voter, system) pairs, non-finite scores or weights."""


class MissingScoresError(AggregationError):
    """Missing scores were given to a method that needs complete ballots."""


class NonPositiveScoresError(AggregationError):
    """A mean that is only defined for positive scores received a score <= 0."""


class InvalidBattlesError(AggregationError):
    """The battles table is malformed: missing columns, a system battling itself,
    an unknown winner value, empty or null names, bad weights."""
