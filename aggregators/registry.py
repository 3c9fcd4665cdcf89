"""The registry of aggregation methods and the single entry point ``aggregate``.

A method is a plain function ``method(profile, *, <keyword parameters>)`` that
returns one score per system of ``profile.systems`` (higher is better), either
as a NumPy array or as :class:`Scored` when it has something to say about the
result (for example "there is no Condorcet winner").  It is registered once
with :func:`register`, which records what it needs and promises.

``aggregate(name, ballots, **params)`` validates the ballots once
(:func:`aggregators.profile.build_profile`), checks the parameter names against
the method's signature, runs it, and turns its scores into the contract's
ranking table (:func:`aggregators.ranking.ranking_table`).  With
``two_step=True`` it first ranks inside every ``group`` and then ranks the
groups' results, which gives the two-level aggregations of the literature.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from aggregators.errors import InvalidParameterError, UnknownMethodError
from aggregators.profile import Profile, build_profile
from aggregators.ranking import ranking_table

VIEWS = ("scores", "ranks", "pairwise")
PROPERTIES = (
    "anonymous",  # relabelling voters does not change the result
    "neutral",  # relabelling systems does not change the result
    "unanimity",  # a system every voter ranks first is ranked first
    "condorcet_consistent",  # a Condorcet winner is ranked first
    "condorcet_loser",  # a Condorcet loser is never ranked first
    "monotone",  # raising a system's scores never lowers its rank
)


@dataclass(frozen=True)
class Scored:
    """A method's output when it comes with notes about the result."""

    scores: np.ndarray
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class MethodInfo:
    """What the registry knows about one method."""

    name: str
    function: Callable[..., np.ndarray | Scored]
    view: str
    handles_missing: bool
    stochastic: bool
    properties: frozenset[str]
    citation: str
    summary: str
    parameters: Mapping[str, Any] = field(default_factory=dict)
    handles_weights: bool = True
    # Pairwise methods that are a function of the win/tie counts alone give that
    # function here, so bootstrap can refit on resampled counts without profiles.
    from_counts: Callable[..., np.ndarray | Scored] | None = None


REGISTRY: dict[str, MethodInfo] = {}


def register(
    name: str,
    *,
    view: str,
    handles_missing: bool,
    citation: str,
    stochastic: bool = False,
    properties: tuple[str, ...] = (),
    from_counts: Callable[..., np.ndarray | Scored] | None = None,
    handles_weights: bool = True,
) -> Callable[[Callable[..., np.ndarray | Scored]], Callable[..., np.ndarray | Scored]]:
    """Register ``function`` under ``name`` with its metadata.

    The parameters (and their defaults) are read from the function's
    keyword-only arguments; the first line of its docstring is its summary.
    ``from_counts(counts, **parameters)``, for methods of the pairwise view that
    depend on the ballots only through :class:`aggregators.pairwise.PairCounts`,
    computes the same scores from counts (with leading batch axes allowed).
    ``properties`` are promises for the default parameters (some, such as
    Baldwin's Condorcet consistency, only hold for some parameter values;
    the method's docstring says which).
    """
    if view not in VIEWS:
        raise ValueError(f"view must be one of {VIEWS}, got {view!r}")
    unknown = set(properties) - set(PROPERTIES)
    if unknown:
        raise ValueError(f"unknown properties {sorted(unknown)}; known: {PROPERTIES}")

    def decorate(function: Callable[..., np.ndarray | Scored]) -> Callable[..., np.ndarray | Scored]:
        if name in REGISTRY:
            raise ValueError(f"method {name!r} is registered twice")
        signature = inspect.signature(function)
        parameters = {
            p.name: p.default
            for p in signature.parameters.values()
            if p.kind is inspect.Parameter.KEYWORD_ONLY
        }
        if stochastic and "seed" not in parameters:
            raise ValueError(f"stochastic method {name!r} must take a keyword 'seed'")
        REGISTRY[name] = MethodInfo(
            name=name,
            function=function,
            view=view,
            handles_missing=handles_missing,
            stochastic=stochastic,
            properties=frozenset(properties),
            citation=citation,
            summary=(function.__doc__ or "").strip().splitlines()[0] if function.__doc__ else "",
            parameters=parameters,
            from_counts=from_counts,
            handles_weights=handles_weights,
        )
        return function

    return decorate


