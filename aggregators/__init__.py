"""Rank systems from ballots: the registry of aggregation methods.

    from aggregators import aggregate, REGISTRY
    ranking = aggregate("borda", ballots, ties="max")

Pure: imports nothing from the rest of scorehouse, never touches disk.
"""

from aggregators.errors import (
    AggregationError,
    InvalidBallotsError,
    InvalidParameterError,
    MissingScoresError,
    NonPositiveScoresError,
    TooManySystemsError,
    UnknownMethodError,
)
from aggregators.profile import Profile, build_profile
from aggregators.ranking import ranking_table
from aggregators.registry import REGISTRY, MethodInfo, RankingResult, Scored, aggregate, register, run

# Method modules register themselves on import; this is the one list of them.
from aggregators.borda_partial import pairwise_probabilities  # registers borda_partial
from aggregators.compare import (
    discriminative_power,
    iia_violation_rate,
    kemeny_dispersion,
    kendall_distance,
    kendall_tau,
    last_k_agreement,
    spearman_rho,
    top_k_agreement,
)
from aggregators.pairwise_confidence import pairwise_confidence

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
    "build_profile",
    "discriminative_power",
    "iia_violation_rate",
    "kemeny_dispersion",
    "kendall_distance",
    "kendall_tau",
    "last_k_agreement",
    "pairwise_confidence",
    "pairwise_probabilities",
    "ranking_table",
    "register",
    "run",
    "spearman_rho",
    "top_k_agreement",
]
