"""Score a validated profile with one registered method: the single call site of every method function.

Checks what the method needs (known parameters, complete ballots, equal
weights) before it runs, and normalises its output to :class:`Scored`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from scorehouse.aggregators.parameters import check_parameters
from scorehouse.aggregators.profile import Profile
from scorehouse.aggregators.registry import Scored, method_info


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
