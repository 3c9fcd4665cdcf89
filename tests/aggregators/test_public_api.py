"""Every public name of ``aggregators`` is the same object however, and in whatever order, it is imported.

Each import order runs in a fresh interpreter (a subprocess), since what is
being tested is what a first import leaves behind.  The reference for each
name is the attribute of the module that :data:`aggregators.PUBLIC` says
defines it, read in the same interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scorehouse import aggregators

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted(p.stem for p in (ROOT / "aggregators").glob("*.py") if p.stem != "__init__")

# Each program checks every public name and prints a JSON list of the failures.
CHECK = """
import importlib, json, sys, types
failures = []
def check(name):
    from scorehouse import aggregators
    value = getattr(importlib.import_module("scorehouse.aggregators"), name)
    exec(f"from scorehouse.aggregators import {name} as imported", globals())
    home = getattr(importlib.import_module("scorehouse.aggregators." + aggregators.PUBLIC[name]), name)
    if isinstance(value, types.ModuleType) or imported is not home or value is not home:
        failures.append(name)
"""

ORDERS = {
    "package first": "for name in {names}: check(name)",
    "every submodule first": "for m in {modules}: importlib.import_module('scorehouse.aggregators.' + m)\nfor name in {names}: check(name)",
    "defining modules first": "for name in {names}: importlib.import_module('scorehouse.aggregators.' + importlib.import_module('scorehouse.aggregators').PUBLIC[name])\n"
    "for name in {names}: check(name)",
}


def run_fresh(program: str) -> str:
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("order", sorted(ORDERS))
def test_every_public_name_is_the_defining_object(order):
    names = sorted(aggregators.PUBLIC)
    program = CHECK + ORDERS[order].format(names=names, modules=MODULES) + "\nprint(json.dumps(failures))"
    assert json.loads(run_fresh(program)) == []


@pytest.mark.parametrize(
    "first_import",
    [
        "from scorehouse.aggregators.registry import REGISTRY; methods = sorted(REGISTRY)",
        "from scorehouse.aggregators.registry import method_info; methods = [method_info('borda').name]",
        "from scorehouse.aggregators.execution import run; import polars as pl; "
        "methods = [run('borda', pl.DataFrame({'voter': ['v'], 'system': ['s'], 'score': [1.0]})).method]",
    ],
)
def test_the_registry_is_full_whatever_is_imported_first(first_import):
    program = f"{first_import}\nfrom scorehouse.aggregators.registry import REGISTRY\nimport json\nprint(json.dumps(sorted(REGISTRY)))"
    from scorehouse.aggregators.registry import REGISTRY

    assert json.loads(run_fresh(program)) == sorted(REGISTRY)
    assert len(REGISTRY) >= 15


def test_the_schemas_module_stays_light():
    program = "import sys, aggregators.schemas\nprint(sorted(m for m in ('scipy', 'scorehouse.aggregators.registry') if m in sys.modules))"
    assert run_fresh(program).strip() == "[]"
