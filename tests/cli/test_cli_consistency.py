"""The command line is consistent: every option documented, every hint names an option that exists,
one spelling per idea, tables sorted as they say, one column per method."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import polars as pl
import pytest

from scorehouse import cli, console
from scorehouse.reports.leaderboard import change_arrow, rank_change_arrow, side_by_side, sorted_by
from scorehouse.transforms.rank_plan import DEFAULT_PARAMS, MethodRun, command_defaults

REPO = Path(__file__).resolve().parents[2]
SOURCES = [p for folder in ("scorehouse", "flows", "warehouse", "transforms", "reports", "aggregators")
           for p in (REPO / folder).rglob("*.py")]


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def all_options(parser: argparse.ArgumentParser) -> set[str]:
    options = {o for a in parser._actions for o in a.option_strings}
    for sub in subparsers(parser).values():
        options |= {o for a in sub._actions for o in a.option_strings}
    return options


def test_every_option_of_every_command_has_help_text():
    parser = cli.build_parser()
    missing = [f"{name} {a.option_strings or a.dest}" for name, sub in {"": parser, **subparsers(parser)}.items()
               for a in sub._actions
               if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction)) and not (a.help or "").strip()]
    assert missing == []


def test_every_commands_help_ends_with_examples():
    for name, sub in subparsers(cli.build_parser()).items():
        text = sub.format_help().rstrip()
        examples = text[text.rindex("examples:"):] if "examples:" in text else ""
        assert examples and all(line.strip().startswith("scorehouse ") for line in examples.splitlines()[1:]), name


def hint_options() -> dict[str, set[str]]:
    """Every ``--option`` written in a string of the project's code, by file: what its messages tell users to pass."""
    found: dict[str, set[str]] = {}
    for path in SOURCES:
        with path.open("rb") as file:
            for token in tokenize.tokenize(file.readline):
                if token.type == tokenize.STRING and not token.string.lstrip("rbuRBUfF").startswith(('"""', "'''")):
                    for option in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", token.string):
                        found.setdefault(option, set()).add(str(path.relative_to(REPO)))
    return found


# Options of other programs: the private Prefect server's process (scorehouse.prefect_server).
FOREIGN = {"--folder", "--parent"}


def test_every_option_a_message_names_exists():
    known = all_options(cli.build_parser())
    unknown = {option: sorted(files) for option, files in hint_options().items() if option not in known | FOREIGN}
    assert unknown == {}


def test_the_hint_of_a_long_table_names_options_of_every_command_that_prints_one(capsys):
    console.print_frame(pl.DataFrame({"x": list(range(5))}), max_rows=2)
    hint = capsys.readouterr().out.splitlines()[-1]
    for name, sub in subparsers(cli.build_parser()).items():
        if any("--max-rows" in a.option_strings for a in sub._actions):
            options = {o for a in sub._actions for o in a.option_strings}
            assert {"--format", "--output"} <= options, name
            assert "--format csv --output FILE" in hint


def test_output_formats_are_spelled_once():
    assert cli.OUTPUT_FORMATS == console.OUTPUT_FORMATS


def test_the_leaderboard_is_sorted_by_the_first_method_and_says_so():
    first = pl.DataFrame({"system": ["c", "a", "b", "d"], "rank": [2, 1, 2, 4], "score": [2.0, 3.0, 2.0, 0.5]})
    second = pl.DataFrame({"system": ["a", "b", "c", "e"], "rank": [3, 1, 2, 4], "score": [1.0, 3.0, 2.0, 0.0]})
    runs = [(MethodRun("copeland"), first), (MethodRun("borda"), second)]
    table = side_by_side(runs)
    # by copeland's rank, ties by name, then the systems copeland did not rank
    assert table.get_column("system").to_list() == ["a", "b", "c", "d", "e"]
    assert table.columns == ["system", "copeland", "borda"]
    assert sorted_by(runs) == "sorted by copeland (rank, then name)"


def test_a_method_with_its_default_parameters_is_one_run_and_one_column():
    for method, params in DEFAULT_PARAMS.items():
        by_name, by_default = MethodRun.asked(method), MethodRun(method, dict(params), defaults="complete")
        assert by_name.label == by_default.label == method
        assert by_name.parameters == by_default.parameters == params
    assert MethodRun.asked("kemeny", {"time_limit": 60.0}).label == "kemeny [time_limit=60.0]"
    assert MethodRun("borda", {"ties": command_defaults("borda")["ties"]}).label == "borda"  # a default is no header


def test_rank_with_a_named_default_method_adds_no_second_column(tmp_path):
    glue = REPO / "data" / "bundled" / "vote_and_rank" / "tables" / "leaderboards - GLUE.csv"

    def scorehouse(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "scorehouse", "--home", str(tmp_path / "wh"), *args],
                              capture_output=True, text=True, cwd=tmp_path, check=True)

    scorehouse("ingest", str(glue))
    scorehouse("rank", "--benchmark", "glue", "--method", "kemeny")
    scorehouse("rank", "--benchmark", "glue")
    methods = scorehouse("sql", "SELECT method, count(DISTINCT parameters) AS n FROM latest_rankings GROUP BY method",
                         "--format", "csv").stdout
    counts = dict(line.split(",") for line in methods.strip().splitlines()[1:])
    assert counts["kemeny"] == "1" and set(counts.values()) == {"1"}


@pytest.mark.parametrize(("old", "new"), [(["--methods", "borda", "mean"], ["--method", "borda", "--method", "mean"]),
                                          (["--repetitions", "7"], ["--resamples", "7"])])
def test_a_renamed_option_keeps_its_old_spelling_with_a_warning(capsys, old, new):
    parser = cli.build_parser()
    before = parser.parse_args(["analyze", "--benchmark", "glue", *old])
    warning = capsys.readouterr().err
    after = parser.parse_args(["analyze", "--benchmark", "glue", *new])
    assert vars(before) == vars(after)
    assert f"{old[0]} is deprecated; use {new[0]}" in warning


def test_the_arrow_of_a_column_is_the_arrow_of_each_cell():
    values = [None, 1, 2, 3, 10]
    pairs = pl.DataFrame([(r, ref) for r in values for ref in values], schema=["rank", "ref"], orient="row")
    arrows = pairs.select(change_arrow(pl.col("rank"), pl.col("ref"))).to_series().to_list()
    assert arrows == [rank_change_arrow(r, ref) for r, ref in pairs.rows()]
