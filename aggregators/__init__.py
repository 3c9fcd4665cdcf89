"""Rank systems from ballots: the registry of aggregation methods.

    from aggregators import aggregate, REGISTRY
    ranking = aggregate("borda", ballots, ties="max")

Pure: imports nothing from the rest of scorehouse, never touches disk.
"""

from aggregators.bootstrap import bootstrap
from aggregators.errors import (
    AggregationError,
    InvalidBallotsError,
    InvalidParameterError,
    MissingScoresError,
    NonPositiveScoresError,
    TooManySystemsError,
    UnknownMethodError,
)
from aggregators.paired_tests import paired_tests
from aggregators.profile import Profile, build_profile
from aggregators.ranking import ranking_table
from aggregators.registry import REGISTRY, MethodInfo, RankingResult, Scored, aggregate, register, run

# Method modules register themselves on import; this is the one list of them.
from aggregators import bradley_terry, elo, trueskill_rating  # noqa: E402,F401  (register themselves)

__all__ = [
    "REGISTRY",
    "AggregationError",
    "InvalidBallotsError",
    "InvalidParameterError",
    "MethodInfo",
    "MissingScoresError",
    "NonPositiveScoresError",
    "Profile",
    "RankingResult",
    "Scored",
    "TooManySystemsError",
    "UnknownMethodError",
    "aggregate",
    "bootstrap",
    "build_profile",
    "paired_tests",
    "ranking_table",
    "register",
    "run",
]
