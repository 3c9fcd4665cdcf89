"""JSON leaderboards read by a path template over their keys (format ``json-path``).

Leaderboards are often published as JSON keyed by model, in a nesting no fixed parser
knows.  The user names the levels (``scorehouse ingest FILE --benchmark B --json-path T``)
and every leaf the template reaches is a score.  The template is a dot-separated list of
steps, one per level of the document:

``{system}`` ``{task}`` ``{metric}`` ``{instance}``
    every key of an object at this level, captured as that role;
``{role=key}``
    the value of the field ``key`` of the record at this level, captured as the role; the
    walk stays on the record (lists of records: ``results[].{system=model}.score``);
``name`` or ``"na.me"``
    this key only (quote a key holding a dot, a brace or a bracket);
``*``
    every key of an object, or every element of a list, not captured;
``[]`` (or ``name[]``)
    every element of a list.

A role the template does not capture takes its default: the task is the file's name without
``.json``/``.jsonl``/``.gz``, the metric is ``score``, the instance is none (task-level scores),
and the system is the name of the file's folder with ``system_from = folder``
(``--system-from-folder``), otherwise it must be captured.  In JSON Lines every line is one
document (an implicit ``[]`` first).  Leaves that are JSON numbers are scores, kept as their
text; other leaves (text, booleans, null, objects, lists) are skipped and counted, and so are
the objects a literal key or a field is missing from.  A template that reaches no number is a
:class:`ParseError` (a mistyped template is not a load of nothing).

The mapping ``{"json_path": T[, "system_from": "folder"]}`` travels as the load's column mapping:
it is kept in the load manifest, hashed into the load id, and read again by ``--reparse``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from scorehouse.transforms.parsers import register_format
from scorehouse.transforms.parsers.base import Format, Parsed, ParseError, rows_frame
from scorehouse.transforms.parsers.json_dump import JsonNumber, load_json
from scorehouse.transforms.parsers.text import read_text

ROLES = ("system", "task", "metric", "instance")
DEFAULT_METRIC = "score"
# The keys of the mapping this format reads (role -> value of :attr:`Format.read`'s ``columns``).
OPTIONS = ("json_path", "system_from")
SYSTEM_FROM = ("folder",)
JSON_LINES = (".jsonl", ".ndjson")
# One step: a quoted key, a capture, or a bare key (anything but dots, quotes, braces, brackets), then an optional [].
STEP = re.compile(r'(?:"(?P<quoted>[^"]*)"|\{(?P<role>[a-z]+)(?:=(?P<field>[^{}]+))?\}|(?P<bare>[^."{}\[\]]+))?(?P<list>\[\])?')


class TemplateError(ParseError):
    """A ``--json-path`` template or mapping that cannot be read: the user's option is wrong, not the file."""


@dataclass(frozen=True)
class Step:
    """One level of a template: ``kind`` is ``capture``, ``field``, ``key``, ``any`` or ``list``."""

    kind: str
    role: str | None = None
    key: str | None = None

    def __str__(self) -> str:
        return {"capture": f"{{{self.role}}}", "field": f"{{{self.role}={self.key}}}", "key": repr(self.key),
                "any": "*", "list": "[]"}[self.kind]


