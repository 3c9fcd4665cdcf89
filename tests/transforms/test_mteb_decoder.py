"""The MTEB result reader's fast decoder (orjson) against the standard library's ``json``, the reference.

Every document must read to the same objects as ``json.loads`` reads it (key order, types, values;
a NaN as a NaN, once the text that stands for it in a file read with NaN as text is put back), whichever
decoder took it: orjson the strict JSON and the files with NaN, the standard decoder what orjson
refuses; but an integer beyond 64 bits, which orjson reads as the nearest float: its cell is that float
either way.  And a file that is not a result must fail as before, with the line where it breaks.
"""

from __future__ import annotations

import gc
import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorehouse.transforms.parsers import parse_file
from scorehouse.transforms.parsers.base import ParseError
from scorehouse.transforms.parsers.mteb import cycle_collection_paused, parse_results, read_result


def same(a: object, b: object) -> bool:
    """Equal as JSON documents read by Python: same keys in the same order, same types, floats bit for bit."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    return a == b


def restored(read: tuple[dict, str | None]) -> object:
    """The document read, each string that stands for NaN in it put back as a NaN."""
    doc, nan = read

    def back(value: object) -> object:
        if isinstance(value, dict):
            return {k: back(v) for k, v in value.items()}
        if isinstance(value, list):
            return [back(v) for v in value]
        return math.nan if nan is not None and value == nan else value

    return back(doc)


numbers = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),  # orjson's integer range: read as ints by both
)
# text with what the NaN reading must not take for a NaN: NaN in a string, as a key, after a backslash, NUL
texts = st.one_of(st.text(max_size=8), st.sampled_from(["NaN", "a NaN: b", "\\NaN", "\x00NaN", "[NaN]"]))
leaves = st.one_of(numbers, st.booleans(), st.none(), texts)
values = st.recursive(leaves, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(texts, inner, max_size=4)), max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(fields=st.dictionaries(texts, values, max_size=5), ascii_only=st.booleans(), spaced=st.booleans(),
       names=st.tuples(leaves, leaves, leaves))
def test_a_result_reads_as_the_standard_decoder_reads_it(tmp_path_factory, fields, ascii_only: bool, spaced: bool,
                                                         names: tuple):
    path = tmp_path_factory.mktemp("decoder") / "Task.json"
    task, version, subset = names  # a NaN as a name is read as the standard decoder reads it
    doc = {"mteb_version": version, **fields, "task_name": task,
           "scores": {"test": [{"hf_subset": subset, **fields}, {"hf_subset": "default", "main_score": math.nan}]}}
    path.write_bytes(json.dumps(doc, ensure_ascii=ascii_only, indent=2 if spaced else None).encode("utf-8"))
    assert same(restored(read_result(path)), json.loads(path.read_bytes()))


@pytest.mark.parametrize("text", [
    '{"mteb_version": "1.0", "x": 1e400}',  # infinity by rounding
    '{"mteb_version": "1.0", "x": [NaN, Infinity, -Infinity]}',  # not strict JSON: a fifth of the repository
    '\ufeff{"mteb_version": "1.0", "x": 1.5}',  # a byte order mark
    '{"mteb_version": "1.0", "x": "\\ud83d\\ude00", "y": 0.25}',  # a surrogate pair: one character
    '{"mteb_version": "1.0", "x": 1.5, "x": 2.5}',  # a repeated key: the last one
    '{"mteb_version": "1.0", "x": NaN, "d": "not NaN: text"}',  # NaN in a string: read by the standard decoder
    '{"mteb_version": "1.0", "x": NaN, "d": "\\u0000NaN"}',  # the NaN text itself, as the file's own string
    '{"mteb_version": NaN, "task_name": NaN, "x": [NaN, 1.0, {"y": NaN}]}',  # NaN as names
])
def test_what_the_fast_decoder_refuses_or_reads_differently_reads_as_json_does(tmp_path: Path, text: str):
    path = tmp_path / "Task.json"
    path.write_bytes(text.encode("utf-8"))
    assert same(restored(read_result(path)), json.loads(path.read_bytes()))


def test_nan_scores_are_nan_cells_and_the_files_own_nan_text_is_not(tmp_path: Path):
    path = tmp_path / "results" / "org__m" / "rev" / "Task.json"
    path.parent.mkdir(parents=True)
    entry = '{{"hf_subset": "{}", "main_score": {}, "f1": NaN, "cos": {{"pearson": NaN}}, "raw": [NaN, 0.5], "t": "{}"}}'
    for text in ("x", "\\u0000NaN"):  # with the NaN text as a string of the file, the standard decoder reads it
        path.write_text('{"mteb_version": "1.12.0", "task_name": "Task", "evaluation_time": NaN, "scores": {"test": ['
                        + entry.format("en", "0.5", text) + ", " + entry.format("de", "NaN", text) + "]}}")
        assert (read_result(path)[1] is None) is (text != "x")  # read with NaN as text, or by the standard decoder
        rows = parse_file(path)[1].rows
        cells = {(r["task"], r["metric"]): r["value"] for r in rows.iter_rows(named=True)}
        expected = {"evaluation_time", "main_score", "Task/en main_score", "Task/de main_score", "Task/en f1",
                    "Task/de f1", "Task/en cos.pearson", "Task/de cos.pearson", "Task/en raw[0]", "Task/de raw[0]",
                    "Task/en raw[1]", "Task/de raw[1]"}
        assert {f"{t} {m}" if t != "Task" else m for t, m in cells} == expected
        nan = {k for k, v in cells.items() if math.isnan(v)}
        assert nan == {k for k in cells if k[1] in ("evaluation_time", "f1", "cos.pearson", "raw[0]", "main_score")
                       and k != ("Task/en", "main_score")}
        assert cells[("Task/en", "main_score")] == cells[("Task/en", "raw[1]")] == 0.5


@pytest.mark.parametrize("number", ["123456789012345678901234567890", "-9223372036854775809", "18446744073709551615"])
def test_an_integer_beyond_64_bits_lands_as_its_nearest_float(tmp_path: Path, number: str):
    """json reads it as an int and orjson as a float: either way the cell is Python's own rounding of it."""
    path = tmp_path / "results" / "org__m" / "rev" / "Task.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"mteb_version": "1.12.0", "task_name": "Task", "scores": {"test": '
                    f'[{{"hf_subset": "default", "main_score": {number}}}]}}}}')
    rows = parse_file(path)[1].rows
    assert rows.filter(task="Task", metric="main_score").get_column("value").to_list() == [float(int(number))]