def method_info(name: str) -> MethodInfo:
    """The registry entry of ``name``, or :class:`UnknownMethodError`."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise UnknownMethodError(
            f"unknown method {name!r}; registered methods: {', '.join(sorted(REGISTRY))}"
        ) from None


def check_parameters(info: MethodInfo, params: Mapping[str, Any]) -> None:
    """Raise :class:`InvalidParameterError` for parameters the method does not take."""
    unknown = sorted(set(params) - set(info.parameters))
    if unknown:
        accepted = ", ".join(sorted(info.parameters)) or "none"
        raise InvalidParameterError(
            f"method {info.name!r} takes no parameter {unknown[0]!r}; it accepts: {accepted}"
        )


def check_choice(method: str, parameter: str, value: Any, choices: tuple[Any, ...]) -> None:
    """Raise :class:`InvalidParameterError` unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise InvalidParameterError(
            f"method {method!r}: parameter {parameter!r} must be one of {choices}, got {value!r}"
        )


def check_range(
    method: str, parameter: str, value: float, low: float | None = None, high: float | None = None
) -> None:
    """Raise :class:`InvalidParameterError` unless ``low <= value <= high`` (bounds optional)."""
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    ok = ok and np.isfinite(value)
    ok = ok and (low is None or value >= low) and (high is None or value <= high)
    if not ok:
        bounds = f"[{'-inf' if low is None else low}, {'inf' if high is None else high}]"
        raise InvalidParameterError(
            f"method {method!r}: parameter {parameter!r} must be a number in {bounds}, got {value!r}"
        )


@dataclass(frozen=True)
class RankingResult:
    """A ranking and how it was computed (method, parameters, two-step settings, notes)."""

    ranking: pl.DataFrame
    method: str
    params: Mapping[str, Any]
    two_step: bool
    across: str | None
    n_voters: int
    n_systems: int
    notes: tuple[str, ...]


def score_profile(name: str, profile: Profile, params: Mapping[str, Any]) -> Scored:
    """Run method ``name`` on an already validated profile."""
    info = method_info(name)
    check_parameters(info, params)
    if not info.handles_missing:
        profile.require_complete(name)
    if not info.handles_weights:
        profile.require_equal_weights(name)
    output = info.function(profile, **params)
    if isinstance(output, Scored):
        return Scored(np.asarray(output.scores, dtype=float), output.notes)
    return Scored(np.asarray(output, dtype=float))


