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
from aggregators.condorcet_weights import condorcet_weights, prospective_winners
from aggregators.paired_tests import paired_tests
from aggregators.profile import Profile, build_profile
from aggregators.ranking import ranking_table
from aggregators.registry import REGISTRY, MethodInfo, RankingResult, Scored, aggregate, register, run

# Method modules register themselves on import; this is the one list of them.
from aggregators import (  # noqa: F401  (imported for their registration)
    baldwin,
    borda,
    bradley_terry,
    condorcet,
    copeland,
    dowdall,
    elo,
    kemeny,
    means,
    median,
    minimax,
    plurality,
    threshold,
    trueskill_rating,
)

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
    "condorcet_weights",
    "paired_tests",
    "prospective_winners",
    "ranking_table",
    "register",
    "run",
]
