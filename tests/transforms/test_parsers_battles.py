"""The battles format on every layout it reads, and the validation of parsed battles.

The fixtures under ``fixtures/battles`` are written by hand; the two Parquet files were written
once with Polars from the same values (``arena_human_preference.parquet`` from the CSV of that
name, ``battles_typed.parquet`` with a typed ``question_id``, ``turn``, a UTC ``timestamp`` and a
nested conversation column).  Expected values are read off the fixtures, and times are computed
with the standard library, not with the code under test.
"""

from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest

from scorehouse.transforms.parsers import FORMATS, detect_format, parse_file
from scorehouse.transforms.parsers.base import ParseError
from scorehouse.transforms.parsers import json_dump
from scorehouse.transforms.parsers.battles import ROLES, parse, parse_mapped
from scorehouse.transforms.parsers.json_dump import has_key, key_lines
from scorehouse.transforms.validate import reason_counts
from scorehouse.transforms.validate_battles import validate_battles
from scorehouse.warehouse.schema import BATTLE_FIELDS, BATTLE_WINNERS, BATTLES, BATTLES_QUARANTINE

FIXTURES = Path(__file__).parent / "fixtures" / "battles"
TRIO = [  # (model_a, model_b, winner) of battles.csv and battles_typed.parquet
    ("gpt-4", "claude-2", "model_a"),
    ("claude-2", "llama-2-70b", "tie (bothbad)"),
    ("llama-2-70b", "gpt-4", "model_b"),
]
MAPPING = {"model_a": "left", "model_b": "right", "winner": "outcome", "judge": "rater", "instance": "prompt",
           "turn": "round", "language": "lang", "category": "topic", "tstamp": "when"}


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


def landed(path: Path, benchmark: str = "b", columns: dict[str, str] | None = None) -> pl.DataFrame:
    parsed = parse_mapped(path, benchmark, columns or {})
    result = validate_battles(parsed.rows, file=path.name, load_id="L")
    assert result.quarantine.height == 0, result.quarantine.get_column("reason").to_list()
    return result.battles


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.iterdir() if p.name != "mapped.csv"))
def test_every_default_named_fixture_is_detected_as_battles(name):
    assert detect_format(FIXTURES / name).name == "battles"


def test_other_column_names_are_not_detected_and_need_the_format():
    with pytest.raises(ParseError, match="unrecognised format"):
        detect_format(FIXTURES / "mapped.csv")


def test_clean_battle_json_array_reads_arena_fields_and_leaves_the_rest_out():
    battles = landed(FIXTURES / "clean_battle_sample.json")
    assert battles.select("model_a", "model_b", "winner", "judge", "instance", "turn", "language").rows() == [
        ("gpt-4", "claude-2", "model_a", "arena_user_1", "q1", 1, "English"),
        ("claude-2", "llama-2-70b", "tie (bothbad)", "arena_user_2", "q2", 2, "German"),
        ("llama-2-70b", "gpt-4", "tie", "arena_user_1", "q3", 1, "English"),
    ]
    # tstamp is unix seconds, float or integer
    assert battles.get_column("tstamp").to_list() == [
        datetime.fromtimestamp(1714564800.25, UTC), datetime.fromtimestamp(1714564900, UTC),
        datetime.fromtimestamp(1714565000.5, UTC),
    ]
    assert battles.get_column("category").null_count() == 3  # category_tag is nested: not a category
    rows = parse(FIXTURES / "clean_battle_sample.json", "b").rows
    assert rows.get_column("line").to_list() == [4, 19, 34]  # the line of each record's model_a key
    assert rows.get_column("source_row").to_list() == [1, 2, 3]


def test_a_clean_battle_file_is_benchmark_chatbot_arena_other_files_need_one():
    assert parse(FIXTURES / "clean_battle_sample.json", None).rows.get_column("benchmark").unique().to_list() == [
        "chatbot-arena"
    ]
    with pytest.raises(ParseError, match="pass --benchmark"):
        parse(FIXTURES / "battles.csv", None)