@pytest.mark.parametrize(("text", "line", "says"), [
    ('{"mteb_version": "1.0",\n "x": [1, 2,]}', 2, "not valid JSON"),
    ('{"mteb_version": "1.0",\n\n "x": "\\ud800"}', None, "half of a surrogate pair"),
    ('{"mteb_version": "1.0", "x": "\xe9"}'.encode("latin-1"), None, "not UTF-8"),
    ('[{"mteb_version": "1.0"}]', None, "not an MTEB result"),
    ("[" * 100_000 + "]" * 100_000, None, "nested too deeply"),
])
def test_a_file_that_is_not_a_result_fails_with_where_and_why(tmp_path: Path, text: str | bytes, line: int | None,
                                                              says: str):
    path = tmp_path / "Task.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    with pytest.raises(ParseError, match=says) as raised:
        read_result(path)
    assert raised.value.line == line


@pytest.mark.parametrize("enabled", [True, False])
def test_the_cycle_collector_is_left_as_it_was_after_a_batch_even_a_failing_one(tmp_path: Path, enabled: bool):
    (tmp_path / "Task.json").write_text("{not json")
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        assert isinstance(parse_results([tmp_path / "Task.json"], None)[0], ParseError)
        assert gc.isenabled() is enabled
        with pytest.raises(TypeError), cycle_collection_paused():
            assert not gc.isenabled()
            raise TypeError
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


VARIANTS = {  # a NaN score in every layout the format allows (mteb_cells.subsets_of)
    "current": '{"mteb_version": "1.12.0", "task_name": "T", "evaluation_time": NaN, "scores": {"test": ['
               '{"hf_subset": "en", "main_score": NaN, "f1": 0.5, "cos": {"pearson": NaN}, "raw": [NaN, 1]}, '
               '{"hf_subset": "de", "main_score": 0.25}], "dev": [{"hf_subset": "default", "main_score": NaN}]}}',
    "early flat": '{"mteb_version": "1.0.0", "mteb_dataset_name": "T", "test": {"accuracy": NaN, "f1": 0.5, '
                  '"evaluation_time": NaN}}',
    "early subsets": '{"mteb_version": "1.1.0", "mteb_dataset_name": "T", "test": {"en": {"main_score": NaN, '
                     '"cos_sim": {"pearson": NaN}}, "de": {"main_score": 0.5}, "evaluation_time": NaN}}',
    "earliest": '{"mteb_dataset_name": "T", "validation": {"cos_sim": {"spearman": NaN}, "manhattan": {"spearman": 0.5}}}',
}


@pytest.mark.parametrize("layout", sorted(VARIANTS))
def test_nan_read_as_text_gives_the_cells_the_standard_decoder_gives(tmp_path: Path, layout: str):
    """The same document read both ways: as is (NaN as text, orjson) and with a text field holding a backslash,
    which sends it to the standard decoder; the field is text, not a score, so the cells must be equal."""
    fast = tmp_path / "results" / "org__m" / "r1" / "T.json"
    standard = tmp_path / "results" / "org__n" / "r1" / "T.json"
    for path, text in ((fast, VARIANTS[layout]), (standard, VARIANTS[layout][:-1] + ', "note": "a\\\\b"}')):
        path.parent.mkdir(parents=True)
        path.write_text(text)
    assert read_result(fast)[1] is not None and read_result(standard)[1] is None  # both ways taken
    got, want = (parse_file(p)[1].rows.drop("system") for p in (fast, standard))
    assert got.equals(want) and got.height > 0  # NaN equal to NaN
    assert got.get_column("value").is_nan().sum() == VARIANTS[layout].count("NaN") + ("main_score\": NaN" in
                                                                                       VARIANTS[layout])