def parse_template(template: str, where: str | Path = "--json-path") -> tuple[Step, ...]:
    """The steps of ``template``; TemplateError saying which part cannot be read and why."""
    steps: list[Step] = []
    position = 0
    while True:
        found = STEP.match(template, position)
        text = found.group(0)
        if not text:
            raise TemplateError(where, f"--json-path {template!r}: nothing to read at character {position + 1} "
                                "(an empty step, or an unquoted dot, brace or bracket inside a key: quote the key)")
        if found.group("role") is not None:
            role = found.group("role")
            if role not in ROLES:
                raise TemplateError(where, f"--json-path {template!r}: unknown placeholder {{{role}}}; "
                                    f"placeholders are {', '.join('{' + r + '}' for r in ROLES)}")
            field = found.group("field")
            steps.append(Step("field", role, field) if field is not None else Step("capture", role))
        elif found.group("quoted") is not None:
            steps.append(Step("key", key=found.group("quoted")))
        elif found.group("bare") == "*":
            steps.append(Step("any"))
        elif found.group("bare") is not None:
            steps.append(Step("key", key=found.group("bare")))
        if found.group("list"):
            steps.append(Step("list"))
        position = found.end()
        if position == len(template):
            break
        if template[position] != ".":
            raise TemplateError(where, f"--json-path {template!r}: expected a dot at character {position + 1}, "
                                f"found {template[position]!r}; quote a key holding it")
        position += 1
    captured = [s.role for s in steps if s.role is not None]
    repeated = sorted({r for r in captured if captured.count(r) > 1})
    if repeated:
        raise TemplateError(where, f"--json-path {template!r} captures {', '.join(repeated)} twice; once each")
    return tuple(steps)


def check_mapping(mapping: dict[str, str], where: str | Path = "--json-path") -> tuple[Step, ...]:
    """The template's steps once the whole mapping is known to be usable; TemplateError otherwise."""
    unknown = sorted(set(mapping) - set(OPTIONS))
    if unknown or "json_path" not in mapping:
        raise TemplateError(where, f"format json-path reads a mapping of {', '.join(OPTIONS)} (json_path "
                            f"required), got {sorted(mapping)}")
    if mapping.get("system_from", "folder") not in SYSTEM_FROM:
        raise TemplateError(where, f"system_from {mapping['system_from']!r}: the system can come from "
                            f"{', '.join(SYSTEM_FROM)} only")
    steps = parse_template(mapping["json_path"], where)
    captures_system = any(s.role == "system" for s in steps)
    if captures_system == ("system_from" in mapping):
        raise TemplateError(where, f"--json-path {mapping['json_path']!r}: name the system once, with "
                            "{system} (or {system=field}) in the template or with --system-from-folder")
    return steps


def kind_of(value: object) -> str:
    """What a JSON value is, in the words of the parse notes."""
    if isinstance(value, JsonNumber):
        return "number"
    if isinstance(value, bool):
        return "true/false"
    return {str: "text", dict: "object", list: "list", type(None): "null"}.get(type(value), type(value).__name__)


Node = tuple[object, tuple[str | None, ...]]  # a JSON value and the roles captured on the way to it (ROLES order)


def captured(captures: tuple[str | None, ...], role: str, value: object) -> tuple[str | None, ...]:
    index = ROLES.index(role)
    return (*captures[:index], str(value), *captures[index + 1:])


def walk(step: Step, nodes: list[Node], missed: Counter) -> list[Node]:
    """The nodes one level down from ``nodes`` by ``step``; the nodes that do not fit it are counted in ``missed``."""
    if step.kind == "list":
        fit = [(v, c) for v, c in nodes if isinstance(v, list)]
        out = [(item, c) for v, c in fit for item in v]
    elif step.kind == "any":
        fit = [(v, c) for v, c in nodes if isinstance(v, dict | list)]
        out = [(item, c) for v, c in fit for item in (v.values() if isinstance(v, dict) else v)]
    elif step.kind == "capture":
        fit = [(v, c) for v, c in nodes if isinstance(v, dict)]
        out = [(item, captured(c, step.role, key)) for v, c in fit for key, item in v.items()]
    elif step.kind == "key":
        fit = [(v, c) for v, c in nodes if isinstance(v, dict) and step.key in v]
        out = [(v[step.key], c) for v, c in fit]
    else:  # field: a scalar field of a record names the role, the walk stays on the record
        fit = [(v, c) for v, c in nodes
               if isinstance(v, dict) and isinstance(v.get(step.key), str | JsonNumber) and v[step.key] != ""]
        out = [(v, captured(c, step.role, v[step.key])) for v, c in fit]
    if len(fit) < len(nodes):
        missed[str(step)] += len(nodes) - len(fit)
    return out