def test_json_lines_with_iso_times_and_a_blank_line():
    battles = landed(FIXTURES / "battles.jsonl")
    assert battles.select("model_a", "model_b", "winner", "judge", "instance", "category").rows() == [
        ("gpt-4", "claude-2", "model_b", "gpt-4-judge", "7", "coding"),
        ("claude-2", "llama-2-70b", "model_a", "gpt-4-judge", "8", "math"),
        ("llama-2-70b", "gpt-4", "tie", "human", "9", "coding"),
    ]
    # "Z", no offset (taken as UTC), and +02:00
    assert battles.get_column("tstamp").to_list() == [utc(2024, 5, 1, 12), utc(2024, 5, 1, 13, 30), utc(2024, 5, 2, 6)]
    assert parse(FIXTURES / "battles.jsonl", "b").rows.get_column("line").to_list() == [1, 3, 4]


def test_csv_and_typed_parquet_give_the_same_battles():
    csv = landed(FIXTURES / "battles.csv")
    typed = landed(FIXTURES / "battles_typed.parquet")
    for battles in (csv, typed):
        assert battles.select("model_a", "model_b", "winner").rows() == TRIO
        assert battles.get_column("turn").to_list() == [1, 2, 1]
        assert battles.get_column("tstamp").to_list() == [
            datetime.fromtimestamp(1714564800.25, UTC), utc(2024, 5, 1, 12, 1, 40), None
        ]
    assert csv.get_column("category").to_list() == ["coding", "math", "coding"]
    assert typed.get_column("category").null_count() == 3  # no category column
    assert typed.get_column("instance").to_list() == ["1", "2", "3"]
    assert parse(FIXTURES / "battles_typed.parquet", "b").rows.get_column("line").null_count() == 3


def test_missing_optional_columns_are_null():
    battles = landed(FIXTURES / "battles_minimal.csv")
    assert battles.select("model_a", "model_b", "winner").rows() == [("gpt-4", "claude-2", "model_a"), ("claude-2", "gpt-4", "tie")]
    for role in ("judge", "instance", "turn", "language", "category", "tstamp"):
        assert battles.get_column(role).null_count() == 2, role


@pytest.mark.parametrize("name", ["arena_human_preference.csv", "arena_human_preference.parquet"])
def test_the_one_hot_winner_becomes_winner_and_two_ones_are_flagged(name):
    parsed = parse(FIXTURES / name, "b")
    result = validate_battles(parsed.rows, file=name, load_id="L")
    assert result.battles.select("model_a", "winner").rows() == [
        ("gpt-4-1106-preview", "model_a"), ("koala-13b", "model_b"), ("gpt-3.5-turbo-0613", "tie")
    ]
    assert result.quarantine.select("model_a", "reason").rows() == [(
        "llama-2-13b-chat",
        "one-hot winner columns not exactly one 1: winner_model_a=1, winner_model_b=1, winner_tie=0",
    )]
    assert result.battles.get_column("source_row").to_list() == [1, 2, 3]


def test_mapped_column_names():
    battles = landed(FIXTURES / "mapped.csv", columns=MAPPING)
    assert battles.select("model_a", "model_b", "winner", "judge", "instance", "turn", "language", "category").rows() == [
        ("sys-x", "sys-y", "model_a", "alice", "p1", 1, "en", "coding"),
        ("sys-y", "sys-z", "tie", "bob", "p2", 1, "en", "writing"),
        ("sys-z", "sys-x", "model_b", "alice", "p3", 2, "de", "coding"),
    ]
    assert battles.get_column("tstamp").to_list() == [utc(2026, 1, 5, 10), utc(2026, 2, 5, 10), utc(2026, 1, 5, 10)]


def test_a_mapping_overrides_a_default_name():
    # judge read from "category": the default "judge" column is no longer the judge
    battles = landed(FIXTURES / "battles.csv", columns={"judge": "category"})
    assert battles.get_column("judge").to_list() == ["coding", "math", "coding"]


