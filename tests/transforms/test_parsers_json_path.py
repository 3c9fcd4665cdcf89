"""JSON leaderboards read by a path template (format json-path): every shape on a fixture written here,
each expected row written out by hand from the fixture."""

import gzip
import json
from pathlib import Path

import pytest

from scorehouse.transforms.parsers import ParseError
from scorehouse.transforms.parsers.json_path import TemplateError, check_mapping, parse_json_path, parse_template


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def rows(path: Path, template: str, **options: str) -> list[tuple]:
    parsed = parse_json_path(path, "lb", {"json_path": template, **options})
    frame = parsed.rows.select("task", "metric", "instance", "system", "value")
    return sorted(frame.iter_rows())


KEYED_BY_MODEL = """{
  "model-x": {"pass@1": {"taskA": 71.3, "taskB": 65.0}, "size": 7},
  "model-y": {"pass@1": {"taskA": 60, "taskB": "n/a", "taskC": null, "taskD": true}, "size": 3},
  "model-z": {"size": 13}
}"""


def test_the_issue_example_captures_system_and_task_and_skips_and_counts_the_rest(tmp_path):
    path = write(tmp_path / "humaneval.json", KEYED_BY_MODEL)
    assert rows(path, "{system}.pass@1.{task}") == [
        ("taskA", "score", None, "model-x", "71.3"),
        ("taskA", "score", None, "model-y", "60"),
        ("taskB", "score", None, "model-x", "65.0"),  # the number as published
    ]
    problems = parse_json_path(path, "lb", {"json_path": "{system}.pass@1.{task}"}).problems
    assert "skipped non-numeric leaves: 1 null, 1 text, 1 true/false" in problems
    assert "skipped where the document does not fit the template: 1 at 'pass@1'" in problems  # model-z


def test_an_uncaptured_task_is_the_file_name_and_an_uncaptured_metric_is_score(tmp_path):
    path = tmp_path / "macro.json.gz"
    path.write_bytes(gzip.compress(b'{"m1": {"score.task_macro": 51.2, "name": "M 1", "n": {"a": 1}}, "m2": {"score.task_macro": 49}}'))
    assert rows(path, '{system}."score.task_macro"') == [
        ("macro", "score", None, "m1", "51.2"),
        ("macro", "score", None, "m2", "49"),
    ]
    # {metric} over the same level: the text and the object are skipped, the numbers are metrics
    assert rows(path, "{system}.{metric}") == [
        ("macro", "score.task_macro", None, "m1", "51.2"),
        ("macro", "score.task_macro", None, "m2", "49"),
    ]


def test_deeper_nesting_with_a_skipped_level_and_every_role_captured(tmp_path):
    doc = {"results": {"v2": {"m1": {"mmlu": {"acc": {"q1": 1, "q2": 0}}},
                              "m2": {"mmlu": {"acc": {"q1": 0}}, "gsm8k": {"em": {"q9": 0.5}}}}}}
    path = write(tmp_path / "deep.json", json.dumps(doc))
    assert rows(path, "results.*.{system}.{task}.{metric}.{instance}") == [
        ("gsm8k", "em", "q9", "m2", "0.5"),
        ("mmlu", "acc", "q1", "m1", "1"),
        ("mmlu", "acc", "q1", "m2", "0"),
        ("mmlu", "acc", "q2", "m1", "0"),
    ]


def test_lists_of_records_name_their_roles_by_a_field(tmp_path):
    doc = {"leaderboard": [
        {"model": "alpha", "scores": {"arc": 0.61, "hellaswag": 0.8}},
        {"model": "beta", "scores": {"arc": 0.55}},
        {"name_missing": "gamma", "scores": {"arc": 0.9}},
    ]}
    path = write(tmp_path / "records.json", json.dumps(doc))
    assert rows(path, "leaderboard[].{system=model}.scores.{task}") == [
        ("arc", "score", None, "alpha", "0.61"),
        ("arc", "score", None, "beta", "0.55"),
        ("hellaswag", "score", None, "alpha", "0.8"),
    ]
    problems = parse_json_path(path, "lb", {"json_path": "leaderboard[].{system=model}.scores.{task}"}).problems
    assert "skipped where the document does not fit the template: 1 at {system=model}" in problems


def test_per_model_folders_of_per_judgement_json_lines_take_the_system_from_the_folder(tmp_path):
    path = write(tmp_path / "judgements" / "gpt-x" / "mt_bench.jsonl",
                 '{"question_id": 81, "category": "writing", "score": 9}\n\n'
                 '{"question_id": 82, "category": "math", "score": 4.5}\n')
    assert rows(path, "{instance=question_id}.{task=category}.score", system_from="folder") == [
        ("math", "score", "82", "gpt-x", "4.5"),
        ("writing", "score", "81", "gpt-x", "9"),
    ]


def test_a_template_that_reaches_no_number_is_a_parse_error_saying_what_it_reached(tmp_path):
    path = write(tmp_path / "lb.json", KEYED_BY_MODEL)
    # 5 values under the models (3 sizes, 2 pass@1 objects); the sizes have no {task}; 6 numbers have no 'deeper'
    message = r"reaches no number \(it reaches nothing; 3 value\(s\) did not fit \{task\}; 6 value\(s\) did not fit 'deeper'\)"
    with pytest.raises(ParseError, match=message) as caught:
        parse_json_path(path, "lb", {"json_path": "{system}.{metric}.{task}.deeper"})
    assert caught.value.file == str(path)


def test_json_lines_that_are_not_json_name_the_line(tmp_path):
    path = write(tmp_path / "bad.jsonl", '{"model": "a", "s": 1}\n{"model": "b", "s": \n')
    with pytest.raises(ParseError) as caught:
        parse_json_path(path, "lb", {"json_path": "{system=model}.s"})
    assert caught.value.line == 2


@pytest.mark.parametrize(("template", "problem"), [
    ("{system}.{model}", r"unknown placeholder \{model\}"),
    ("{system}.{task}.{task}", "captures task twice"),
    ("{system}..x", "nothing to read at character 10"),
    ("{system}.a{b", "expected a dot at character 11"),
    ("{task}", "name the system once"),
])
def test_templates_that_cannot_be_read_say_where(template, problem):
    with pytest.raises(TemplateError, match=problem):
        check_mapping({"json_path": template})


def test_the_system_is_named_once_from_the_template_or_the_folder():
    with pytest.raises(TemplateError, match="name the system once"):
        check_mapping({"json_path": "{system}.{task}", "system_from": "folder"})
    assert [str(s) for s in parse_template('{system}."a.b".x[].*.{task=t}')] == [
        "{system}", "'a.b'", "'x'", "[]", "*", "{task=t}"]