def file_task(path: Path) -> str:
    """The default task: the file name without its JSON and gzip extensions."""
    name = path.name
    for suffix in (".gz", *JSON_LINES, ".json"):
        name = name[: -len(suffix)] if name.lower().endswith(suffix) else name
    return name


def is_json_lines(path: Path) -> bool:
    return path.name.lower().removesuffix(".gz").endswith(JSON_LINES)


def read_documents(path: Path) -> object:
    """The file's JSON document, or the list of the documents of JSON Lines (one per non-blank line).

    Numbers are kept as their JSON text (:class:`transforms.parsers.json_dump.JsonNumber`).
    """
    if not is_json_lines(path):
        return load_json(path, what="a file read with --json-path")[1]
    docs = []
    for number, line in enumerate(read_text(path).split("\n"), start=1):
        if not line.strip():
            continue
        try:
            docs.append(json.loads(line, parse_float=JsonNumber, parse_int=JsonNumber, parse_constant=JsonNumber))
        except json.JSONDecodeError as err:
            raise ParseError(path, f"not valid JSON Lines ({err.msg}, column {err.colno})", number) from None
    return docs


def parse_json_path(path: Path, benchmark: str | None, mapping: dict[str, str]) -> Parsed:
    """The scores of ``path`` that the template of ``mapping`` reaches (module docstring)."""
    steps = check_mapping(mapping, path)
    if benchmark is None:
        raise TemplateError(path, "a file read with --json-path needs --benchmark to name its benchmark")
    root = read_documents(path)
    if is_json_lines(path):
        steps = (Step("list"), *steps)
    missed: Counter = Counter()
    nodes: list[Node] = [(root, (None,) * len(ROLES))]
    for step in steps:
        nodes = walk(step, nodes, missed)
    leaves = Counter(kind_of(v) for v, _ in nodes)
    scores = [(v, c) for v, c in nodes if isinstance(v, JsonNumber)]
    template = mapping["json_path"]
    if not scores:
        found = ", ".join(f"{n} {kind}" for kind, n in sorted(leaves.items())) or "nothing"
        lacking = "; ".join(f"{n} value(s) did not fit {step}" for step, n in missed.items())
        raise ParseError(path, f"--json-path {template!r} reaches no number (it reaches {found}"
                         + (f"; {lacking}" if lacking else "") + "); check the template against the file's keys")
    roles = list(zip(*(c for _, c in scores), strict=True))
    system = [path.parent.name] * len(scores) if mapping.get("system_from") == "folder" else list(roles[0])
    rows = rows_frame(
        benchmark,
        list(roles[1]) if any(s.role == "task" for s in steps) else file_task(path),
        list(roles[2]) if any(s.role == "metric" for s in steps) else DEFAULT_METRIC,
        list(roles[3]) if any(s.role == "instance" for s in steps) else None,
        system,
        [str(v) for v, _ in scores],
        None,
    )
    problems = [f"read by --json-path {template!r}: {len(scores)} number(s)"]
    skipped = {kind: n for kind, n in leaves.items() if kind != "number"}
    if skipped:
        problems.append("skipped non-numeric leaves: " + ", ".join(f"{n} {kind}" for kind, n in sorted(skipped.items())))
    if missed:
        problems.append("skipped where the document does not fit the template: "
                        + ", ".join(f"{n} at {step}" for step, n in missed.items()))
    return Parsed(rows, tuple(problems))


def needs_template(path: Path, benchmark: str | None) -> Parsed:
    raise TemplateError(path, "format json-path reads a file by a path template: give --json-path TEMPLATE")


FORMAT = register_format(
    Format(
        name="json-path",
        parser_version=1,
        sniff=lambda path, head: False,  # chosen by giving --json-path, never detected
        parse=needs_template,
        parse_mapped=parse_json_path,
        folder_levels=1,  # a folder may name the system: its files are sources of their own
        description="a JSON document (or JSON Lines) read by the path template over its keys given with --json-path",
    )
)
