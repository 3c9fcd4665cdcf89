"""A snapshot's code version hashes the code that ranks, not the parsers that load."""

import ast
import shutil
from pathlib import Path

import pytest

from scorehouse.warehouse.snapshots import RANK_CODE, REPOSITORY, code_version, rank_code_sources

# Where ranking starts: the flows that write snapshots and analyses.
RANK_ENTRY_POINTS = ("flows/rank.py", "flows/analyze.py")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the repository's aggregators, transforms and warehouse schema, to edit."""
    for package in ("aggregators", "transforms"):
        shutil.copytree(REPOSITORY / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "warehouse").mkdir()
    shutil.copyfile(REPOSITORY / "warehouse" / "schema.py", tmp_path / "warehouse" / "schema.py")
    return tmp_path


def edit(path: Path) -> None:
    path.write_text(path.read_text() + "\n# an edit\n")


def test_the_copy_has_the_repositorys_code_version(tree):
    assert code_version(tree) == code_version()


@pytest.mark.parametrize("parser", ["transforms/parsers/coco_captioning.py", "transforms/parsers/base.py",
                                    "transforms/validate.py"])
def test_editing_a_parser_or_validation_keeps_the_code_version(tree, parser):
    before = code_version(tree)
    edit(tree / parser)
    assert code_version(tree) == before


@pytest.mark.parametrize("ranking", ["aggregators/borda.py", "aggregators/__init__.py", "transforms/ballots.py",
                                     "transforms/dense.py", "transforms/rank_plan.py", "transforms/catalog.py",
                                     "warehouse/schema.py"])
def test_editing_the_rank_code_changes_the_code_version(tree, ranking):
    before = code_version(tree)
    edit(tree / ranking)
    assert code_version(tree) != before


def test_a_new_aggregator_module_changes_the_code_version(tree):
    before = code_version(tree)
    (tree / "aggregators" / "new_method.py").write_text("def rank(ballots):\n    return ballots\n")
    assert code_version(tree) != before


def project_imports(source: Path) -> set[Path]:
    """The project modules (``aggregators``/``transforms``) that ``source`` imports, as files of the repository."""
    found = set()
    for node in ast.walk(ast.parse(source.read_text())):
        names = [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
        names += [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
        for name in names:
            parts = name.removeprefix("scorehouse.").split(".")
            if parts[0] in ("aggregators", "transforms") or parts == ["warehouse", "schema"]:
                module = REPOSITORY / Path(*parts)
                found.add(module / "__init__.py" if module.is_dir() else module.with_suffix(".py"))
    return found


def test_rank_code_holds_every_module_the_rank_path_imports():
    """The transitive project imports of the rank and analyze flows are all hashed."""
    hashed = set(rank_code_sources())
    todo = [REPOSITORY / entry for entry in RANK_ENTRY_POINTS]
    seen: set[Path] = set()
    while todo:
        for module in project_imports(todo.pop()) - seen:
            seen.add(module)
            todo.append(module)
    assert seen, "the entry points import no rank code: the walk is broken"
    assert seen <= hashed, f"imported by the rank path but not in RANK_CODE: {sorted(map(str, seen - hashed))}"
    assert not any(str(s).startswith(str(REPOSITORY / "transforms" / "parsers")) for s in hashed)
    assert len(RANK_CODE) == len(set(RANK_CODE))
