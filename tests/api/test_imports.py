"""``import scorehouse`` stays cheap, the API is reached through it, and no module is importable under two names."""

import importlib
import pkgutil
import subprocess
import sys

import scorehouse

HEAVY = ("polars", "pandas", "duckdb", "scipy", "prefect", "pyarrow")
STAGES = ("flows", "warehouse", "transforms", "aggregators", "reports")


def run_python(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


def test_import_scorehouse_loads_nothing_heavy():
    probe = f"import sys, scorehouse; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    assert run_python(probe).strip() == "[]"


def test_the_api_is_an_attribute_of_the_package():
    probe = "import scorehouse; print(scorehouse.rank.__module__, scorehouse.Warehouse.__name__, 'rank' in dir(scorehouse))"
    assert run_python(probe).split() == ["scorehouse.api", "Warehouse", "True"]


def test_an_unknown_attribute_is_an_attribute_error():
    try:
        scorehouse.no_such_name  # noqa: B018
    except AttributeError as error:
        assert "no_such_name" in str(error)
    else:
        raise AssertionError("scorehouse.no_such_name did not raise")


def test_no_stage_is_importable_under_a_second_top_level_name():
    """After importing every module of the package, the stage folders are only known as scorehouse.<stage>."""
    probe = f"""
import importlib, pkgutil, sys
import scorehouse
failed = []
for info in pkgutil.walk_packages(scorehouse.__path__, "scorehouse."):
    if info.name.endswith("__main__"):
        continue
    importlib.import_module(info.name)
for stage in {STAGES!r}:
    importlib.import_module("scorehouse." + stage)
    for sub in pkgutil.walk_packages(importlib.import_module("scorehouse." + stage).__path__, "scorehouse." + stage + "."):
        importlib.import_module(sub.name)
bare = sorted(m for m in sys.modules if m.split(".")[0] in {STAGES!r})
print(len([m for m in sys.modules if m.startswith("scorehouse.")]), bare)
"""
    count, bare = run_python(probe).strip().split(" ", 1)
    assert int(count) > 100  # every module was imported
    assert bare == "[]"


def test_this_test_process_has_no_bare_stage_module():
    """The suite imports the stages as scorehouse.<stage> too (tests.<stage> are the tests' own packages)."""
    for stage in STAGES:
        importlib.import_module(f"scorehouse.{stage}")
    assert not [m for m in sys.modules if m.split(".")[0] in STAGES]
    assert pkgutil.resolve_name("scorehouse.flows.rank").__name__ == "scorehouse.flows.rank"
