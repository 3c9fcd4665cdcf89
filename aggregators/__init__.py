"""Rank systems from ballots: the registry of aggregation methods.

    from scorehouse.aggregators import aggregate, REGISTRY
    ranking = aggregate("borda", ballots, ties="max")

Pure: imports nothing from the rest of scorehouse, never touches disk.

The public names below are loaded on first use (PEP 562): importing a light
submodule such as ``aggregators.schemas`` — which the warehouse does to store
results under their schemas — must not load every method and scipy with it.
No submodule is named like a public name (the function ``bootstrap`` lives in
``aggregators.bootstrapping``), so importing a submodule never shadows one,
and the registry fills itself on its first lookup
(:data:`aggregators.registry.REGISTRY`), however it is reached.
"""

from importlib import import_module
from typing import Any

# Public name -> the module that defines it.
PUBLIC = {
    **dict.fromkeys(("Battles", "battle_counts", "battle_games", "build_battles", "played_matrix"), "battles"),
    **dict.fromkeys(("aggregate_battles", "battle_methods"), "battle_ranking"),
    "bootstrap_battles": "battle_bootstrap",
    **dict.fromkeys(("arena_leaderboard", "arena_matrices"), "arena"),
    **dict.fromkeys(("paired_tests_battles", "pairwise_confidence_battles"), "battle_tables"),
    "bootstrap": "bootstrapping",
    "pairwise_probabilities": "borda_partial",
    **dict.fromkeys(
        ("discriminative_power", "iia_violation_rate", "kemeny_dispersion", "kendall_distance", "kendall_tau",
         "last_k_agreement", "spearman_rho", "top_k_agreement"),
        "compare",
    ),
    **dict.fromkeys(("CondorcetWeighting", "condorcet_weights", "prospective_winners"), "condorcet_weighting"),
    **dict.fromkeys(
        ("AggregationError", "InvalidBallotsError", "InvalidBattlesError", "InvalidParameterError", "MissingScoresError",
         "NonPositiveScoresError", "UnknownMethodError"),
        "errors",
    ),
    **dict.fromkeys(("RankingResult", "aggregate", "finish_partitioned", "partition_partials", "run"), "execution"),
    "paired_tests": "paired_testing",
    "pairwise_confidence": "pairwise_intervals",
    **dict.fromkeys(("Partial", "Voters", "combine"), "partial"),
    "Profile": "profile",
    "build_profile": "profile",
    "ranking_table": "ranking",
    **dict.fromkeys(("REGISTRY", "BattlesForm", "MethodInfo", "PartitionForm", "Scored", "partition_form", "register"), "registry"),
}

__all__ = sorted(PUBLIC)


def __getattr__(name: str) -> Any:
    if name not in PUBLIC:
        raise AttributeError(f"module 'scorehouse.aggregators' has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{PUBLIC[name]}"), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(PUBLIC))