def test_mapping_errors_name_the_column_and_the_roles():
    with pytest.raises(ParseError, match=r"no column 'left' \(as model_a\) in the file; columns are:"):
        parse_mapped(FIXTURES / "battles.csv", "b", {"model_a": "left"})
    with pytest.raises(ParseError, match="unknown battle column role"):
        parse_mapped(FIXTURES / "battles.csv", "b", {"system": "model_a"})
    with pytest.raises(ParseError, match="no model_a, model_b, winner column: a battles file has"):
        parse(FIXTURES / "mapped.csv", "b")
    with pytest.raises(ParseError, match="takes no column mapping"):
        FORMATS["instance-long"].read(FIXTURES / "battles.csv", "b", {"model_a": "x"})


def test_format_read_without_a_mapping_is_parse():
    fmt, parsed = parse_file(FIXTURES / "battles.csv", benchmark="b")
    assert fmt.read(FIXTURES / "battles.csv", "b", None).rows.equals(parsed.rows)
    assert fmt.read(FIXTURES / "battles.csv", "b", {"model_a": "model_a"}).rows.equals(parsed.rows)


def test_bad_battles_are_quarantined_with_their_reason_and_nothing_is_dropped():
    rows = parse(FIXTURES / "battles_bad.csv", "b").rows
    result = validate_battles(rows, file="battles_bad.csv", load_id="L")
    assert result.battles.height + result.quarantine.height == rows.height
    allowed = "allowed: model_a, model_b, tie, tie (bothbad)"
    assert result.quarantine.select("line", "reason").rows() == [
        (2, "a system battling itself: model_a and model_b are both 'gpt-4'"),
        (3, f"unknown winner 'model_c'; {allowed}"),
        (4, "empty model_a name"),
        (5, "empty model_b name"),
        (6, "unparseable tstamp 'yesterday'; give unix seconds or an ISO 8601 time"),
        (7, f"unknown winner (empty); {allowed}"),
        (8, "non-integer turn 'one'"),
    ]
    assert result.quarantine.get_column("file").unique().to_list() == ["battles_bad.csv"]
    assert dict(result.quarantine.schema) == BATTLES_QUARANTINE
    # names and winner are compared without surrounding blanks
    assert result.battles.select("model_a", "winner", "source_row").rows() == [("gpt-4", "model_b", 8)]
    assert dict(result.battles.schema) == BATTLES
    assert reason_counts(result.quarantine) == {
        "unknown winner": 2, "a system battling itself": 1, "empty model_a name": 1, "empty model_b name": 1,
        "non-integer turn": 1, "unparseable tstamp": 1,
    }


def test_a_system_battling_itself_is_found_after_stripping_blanks():
    frame = pl.DataFrame({c: [None] for c in BATTLE_FIELDS}).with_columns(
        benchmark=pl.lit("b"), model_a=pl.lit(" x"), model_b=pl.lit("x "), winner=pl.lit("tie"),
        line=pl.lit(1), source_row=pl.lit(1),
    )
    reasons = validate_battles(frame, file="f", load_id="L").quarantine.get_column("reason").to_list()
    assert reasons == ["a system battling itself: model_a and model_b are both 'x'"]


@pytest.mark.parametrize(("text", "expected"), [
    ("1714564800", datetime.fromtimestamp(1714564800, UTC)),
    ("1714564800.125", datetime.fromtimestamp(1714564800.125, UTC)),
    ("2024-05-01T12:00:00Z", utc(2024, 5, 1, 12)),
    ("2024-05-01 12:00:00.5", utc(2024, 5, 1, 12, 0, 0, 500000)),
    ("2024-05-01T14:00:00+02:00", utc(2024, 5, 1, 12)),
    ("2024-05-01T12:00", utc(2024, 5, 1, 12)),
    ("2024-05-01", utc(2024, 5, 1)),
    ("2024-13-01", None), ("inf", None), ("nan", None), ("1e300", None), ("soon", None),
])
def test_tstamp_text(text, expected):
    result = validate_battles(one_battle(tstamp=text), file="f", load_id="L")
    if expected is None:
        assert result.quarantine.get_column("reason").to_list() == [
            f"unparseable tstamp '{text}'; give unix seconds or an ISO 8601 time"
        ]
    else:
        assert result.battles.get_column("tstamp").to_list() == [expected]


