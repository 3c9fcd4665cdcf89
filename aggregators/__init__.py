"""Rank systems from ballots: the registry of aggregation methods.

    from aggregators import aggregate, REGISTRY
    ranking = aggregate("borda", ballots, ties="max")

Pure: imports nothing from the rest of scorehouse, never touches disk.
"""

from aggregators.bootstrap import bootstrap
from aggregators.borda_partial import pairwise_probabilities
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
from aggregators.condorcet_weights import condorcet_weights, prospective_winners
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
from aggregators.pairwise_confidence import pairwise_confidence
from aggregators.profile import Profile, build_profile
from aggregators.ranking import ranking_table
from aggregators.registry import REGISTRY, MethodInfo, RankingResult, Scored, aggregate, register, run

# Method modules register themselves on import; this is the one list of them.
from aggregators import (  # noqa: E402,F401  (imported for their registration)
    baldwin,
    borda,
    borda_partial,
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