def _two_step_ballots(name: str, profile: Profile, params: Mapping[str, Any]) -> tuple[pl.DataFrame, tuple[str, ...]]:
    """Rank inside every group; return the groups' scores as second-step ballots.

    Every group is one second-step voter.  Its weight is the mean weight of its
    voters, so splitting a task into more instances does not make it heavier.
    A system with no score in a group is missing in that group's ballot (a
    group that scores no system casts an all-missing ballot).
    """
    names, group_of_voter = np.unique(np.asarray(profile.groups, dtype=str), return_inverse=True)
    by_group = np.argsort(group_of_voter, kind="stable")  # one sort, not a scan of every voter per group
    starts = np.searchsorted(group_of_voter[by_group], np.arange(len(names) + 1))
    scores = np.full((len(names), len(profile.systems)), np.nan)
    weights = np.empty(len(names))
    notes: list[str] = []
    for index, group in enumerate(names.tolist()):
        rows = by_group[starts[index] : starts[index + 1]]
        scored_cols = np.flatnonzero(~np.isnan(profile.scores[rows]).all(axis=0))
        weights[index] = profile.weights[rows].mean()
        if not scored_cols.size:
            continue
        sub = Profile(
            systems=tuple(profile.systems[c] for c in scored_cols),
            voters=tuple(profile.voters[r] for r in rows),
            scores=profile.scores[np.ix_(rows, scored_cols)],
            weights=profile.weights[rows],
            groups=tuple(profile.groups[r] for r in rows),
        )
        result = score_profile(name, sub, params)
        notes.extend(f"group {group!r}: {n}" for n in result.notes)
        scores[index, scored_cols] = result.scores
    ballots = pl.DataFrame(
        {
            "voter": np.repeat(names, len(profile.systems)),
            "system": np.tile(np.asarray(profile.systems, dtype=str), len(names)),
            "score": scores.ravel(),
            "weight": np.repeat(weights, len(profile.systems)),
        },
        schema={"voter": pl.String, "system": pl.String, "score": pl.Float64, "weight": pl.Float64},
    ).with_columns(pl.col("score").fill_nan(None))
    return ballots, tuple(notes)


def score_two_step(
    name: str,
    profile: Profile,
    params: Mapping[str, Any],
    *,
    across: str,
    across_params: Mapping[str, Any] | None,
) -> tuple[Profile, Scored]:
    """Two-step scores of ``profile``: ``name`` inside every group, then ``across`` over the groups.

    Returns the second step's profile (its systems index the scores) and its
    scores with the notes of both steps.  ``across_params`` default to
    ``params`` when ``across`` is ``name``, else to ``across``'s defaults.
    """
    second_params = dict(across_params) if across_params is not None else (params if across == name else {})
    group_ballots, group_notes = _two_step_ballots(name, profile, params)
    second_profile = build_profile(group_ballots)
    result = score_profile(across, second_profile, second_params)
    return second_profile, Scored(result.scores, group_notes + result.notes)


def run(
    name: str,
    ballots: pl.DataFrame,
    *,
    two_step: bool = False,
    across: str | None = None,
    across_params: Mapping[str, Any] | None = None,
    params: Mapping[str, Any] | None = None,
) -> RankingResult:
    """Rank the systems of ``ballots`` with method ``name``; see the module docstring.

    ``params`` go to ``name``.  In a two-step run the second step uses
    ``across`` (default: the same method) with ``across_params`` (default: the
    same parameters when ``across`` is the same method, else its defaults).
    """
    params = dict(params or {})
    info = method_info(name)
    check_parameters(info, params)
    if across is not None and not two_step:
        raise InvalidParameterError(
            f"method {name!r}: parameter 'across' only applies with two_step=True, got across={across!r}"
        )
    profile = build_profile(ballots)
    second = (across or name) if two_step else None
    if second is None:
        scored_systems, result = profile.systems, score_profile(name, profile, params)
    else:
        second_profile, result = score_two_step(name, profile, params, across=second, across_params=across_params)
        scored_systems = second_profile.systems
    return RankingResult(
        ranking=ranking_table(scored_systems, result.scores),
        method=name,
        params=params,
        two_step=two_step,
        across=second,
        n_voters=len(profile.voters),
        n_systems=len(profile.systems),
        notes=result.notes,
    )


def aggregate(
    name: str,
    ballots: pl.DataFrame,
    *,
    two_step: bool = False,
    across: str | None = None,
    **params: Any,
) -> pl.DataFrame:
    """Rank ``ballots`` with method ``name``: the contract's entry point.

    ``params`` are the method's own keyword parameters; unknown names raise
    :class:`InvalidParameterError` naming the accepted ones.  Returns
    ``system, score, rank, tied`` sorted by rank then system.  Use :func:`run`
    for the result with its provenance and notes.
    """
    return run(name, ballots, two_step=two_step, across=across, params=params).ranking
