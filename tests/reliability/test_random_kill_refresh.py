"""A refresh killed at a random point, then run once more, serves what an uninterrupted refresh serves (issue 25, case 1).

The refresh is SIGKILLed just before or just after one of its renames (every commit and every
move of an inbox file, :mod:`tests.reliability.killer`), chosen at random among all of them.
Before, a kill after the load's commit or the file's move left the old rankings served for good
(5 kills in 8).  ``SCOREHOUSE_KILL_TRIALS`` sets how many kill points a run tries (default 2: each
costs two refreshes); ``SCOREHOUSE_KILL_SEED`` replays a run's choice (it is printed on failure).
"""

import os
import random
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from scorehouse.cli import main

from tests.reliability.rankings import SUPERGLUE, served_rankings

KILLER = Path(__file__).with_name("killer.py")
REPO = Path(__file__).resolve().parents[2]
SYSTEMS = 6  # the leaderboard's first six systems: small enough to rank in a moment


def leaderboard(folder: Path, corrected: bool) -> Path:
    """SuperGLUE's first systems, the winner's BoolQ cut to 7.01 when ``corrected`` (same file name: same source)."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = SUPERGLUE.read_text(encoding="utf-8").splitlines(keepends=True)[: SYSTEMS + 1]
    if corrected:
        cells = lines[1].split(",")
        cells[5] = "7.01"
        lines[1] = ",".join(cells)
    target = folder / SUPERGLUE.name
    target.write_text("".join(lines), encoding="utf-8")
    return target


def killed_refresh(home: Path, inbox: Path, kill_at: int, when: str) -> tuple[int, str]:
    """Run the refresh under the killer; its exit code and stderr.

    In a session of its own, with its output in files: a killed command leaves its children
    (Prefect's temporary server) holding pipes open, so they are ended with the session.
    """
    err = home.parent / f"stderr-{kill_at}-{when}.txt"
    with open(err, "w") as stderr:
        process = subprocess.Popen([sys.executable, str(KILLER), str(kill_at), when, "--home", str(home), "refresh",
                                    "--inbox", str(inbox)], stdout=subprocess.DEVNULL, stderr=stderr, cwd=REPO,
                                   env={**os.environ, "SCOREHOUSE_KILL_UNDER": str(home.parent)}, start_new_session=True)
        try:
            code = process.wait(timeout=600)
        finally:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    return code, err.read_text()


@pytest.fixture(scope="module")
def ranked_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with the original leaderboard ingested and ranked."""
    home = tmp_path_factory.mktemp("kill") / "home"
    original = leaderboard(home.parent / "original", corrected=False)
    assert main(["--home", str(home), "ingest", str(original)]) == 0
    assert main(["--home", str(home), "rank"]) == 0
    return home


def trial(ranked_home: Path, folder: Path) -> tuple[Path, Path]:
    home, inbox = folder / "home", folder / "inbox"
    shutil.copytree(ranked_home, home)
    leaderboard(inbox, corrected=True)
    return home, inbox


@pytest.mark.slow
def test_a_refresh_killed_anywhere_then_run_again_serves_the_uninterrupted_rankings(ranked_home: Path, tmp_path: Path) -> None:
    home, inbox = trial(ranked_home, tmp_path / "uninterrupted")
    code, stderr = killed_refresh(home, inbox, 0, "before")  # kills nothing: the reference, and the number of renames
    assert code == 0, stderr
    renames = int(stderr.strip().splitlines()[-1].removeprefix("renames="))
    expected = served_rankings(home)
    assert "ERNIE 3.0" not in expected.filter(method="mean", rank=1).get_column("system").to_list()

    seed = int(os.environ.get("SCOREHOUSE_KILL_SEED", random.randrange(1 << 30)))
    points = random.Random(seed).sample([(k, w) for k in range(1, renames + 1) for w in ("before", "after")],
                                        int(os.environ.get("SCOREHOUSE_KILL_TRIALS", "2")))
    for kill_at, when in points:
        replay = f"(SCOREHOUSE_KILL_SEED={seed}: killed {when} rename {kill_at} of {renames})"
        home, inbox = trial(ranked_home, tmp_path / f"killed-{kill_at}-{when}")
        code, stderr = killed_refresh(home, inbox, kill_at, when)
        assert code == -signal.SIGKILL, f"{replay}: {stderr[-2000:]}"
        again = subprocess.run([sys.executable, "-m", "scorehouse", "--home", str(home), "refresh", "--inbox",
                                str(inbox)], capture_output=True, text=True, timeout=600, cwd=REPO)
        assert again.returncode == 0, f"{replay}: {again.stderr[-2000:]}"
        assert served_rankings(home).equals(expected), replay
        assert not [p for p in inbox.iterdir() if p.is_file() and not p.name.startswith(".")], replay  # it left the inbox
