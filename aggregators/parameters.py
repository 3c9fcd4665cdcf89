"""Parameter checks shared by the methods: names against the signature, values against their range.

Each raises :class:`aggregators.errors.InvalidParameterError` naming the
method, the parameter and what it accepts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from scorehouse.aggregators.errors import InvalidParameterError
from scorehouse.aggregators.registry import MethodInfo


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
