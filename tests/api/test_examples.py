"""The examples in the Python API's docstrings run, and show what they say they show.

Every value they print was worked out by hand in the docstring next to it (Borda points counted,
Bradley-Terry's log-strengths from the win counts); ``tests/api/test_rank.py`` checks the same
functions against scipy and the aggregators on many more tables.
"""

import doctest
from pathlib import Path

import pytest

import scorehouse.api
import scorehouse.api_warehouse

USER_DOC = Path(__file__).resolve().parents[2] / "docs" / "python-api.md"


@pytest.mark.parametrize("module", [scorehouse.api, scorehouse.api_warehouse], ids=lambda m: m.__name__)
def test_docstring_examples_run(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{module.__name__} has no examples"
    assert result.failed == 0


def test_the_user_doc_examples_run():
    """docs/python-api.md is written as a doctest: every example in it runs and prints what it shows."""
    result = doctest.testfile(str(USER_DOC), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 10
    assert result.failed == 0
