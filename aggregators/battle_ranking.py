"""Rank pairwise battles with a registered method: the entry point ``aggregate_battles``.

The methods that take battles are those registered with a battles form
(:class:`aggregators.registry.BattlesForm`): :func:`battle_methods` reads them
from the registry.  A run validates the battles once
(:func:`aggregators.battles.build_battles`), checks the parameter names against
the method's signature, fits the form with every parameter given (the
method's defaults, the form's battle defaults, the caller's), and turns the
scores into the contract's ranking table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import polars as pl

from scorehouse.aggregators.battles import Battles, build_battles
from scorehouse.aggregators.errors import InvalidBattlesError, InvalidParameterError
from scorehouse.aggregators.execution import RankingResult
from scorehouse.aggregators.parameters import check_parameters
from scorehouse.aggregators.ranking import ranking_table
from scorehouse.aggregators.registry import REGISTRY, BattlesForm, Scored, method_info


def battle_methods() -> tuple[str, ...]:
    """The names of the registered methods that rank battles, sorted."""
    return tuple(sorted(name for name, info in REGISTRY.items() if info.battles is not None))


def battles_form(name: str) -> BattlesForm:
    """The battles form of method ``name``, or :class:`InvalidParameterError` naming those that have one."""
    form = method_info(name).battles
    if form is None:
        raise InvalidParameterError(
            f"method {name!r} does not rank battles; methods that do: {', '.join(battle_methods())}"
        )
    return form


def fit_battles(name: str, battles: Battles, params: Mapping[str, Any]) -> tuple[Scored, dict[str, Any]]:
    """Scores of method ``name`` on validated ``battles`` and the parameters it ran with (every one given)."""
    info = method_info(name)
    form = battles_form(name)
    check_parameters(info, params)
    if not info.handles_weights and np.ptp(battles.weight) > 0:
        heavy = int(np.argmax(battles.weight))
        raise InvalidBattlesError(
            f"method {name!r} counts every battle once, but a battle has weight {battles.weight[heavy]} while "
            f"others weigh {battles.weight.min()}; drop the weight column"
        )
    effective = {**info.parameters, **form.defaults, **params}
    return form.fit(battles, effective), effective


def aggregate_battles(
    method: str, battles: pl.DataFrame, params: Mapping[str, Any] | None = None, *, bothbad: str = "tie"
) -> RankingResult:
    """Rank the systems of a battles table with ``method`` (one with a battles form).

    ``params`` are the method's keyword parameters; ``bothbad`` says whether a
    ``tie (bothbad)`` battle is a tie (``"tie"``) or dropped (``"drop"``).
    The result records the parameters the method ran with (its defaults for
    battles filled in), ``source="battles"``, in ``n_voters`` the number of
    battles played, and the ``bothbad`` rule in its first note.
    """
    params = dict(params or {})
    battles_form(method)
    valid = build_battles(battles, bothbad=bothbad)
    result, effective = fit_battles(method, valid, params)
    counted = f"dropped {valid.dropped}" if bothbad == "drop" else "counted as ties"
    how = (f"battles: {valid.size} played; both-bad ties {counted} (bothbad={bothbad!r})",)
    return RankingResult(
        ranking=ranking_table(valid.systems, result.scores),
        method=method,
        params=effective,
        two_step=False,
        across=None,
        n_voters=valid.size,
        n_systems=len(valid.systems),
        notes=how + result.notes,
        source="battles",
    )
