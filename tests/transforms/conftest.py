"""Shared by the parser tests: where the bundled real dumps are.

The Hypothesis strategies live in ``strategies_leaderboard.py`` and
``strategies_instance.py``, one module per family of formats.
"""

from pathlib import Path

BUNDLED = Path(__file__).resolve().parents[2] / "data" / "bundled"
