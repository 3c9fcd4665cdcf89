"""The README's lists that could drift (commands, methods, defaults, formats) are those of the code."""

from __future__ import annotations

import re
from pathlib import Path

from scorehouse import cli
from scorehouse.aggregators import REGISTRY
from scorehouse.transforms import rank_plan
from scorehouse.transforms.parsers import FORMATS
from tests.cli.test_cli_consistency import subparsers

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()


def section(title: str) -> str:
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end if end > 0 else None]


def first_column(title: str) -> list[str]:
    """The backquoted names in the first column of a section's first table."""
    rows = [line for line in section(title).splitlines() if line.startswith("| `")]
    return [name for row in rows for name in re.findall(r"`([^`]+)`", row.split("|")[1])]


def test_the_readme_is_a_manual_of_at_most_about_350_lines():
    assert len(README.splitlines()) <= 360


def test_the_commands_table_lists_every_command():
    listed = [name.split()[0] for name in first_column("Commands")]
    assert sorted(listed) == sorted(subparsers(cli.build_parser()))


def test_the_methods_table_lists_every_registered_method_and_says_which_handle_missing_scores():
    rows = {re.search(r"`([^`]+)`", line).group(1): line for line in section("Methods").splitlines()
            if line.startswith("| `") and line.count("|") == 5}
    assert sorted(rows) == sorted(REGISTRY)
    for name, row in rows.items():
        assert ("| handled |" in row) == REGISTRY[name].handles_missing, name


def test_the_defaults_table_names_the_default_methods():
    table = {line.split("|")[1].strip(): line.split("|")[2] for line in section("Methods").splitlines()
             if line.startswith("| task ") or line.startswith("| instance ") or line.startswith("| battles ")}
    assert re.findall(r"`([^`]+)`", table["task"]) == [*rank_plan.TASK_DEFAULTS, "borda_partial"]
    assert re.findall(r"`([^`]+)`", table["instance"]) == [m for m, _ in rank_plan.INSTANCE_DEFAULTS] + ["borda_partial"]
    assert re.findall(r"`([^`]+)`", table["battles"]) == list(rank_plan.BATTLE_DEFAULTS)
    assert f"`kemeny` ({rank_plan.DEFAULT_KEMENY_SECONDS:g} s budget)" in table["task"]


def test_the_formats_table_lists_every_format():
    assert sorted(first_column("Formats")) == sorted(FORMATS)
