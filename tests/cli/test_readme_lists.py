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
             if line.startswith(("| task level", "| instance level", "| battles "))}
    names = {shape: [n for n in re.findall(r"`([^`]+)`", cell) if not n.startswith("--")] for shape, cell in table.items()}
    assert names["task level, complete"] == list(rank_plan.TASK_DEFAULTS)
    assert names["task level, missing scores"] == list(rank_plan.SPARSE_TASK_DEFAULTS)
    assert f"at least {'half' if rank_plan.DEFAULT_MIN_COVERAGE == 0.5 else '?'} the voters" in table["task level, missing scores"]
    assert names["instance level"] == [m for m, _ in rank_plan.INSTANCE_DEFAULTS] + ["borda_partial"]
    assert names["battles"] == list(rank_plan.TIMED_BATTLE_DEFAULTS)
    assert [n for n in rank_plan.TIMED_BATTLE_DEFAULTS if n not in rank_plan.BATTLE_DEFAULTS] == ["elo"]  # "when ... time stamps"
    assert f"`kemeny` ({rank_plan.DEFAULT_KEMENY_SECONDS:g} s budget)" in table["task level, complete"]


def test_the_formats_table_lists_every_format():
    assert sorted(first_column("Formats")) == sorted(FORMATS)