def test_the_cli_roles_are_the_parsers_and_the_winners_are_the_schemas():
    from scorehouse.commands import BATTLE_COLUMN_ROLES

    assert BATTLE_COLUMN_ROLES == tuple(ROLES) == BATTLE_FIELDS
    assert BATTLE_WINNERS == ("model_a", "model_b", "tie", "tie (bothbad)")


def test_a_nested_optional_role_column_in_parquet_is_absent_and_a_needed_one_is_named(tmp_path):
    path = tmp_path / "nested.parquet"
    pl.DataFrame({
        "model_a": ["x", "y"], "model_b": ["y", "z"], "winner": ["model_a", "tie"],
        "category": [{"a": 1}, {"a": 2}], "language": [["en"], ["de", "fr"]], "judge": ["j1", "j2"],
    }).write_parquet(path)
    battles = landed(path)
    assert battles.select("model_a", "model_b", "winner", "judge", "category", "language").rows() == [
        ("x", "y", "model_a", "j1", None, None), ("y", "z", "tie", "j2", None, None),
    ]
    with pytest.raises(ParseError, match=r"column\(s\) 'category' \(Struct\(\{'a': Int64\}\)\) hold nested values"):
        parse_mapped(path, "b", {"judge": "category"})
    pl.DataFrame({"model_a": [["x"]], "model_b": ["y"], "winner": ["tie"]}).write_parquet(path)
    with pytest.raises(ParseError, match=r"column\(s\) 'model_a' \(List\(String\)\) hold nested values"):
        parse(path, "b")


def one_battle(**fields: str) -> pl.DataFrame:
    """One parsed tie of x and y with ``fields`` (text) set."""
    return pl.DataFrame({c: [None] for c in BATTLE_FIELDS}, schema=dict.fromkeys(BATTLE_FIELDS, pl.String)).with_columns(
        benchmark=pl.lit("b"), model_a=pl.lit("x"), model_b=pl.lit("y"), winner=pl.lit("tie"),
        **{name: pl.lit(value) for name, value in fields.items()}, line=pl.lit(1), source_row=pl.lit(1),
    )


@pytest.mark.parametrize(("text", "expected"), [
    ("2", 2), ("2.0", 2), ("1e1", 10), ("9007199254740993", 9007199254740993),
    ("1.5", None), ("two", None), ("inf", None), ("nan", None),
])
def test_turn_text_is_a_whole_number(text, expected):
    result = validate_battles(one_battle(turn=text), file="f", load_id="L")
    if expected is None:
        assert result.quarantine.get_column("reason").to_list() == [f"non-integer turn '{text}'"]
    else:
        assert result.battles.get_column("turn").to_list() == [expected]


def test_a_float_turn_from_parquet_or_csv_lands_like_json(tmp_path):
    parquet, csv, jsonl = tmp_path / "t.parquet", tmp_path / "t.csv", tmp_path / "t.jsonl"
    pl.DataFrame({"model_a": ["x", "y"], "model_b": ["y", "x"], "winner": ["tie", "model_a"],
                  "turn": [1.0, 3.0]}).write_parquet(parquet)
    csv.write_text("model_a,model_b,winner,turn\nx,y,tie,1.0\ny,x,model_a,3.0\n")
    jsonl.write_text('{"model_a": "x", "model_b": "y", "winner": "tie", "turn": 1.0}\n'
                     '{"model_a": "y", "model_b": "x", "winner": "model_a", "turn": 3.0}\n')
    for path in (parquet, csv, jsonl):
        assert landed(path).get_column("turn").to_list() == [1, 3]


