"""Run a registered method: the entry points ``aggregate`` and ``run``, whole-table or partition-wise.

``aggregate(name, ballots, **params)`` validates the ballots once
(:func:`aggregators.profile.build_profile`), checks the parameter names against
the method's signature, runs it (:func:`aggregators.scoring.score_profile`),
and turns its scores into the contract's ranking table
(:func:`aggregators.ranking.ranking_table`).  With ``two_step=True`` it first
ranks inside every ``group`` and then ranks the groups' results
(:mod:`aggregators.two_step`).

:func:`partition_partials` reduces one partition of the ballots to the partial
sums of each method's :class:`aggregators.registry.PartitionForm`, and
:func:`finish_partitioned` gives the whole-table result from the partials of
every partition, combined (:func:`aggregators.partial.combine`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from scorehouse.aggregators.errors import InvalidParameterError
from scorehouse.aggregators.parameters import check_parameters
from scorehouse.aggregators.partial import Partial, Voters
from scorehouse.aggregators.profile import build_profile
from scorehouse.aggregators.ranking import ranking_table
from scorehouse.aggregators.registry import method_info, partition_form
from scorehouse.aggregators.scoring import score_profile
from scorehouse.aggregators.two_step import score_two_step


@dataclass(frozen=True)
class RankingResult:
    """A ranking and how it was computed (method, parameters, two-step settings, input, notes).

    ``source`` is what was ranked: ``"ballots"``, or ``"battles"``
    (:func:`aggregators.battle_ranking.aggregate_battles`, where ``n_voters``
    counts the battles that were played).
    """

    ranking: pl.DataFrame
    method: str
    params: Mapping[str, Any]
    two_step: bool
    across: str | None
    n_voters: int
    n_systems: int
    notes: tuple[str, ...]
    source: str = "ballots"


def run(
    name: str,
    ballots: pl.DataFrame,
    *,
    two_step: bool = False,
    across: str | None = None,
    across_params: Mapping[str, Any] | None = None,
    params: Mapping[str, Any] | None = None,
    unscored: str | None = None,
) -> RankingResult:
    """Rank the systems of ``ballots`` with method ``name``; see the module docstring.

    ``params`` go to ``name``.  In a two-step run the second step uses
    ``across`` (default: the same method) with ``across_params`` (default: the
    same parameters when ``across`` is the same method, else its defaults),
    and ``unscored`` says whether a group ranks the systems it did not score
    (``"impute"``) or leaves them out (``"drop"``); the default is the
    method's (:func:`aggregators.two_step.unscored_rule`).
    """
    params = dict(params or {})
    info = method_info(name)
    check_parameters(info, params)
    for option, value in (("across", across), ("unscored", unscored)):
        if value is not None and not two_step:
            raise InvalidParameterError(
                f"method {name!r}: parameter {option!r} only applies with two_step=True, got {option}={value!r}"
            )
    profile = build_profile(ballots)
    second = (across or name) if two_step else None
    if second is None:
        scored_systems, result = profile.systems, score_profile(name, profile, params)
    else:
        second_profile, result = score_two_step(
            name, profile, params, across=second, across_params=across_params, unscored=unscored
        )
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
    unscored: str | None = None,
    **params: Any,
) -> pl.DataFrame:
    """Rank ``ballots`` with method ``name``: the contract's entry point.

    ``params`` are the method's own keyword parameters; unknown names raise
    :class:`InvalidParameterError` naming the accepted ones.  Returns
    ``system, score, rank, tied`` sorted by rank then system.  Use :func:`run`
    for the result with its provenance and notes.
    """
    return run(name, ballots, two_step=two_step, across=across, params=params, unscored=unscored).ranking


def finish_partitioned(
    name: str, partial: Partial, params: Mapping[str, Any] | None = None, two_step: bool = False
) -> RankingResult:
    """The result of ``run(name, ballots, two_step=two_step, params=params)`` from ``partial``.

    ``partial`` combines the partial sums (``form.partial``) of every partition
    of the ballots.  A form over the complete voters only says how many it
    left out in the notes, as the rank flow does on whole tables.
    """
    params = dict(params or {})
    check_parameters(method_info(name), params)
    form = partition_form(name, params, two_step)
    if form is None:
        raise InvalidParameterError(
            f"method {name!r} has no partition-wise form for parameters {params} with two_step={two_step}; "
            f"run it on the whole ballots with aggregators.run"
        )
    result = form.finish(partial, params, two_step)
    dropped = partial.n_voters - partial.n_counted
    notes = (f"complete voters only: left out {dropped} voter(s) with missing scores",) if dropped else ()
    return RankingResult(
        ranking=ranking_table(partial.systems, result.scores),
        method=name,
        params=params,
        two_step=two_step,
        across=name if two_step else None,
        n_voters=partial.n_counted,
        n_systems=len(partial.systems),
        notes=notes + result.notes,
    )


def partition_partials(voters: Voters, methods: Sequence[str]) -> dict[str, Partial]:
    """The partial sums of one partition for each of ``methods`` (each must have a partition form)."""
    partials = {}
    for name in methods:
        form = method_info(name).partition
        if form is None:
            raise InvalidParameterError(f"method {name!r} has no partition-wise form; run it with aggregators.run")
        partials[name] = form.partial(voters)
    return partials
