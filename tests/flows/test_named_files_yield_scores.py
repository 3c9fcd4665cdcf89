"""Nothing named on the command line is silently ignored (issue 34): a file given by name that yields no scores
fails the run (exit 1) with a line saying why and what to pass; inside a folder the same file is skipped."""

from __future__ import annotations

import json

from scorehouse.cli import main

README = """# Our leaderboard

Thanks for visiting.
"""


def test_a_readme_or_a_known_non_score_file_given_by_name_fails_the_run(tmp_path, capsys):
    home = str(tmp_path / "home")
    (tmp_path / "README.md").write_text(README, encoding="utf-8")
    (tmp_path / "id.txt").write_text("team-a\nteam-b\n", encoding="utf-8")
    for name in ("README.md", "id.txt"):
        assert main(["--home", home, "ingest", str(tmp_path / name)]) == 1
        said = capsys.readouterr()
        line = next(x for x in said.err.splitlines() if x.startswith("rejected:"))
        assert str(tmp_path / name) in line and "--format" in line
        assert "0 file(s) loaded" in said.out and "1 rejected" in said.out


def test_the_same_files_in_a_folder_are_skipped_and_the_run_succeeds(tmp_path, capsys):
    home = str(tmp_path / "home")
    folder = tmp_path / "dump"
    folder.mkdir()
    (folder / "README.md").write_text(README, encoding="utf-8")
    (folder / "id.txt").write_text("team-a\nteam-b\n", encoding="utf-8")
    (folder / "battles.json").write_text(json.dumps([{"model_a": "a", "model_b": "b", "winner": "model_a"}]),
                                         encoding="utf-8")
    assert main(["--home", home, "ingest", str(folder), "--benchmark", "arena-x"]) == 0
    said = capsys.readouterr()
    assert "1 file(s) loaded" in said.out and "1 skipped (no scores)" in said.out and "0 rejected" in said.out
    assert "skipped 1 documentation file(s)" in said.out
