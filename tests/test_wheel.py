"""The wheel: built from the tracked files alone, installed into a clean venv, used from another folder.

Built from a copy of ``git ls-files`` (so a stale ``build/`` or an untracked file cannot leak into it),
installed with its dependencies from ``requirements.lock`` (pip's cache makes this quick), and run
where the repository is out of reach: ``scorehouse.rank`` as the README shows it, and
``scorehouse run``, which must find the bundled dumps inside the installed package.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

RANK_EXAMPLE = """
import json, scorehouse, pandas as pd
ranking = scorehouse.rank(pd.DataFrame({"system": ["a", "b", "c"], "t1": [0.9, 0.5, 0.1], "t2": [0.2, 0.7, 0.1]}),
                          method="borda")
print(json.dumps({"file": scorehouse.__file__, "ranking": ranking.to_dict("list")}))
"""

DISTRIBUTION = """
import json
import os
from importlib.metadata import distribution
dist = distribution("scorehouse")
print(json.dumps({"top_level": dist.read_text("top_level.txt"), "files": [str(f) for f in dist.files]}))
"""


def run(args: list, cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess:
    """Run ``args`` in ``cwd`` with no PYTHONPATH, so nothing but the venv's site-packages is importable."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{args} exited {result.returncode}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A clean venv with the wheel built from the tracked files; its path."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in filter(None, tracked.decode().split("\0")):
        if (REPO / name).is_file():  # a file deleted in the work tree but not yet in the index is left out
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", root / "dist", source], root)
    venv = root / "venv"
    run([sys.executable, "-m", "venv", venv], root)
    python = venv / "bin" / "python"
    run([python, "-m", "pip", "install", "--quiet", "-r", REPO / "requirements.lock"], root)
    (wheel,) = (root / "dist").glob("scorehouse-*.whl")
    run([python, "-m", "pip", "install", "--quiet", "--no-deps", wheel], root)
    return venv


@pytest.mark.slow
def test_the_distribution_installs_one_top_level_name(installed):
    listing = json.loads(run([installed / "bin" / "python", "-c", DISTRIBUTION], installed.parent).stdout)
    assert listing["top_level"].split() == ["scorehouse"]
    # Everything else the wheel installs is its metadata and its console script.
    tops = {Path(f).parts[0] for f in listing["files"] if not f.startswith("..")}
    assert tops == {"scorehouse", "scorehouse-0.1.0.dist-info"}
    assert any(f.startswith("scorehouse/data/bundled/") for f in listing["files"])


@pytest.mark.slow
def test_python_m_scorehouse_is_the_command(installed, tmp_path):
    result = run([installed / "bin" / "python", "-m", "scorehouse", "--help"], tmp_path)
    assert "run" in result.stdout and "ingest" in result.stdout


@pytest.mark.slow
def test_rank_runs_from_another_folder_as_documented(installed, tmp_path):
    result = json.loads(run([installed / "bin" / "python", "-c", RANK_EXAMPLE], tmp_path).stdout)
    assert Path(result["file"]).is_relative_to(installed)  # the installed package, not the repository
    # Borda by hand: t1 a > b > c, t2 b > a > c, so a and b get 2 + 1 points, c none.
    assert result["ranking"] == {"system": ["a", "b", "c"], "rank": [1, 1, 3], "score": [3.0, 3.0, 0.0],
                                 "tied": [True, True, False]}


@pytest.mark.slow
def test_scorehouse_run_finds_the_bundled_data_in_the_installed_package(installed, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    home = tmp_path / "home"
    result = run([installed / "bin" / "scorehouse", "run", "--home", home], elsewhere, timeout=1800)
    report = home / "report.html"
    assert report.is_file() and report.stat().st_size > 0, result.stdout[-2000:]
    # Every bundled benchmark of the run landed: the ranked ones are in the report.
    assert "glue" in report.read_text(encoding="utf-8").lower()
