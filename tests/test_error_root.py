"""Every exception class the project defines derives from the one root, ``ScorehouseError``, and says whether a
retry can help (``retryable``) and the exit code: no named error escapes the root (``RunsError`` once did)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from scorehouse.aggregators.errors import ScorehouseError


# The stage folders are installed as subpackages from folders of their own, so each is walked from its own path.
PACKAGES = ("scorehouse", "scorehouse.flows", "scorehouse.warehouse", "scorehouse.transforms",
            "scorehouse.aggregators", "scorehouse.reports")


def project_modules() -> list[str]:
    names = []
    for package in PACKAGES:
        path = importlib.import_module(package).__path__
        names += [m.name for m in pkgutil.walk_packages(path, f"{package}.") if not m.name.endswith("__main__")]
    return names


def project_exceptions() -> list[type[BaseException]]:
    found = {}
    for name in project_modules():
        loaded = importlib.import_module(name)
        for _, value in inspect.getmembers(loaded, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__.startswith("scorehouse."):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return list(found.values())


def test_every_exception_of_the_project_derives_from_the_root():
    exceptions = project_exceptions()
    assert len(exceptions) > 40  # the walk reached the stage folders, not only the front package
    outside = sorted(f"{e.__module__}.{e.__qualname__}" for e in exceptions if not issubclass(e, ScorehouseError))
    assert outside == []
    assert all(isinstance(e.retryable, bool) and e.exit_code in (1, 2) for e in exceptions)
