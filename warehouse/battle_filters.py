"""Which battles a ranking reads: the ballots-level filters of ``scorehouse rank`` and ``scorehouse arena``.

A filter keeps the battles of some judges, categories or languages, or of a
time window (``since`` inclusive, ``until`` exclusive, UTC).  The filters are
part of what a battles snapshot ranked, so they are recorded in its parameters
(:meth:`BattleFilters.parameters`): "the leaderboard of coding prompts in
2026" is a snapshot of its own, reproducible from its manifest
(:meth:`BattleFilters.from_parameters` reads them back).  Values are sorted and
times are normalised to UTC ISO 8601, so the same selection spelt another way
is the same snapshot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

VALUE_FILTERS = ("judge", "category", "language")
TIME_FILTERS = ("since", "until")


def as_utc(moment: datetime | str) -> datetime:
    """A time bound as an aware UTC datetime (ISO 8601 text accepted; a naive time is taken as UTC)."""
    moment = datetime.fromisoformat(moment) if isinstance(moment, str) else moment
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


@dataclass(frozen=True)
class BattleFilters:
    """The battles to rank: accepted values per column (empty: any) and a time window (None: open)."""

    judge: tuple[str, ...] = ()
    category: tuple[str, ...] = ()
    language: tuple[str, ...] = ()
    since: datetime | None = None
    until: datetime | None = None

    @classmethod
    def of(
        cls,
        *,
        judge: Sequence[str] | None = None,
        category: Sequence[str] | None = None,
        language: Sequence[str] | None = None,
        since: datetime | str | None = None,
        until: datetime | str | None = None,
    ) -> BattleFilters:
        """Filters from options as given (lists in any order, times as text or datetimes)."""
        return cls(
            *(tuple(sorted(set(values or ()))) for values in (judge, category, language)),
            since=None if since is None else as_utc(since),
            until=None if until is None else as_utc(until),
        )

    @classmethod
    def from_parameters(cls, parameters: Mapping[str, Any]) -> BattleFilters:
        """The filters a snapshot recorded (:meth:`parameters`)."""
        return cls.of(**{name: parameters[name] for name in (*VALUE_FILTERS, *TIME_FILTERS) if name in parameters})

    def parameters(self) -> dict[str, Any]:
        """The filters given, as JSON values (sorted lists, UTC ISO 8601 times); none given: ``{}``."""
        values = {name: list(getattr(self, name)) for name in VALUE_FILTERS if getattr(self, name)}
        times = {name: getattr(self, name).isoformat() for name in TIME_FILTERS if getattr(self, name) is not None}
        return values | times

    def read_options(self) -> dict[str, Any]:
        """The keyword arguments of :func:`warehouse.queries.read_battles` for these filters."""
        return {name: getattr(self, name) or None for name in (*VALUE_FILTERS, *TIME_FILTERS)}

    def describe(self) -> str:
        """``category=coding, since=2026-01-01T00:00:00+00:00``, or ``no filter``."""
        given = self.parameters()
        return ", ".join(
            f"{name}={','.join(value) if isinstance(value, list) else value}" for name, value in given.items()
        ) or "no filter"

    def __bool__(self) -> bool:
        return bool(self.parameters())


@dataclass(frozen=True)
class BattleSelection:
    """The battles a ranking reads (``filters``) and what a both-bad tie counts as (``bothbad``: tie or drop)."""

    filters: BattleFilters = BattleFilters()
    bothbad: str = "tie"  # the aggregators' default: a both-bad tie is a tie

    def parameters(self) -> dict[str, Any]:
        """What a battles snapshot records of its selection (under ``battles`` in its parameters)."""
        return self.filters.parameters() | {"bothbad": self.bothbad}

    @classmethod
    def from_parameters(cls, parameters: Mapping[str, Any]) -> BattleSelection:
        """The selection a snapshot recorded (:meth:`parameters`)."""
        return cls(BattleFilters.from_parameters(parameters), parameters.get("bothbad", "tie"))
