"""The registry of aggregation methods: what each method is, needs and promises.

A method is a plain function ``method(profile, *, <keyword parameters>)`` that
returns one score per system of ``profile.systems`` (higher is better), either
as a NumPy array or as :class:`Scored` when it has something to say about the
result (for example "there is no Condorcet winner").  It is registered once
with :func:`register`, next to its code, with what it needs (its view, missing
scores, weights), what it promises (:data:`PROPERTIES`) and, when it has them,
its other forms: ``from_counts`` (the scores from pairwise counts alone, for
the bootstrap), ``battles`` (a :class:`BattlesForm`: the scores from pairwise
battles) and ``partition`` (a :class:`PartitionForm`: combinable sums
made one partition of voters at a time, and how they are finished).

:data:`REGISTRY` fills itself: the first lookup imports every module of
:data:`METHOD_MODULES`, so it is complete however it is reached.  Running a
method is :mod:`aggregators.execution`; parameter checks are
:mod:`aggregators.parameters`; two-step runs are :mod:`aggregators.two_step`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any

import numpy as np

from scorehouse.aggregators.errors import UnknownMethodError
from scorehouse.aggregators.partial import Partial, Voters

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
    "mean_adjusted",
    "means",
    "median",
    "minimax",
    "optimality_gap",
    "plurality",
    "threshold",
    "trueskill_rating",
)

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
class PartitionForm:
    """How a method runs partition by partition: combinable sums, then a finish.

    ``partial(voters)`` reduces one partition of whole groups to a
    :class:`aggregators.partial.Partial`; partials of disjoint partitions add
    up (:func:`aggregators.partial.combine`); ``finish(partial, params,
    two_step)`` gives the scores the whole-table method gives on the union.
    ``parameters`` maps each parameter the form supports to its supported
    values (None: any value); ``two_step`` says whether the two-level run has
    the form too.
    """

    partial: Callable[[Voters], Partial]
    finish: Callable[[Partial, Mapping[str, Any], bool], Scored]
    parameters: Mapping[str, tuple[Any, ...] | None] = field(default_factory=dict)
    two_step: bool = False

    def supports(self, params: Mapping[str, Any], two_step: bool) -> bool:
        """Whether a run with these parameters and two-step setting has this form."""
        if two_step and not self.two_step:
            return False
        for name, value in params.items():
            if name not in self.parameters:
                return False
            allowed = self.parameters[name]
            if allowed is not None and value not in allowed:
                return False
        return True


BATTLE_INPUTS = ("counts", "sequence")  # what a battles form uses: the pairwise counts, or the play order


@dataclass(frozen=True)
class BattlesForm:
    """How a method ranks from pairwise battles (:class:`aggregators.battles.Battles`).

    ``fit(battles, params)`` gives the scores of the battles' systems from the
    method's parameters, every one of them given (the method's defaults,
    overridden by ``defaults``, then by the caller's).  ``through`` says what
    of the battles it uses: ``"counts"`` (the pairwise counts alone) or
    ``"sequence"`` (the battles in play order); a form through the counts
    needs the method's ``from_counts``, which its bootstrap refits on batches of
    resampled counts.  ``defaults`` are parameter
    defaults that differ for battles (Elo: ``shuffle=False``, the order of
    battles is real).
    """

    fit: Callable[[Any, Mapping[str, Any]], Scored]
    through: str
    defaults: Mapping[str, Any] = field(default_factory=dict)


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
    # Methods whose fit on a resample of the voters is cheap to batch give ``resampled(profile, multiplicity,
    # **parameters)``: the scores (resamples x systems) on every resample that draws voter ``v``
    # ``multiplicity[b, v]`` times, equal to refitting on the drawn voters, without a refit per resample.
    resampled: Callable[..., Scored] | None = None
    partition: PartitionForm | None = None
    battles: BattlesForm | None = None
    # In a two-step run, rank every system inside every group, imputing the ones the group did not
    # score (the missing-scores paper's two-level Borda), instead of leaving them out of that group.
    imputes_in_groups: bool = False


class Registry(MutableMapping[str, MethodInfo]):
    """Method name -> :class:`MethodInfo`; any read first imports every method module once."""

    def __init__(self) -> None:
        self._methods: dict[str, MethodInfo] = {}
        self._loaded = False
        self._loading = False

    def _load(self) -> None:
        if self._loaded or self._loading:  # _loading: a method module that reads the registry on import
            return
        self._loading = True
        try:
            for module in METHOD_MODULES:
                import_module(f"{__package__}.{module}")
        finally:
            self._loading = False
        self._loaded = True

    def add(self, info: MethodInfo) -> None:
        """Record ``info`` without loading the method modules (they call this while loading)."""
        if info.name in self._methods:
            raise ValueError(f"method {info.name!r} is registered twice")
        self._methods[info.name] = info

    def __getitem__(self, name: str) -> MethodInfo:
        self._load()
        return self._methods[name]

    def __setitem__(self, name: str, info: MethodInfo) -> None:
        self._load()
        self._methods[name] = info

    def __delitem__(self, name: str) -> None:
        self._load()
        del self._methods[name]

    def __iter__(self) -> Iterator[str]:
        self._load()
        return iter(dict(self._methods))

    def __len__(self) -> int:
        self._load()
        return len(self._methods)

    def __repr__(self) -> str:
        return f"Registry({sorted(self)})"


REGISTRY = Registry()


def register(
    name: str,
    *,
    view: str,
    handles_missing: bool,
    citation: str,
    stochastic: bool = False,
    properties: tuple[str, ...] = (),
    from_counts: Callable[..., np.ndarray | Scored] | None = None,
    resampled: Callable[..., Scored] | None = None,
    partition: PartitionForm | None = None,
    battles: BattlesForm | None = None,
    handles_weights: bool = True,
    imputes_in_groups: bool = False,
) -> Callable[[Callable[..., np.ndarray | Scored]], Callable[..., np.ndarray | Scored]]:
    """Register ``function`` under ``name`` with its metadata.

    The parameters (and their defaults) are read from the function's
    keyword-only arguments; the first line of its docstring is its summary.
    ``from_counts(counts, **parameters)``, for methods of the pairwise view that
    depend on the ballots only through :class:`aggregators.pairwise.PairCounts`,
    computes the same scores from counts (with leading batch axes allowed).
    ``resampled(profile, multiplicity, **parameters)`` computes the scores of every bootstrap resample of
    the voters at once (see :class:`MethodInfo`).
    ``partition`` is the method's partition-wise form (:class:`PartitionForm`),
    ``battles`` its form on pairwise battles (:class:`BattlesForm`).
    ``imputes_in_groups``: a two-step run ranks every system in every group
    by default (see :mod:`aggregators.two_step`).
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
        signature = inspect.signature(function)
        parameters = {
            p.name: p.default
            for p in signature.parameters.values()
            if p.kind is inspect.Parameter.KEYWORD_ONLY
        }
        if stochastic and "seed" not in parameters:
            raise ValueError(f"stochastic method {name!r} must take a keyword 'seed'")
        if partition is not None and set(partition.parameters) - set(parameters):
            raise ValueError(f"the partition form of {name!r} names parameters the method does not take")
        if battles is not None and set(battles.defaults) - set(parameters):
            raise ValueError(f"the battles form of {name!r} names parameters the method does not take")
        if battles is not None and battles.through not in BATTLE_INPUTS:
            raise ValueError(f"the battles form of {name!r} goes through one of {BATTLE_INPUTS}, got {battles.through!r}")
        if battles is not None and battles.through == "counts" and from_counts is None:
            raise ValueError(f"the battles form of {name!r} goes through the counts, so {name!r} needs from_counts")
        REGISTRY.add(
            MethodInfo(
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
                resampled=resampled,
                partition=partition,
                battles=battles,
                handles_weights=handles_weights,
                imputes_in_groups=imputes_in_groups,
            )
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


def partition_form(name: str, params: Mapping[str, Any], two_step: bool) -> PartitionForm | None:
    """The partition form of a run of ``name`` with ``params``, or None when the run has none."""
    form = method_info(name).partition
    return form if form is not None and form.supports(params, two_step) else None
