"""The examples in the Python API's docstrings run, and show what they say they show.

Every value they print was worked out by hand in the docstring next to it (Borda points counted,
Bradley-Terry's log-strengths from the win counts); ``tests/api/test_rank.py`` checks the same
functions against scipy and the aggregators on many more tables.
"""

import doctest

import pytest

import scorehouse.api
import scorehouse.api_warehouse


@pytest.mark.parametrize("module", [scorehouse.api, scorehouse.api_warehouse], ids=lambda m: m.__name__)
def test_docstring_examples_run(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{module.__name__} has no examples"
    assert result.failed == 0
