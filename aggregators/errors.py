"""Named errors of the aggregators.

Every error is a ``ValueError`` so callers that only know "bad input" can catch
one type; the subclasses say which kind of bad input it was.  Messages name the
method, parameter, voter or system at fault and what to do instead.  None of
them can be helped by a retry: the input has to change.
"""


class AggregationError(ValueError):
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