# 2200-01-01 is 230 * 365 + 56 leap days (1972..2196 but 2100) = 84006 days = 7258118400 s after the epoch.
@pytest.mark.parametrize(("text", "expected"), [
    ("0", utc(1970, 1, 1)), ("7258118399", utc(2199, 12, 31, 23, 59, 59)),
    ("1714564800000", "tstamp '1714564800000' is after 2200-01-01: give seconds since the epoch, not milliseconds"),
    ("7258118400", "tstamp '7258118400' is after 2200-01-01: give seconds since the epoch, not milliseconds"),
    ("-1", "tstamp '-1' is outside 1970-01-01 to 2200-01-01; give the time of the battle"),
    ("2200-01-01", "tstamp '2200-01-01' is outside 1970-01-01 to 2200-01-01; give the time of the battle"),
    ("1969-12-31T23:59:59Z",
     "tstamp '1969-12-31T23:59:59Z' is outside 1970-01-01 to 2200-01-01; give the time of the battle"),
])
def test_tstamp_outside_the_plausible_range_is_quarantined(text, expected):
    result = validate_battles(one_battle(tstamp=text), file="f", load_id="L")
    if isinstance(expected, str):
        assert result.quarantine.get_column("reason").to_list() == [expected]
        assert reason_counts(result.quarantine) == {"implausible tstamp": 1}
    else:
        assert result.battles.rows() and result.battles.get_column("tstamp").to_list() == [expected]


def test_one_hot_flags_are_read_in_any_case(tmp_path):
    path = tmp_path / "excel.csv"
    path.write_text("model_a,model_b,winner_model_a,winner_model_b,winner_tie\n"
                    "x,y,TRUE,FALSE,FALSE\nx,y,False,True,False\nx,y,0,0.0,1.0\nx,y,true,TRUE,false\n")
    result = validate_battles(parse(path, "b").rows, file="f", load_id="L")
    assert result.battles.get_column("winner").to_list() == ["model_a", "model_b", "tie"]
    assert result.quarantine.get_column("reason").to_list() == [
        "one-hot winner columns not exactly one 1: winner_model_a=true, winner_model_b=TRUE, winner_tie=false"]


@pytest.mark.parametrize(("text", "lines"), [
    ('{"model_a": "x"}', [1]),
    ('[\n{"winner": 1,\n "model_a" :\n "x"}, {"model_a": "y"}]', [3, 4]),
    ('{"note": "said \\"model_a\\": x"}', []),  # inside a string: the quote is escaped
    ('{"k": "model_a"}', []),  # a value, not a key
    ('{"model_b": "x"}', []),
])
def test_the_battles_key_search_and_the_json_key_lines_agree(text, lines):
    assert has_key(text, "model_a") == bool(lines)
    assert key_lines(text, "model_a", len(lines))[0] == lines


def test_an_absent_key_costs_no_regex(monkeypatch):
    def no_regex(key: str) -> str:
        raise AssertionError(f"regex built for {key!r}, which the text does not hold")

    monkeypatch.setattr(json_dump, "key_pattern", no_regex)
    assert not has_key('{"model_b": "x", "winner": "tie"}' * 1000, "model_a")


def test_a_nested_role_value_is_json_text_in_an_array_as_in_json_lines(tmp_path):
    records = ['{"model_a": "x", "model_b": "y", "winner": "tie", "category": {"a": 1, "b": [2, "z"]}}',
               '{"model_a": "y", "model_b": "x", "winner": "model_a", "category": [1, 2], "turn": 2}',
               '{"model_a": "x", "model_b": "y", "winner": "model_b", "category": "plain"}']
    array, lines = tmp_path / "a.json", tmp_path / "a.jsonl"
    array.write_text("[\n" + ",\n".join(records) + "\n]\n")
    lines.write_text("\n".join(records) + "\n")
    expected = [('{"a": 1, "b": [2, "z"]}', None), ("[1, 2]", 2), ("plain", None)]
    assert landed(array).select("category", "turn").rows() == expected
    assert landed(lines).select("category", "turn").rows() == expected
    assert parse(array, "b").rows.get_column("line").to_list() == [2, 3, 4]
    array.write_text("[" + records[0] + ",]")  # not JSON: still the parser's error
    with pytest.raises(ParseError, match="not readable as a JSON array of objects"):
        parse(array, "b")
