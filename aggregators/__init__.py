"""Rank systems from ballots: the registry of aggregation methods.

    from aggregators import aggregate, REGISTRY
    ranking = aggregate("borda", ballots, ties="max")

Pure: imports nothing from the rest of scorehouse, never touches disk.

The public names below are loaded on first use (PEP 562): importing a light
submodule such as ``aggregators.schemas`` — which the warehouse does to store
results under their schemas — must not load every method and scipy with it.
The first use of any public name imports every method module, so the
registry is always complete when it is seen.
"""

from importlib import import_module
from typing import Any

# Method modules register themselves on import; this is the one list of them.
METHOD_MODULES = (
    "baldwin",
    "borda",
    "borda_partial",
    "bradley_terry",
    "condorcet",
    "copeland",
    "dowdall",
    "elo",
    "kemeny",
    "means",
    "median",
    "minimax",
    "plurality",
    "threshold",
    "trueskill_rating",
)

# Public name -> the module that defines it.
PUBLIC = {
    "bootstrap": "bootstrap",
    "pairwise_probabilities": "borda_partial",
    **dict.fromkeys(
        ("discriminative_power", "iia_violation_rate", "kemeny_dispersion", "kendall_distance", "kendall_tau",
         "last_k_agreement", "spearman_rho", "top_k_agreement"),
        "compare",
    ),
    "condorcet_weights": "condorcet_weights",
    "prospective_winners": "condorcet_weights",
    **dict.fromkeys(
        ("AggregationError", "InvalidBallotsError", "InvalidParameterError", "MissingScoresError",
         "NonPositiveScoresError", "UnknownMethodError"),
        "errors",
    ),
    "paired_tests": "paired_tests",
    "pairwise_confidence": "pairwise_confidence",
    "Profile": "profile",
    "build_profile": "profile",
    "ranking_table": "ranking",
    **dict.fromkeys(("REGISTRY", "MethodInfo", "RankingResult", "Scored", "aggregate", "register", "run"), "registry"),
}

__all__ = sorted(PUBLIC)


def __getattr__(name: str) -> Any:
    if name not in PUBLIC:
        raise AttributeError(f"module 'aggregators' has no attribute {name!r}")
    for module in METHOD_MODULES:
        import_module(f"aggregators.{module}")
    value = getattr(import_module(f"aggregators.{PUBLIC[name]}"), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(PUBLIC))
