"""Progress on stderr: one line per finished step when not on a terminal, nothing when disabled, stdout untouched."""

from scorehouse.flows.progress import progress


def test_piped_progress_is_one_line_per_finished_step_on_stderr(capsys):
    with progress("ingest", 3, enabled=True) as done:
        for name in ("a.csv", "b.csv", "c.csv"):
            done(name)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == ["ingest: 1/3 a.csv", "ingest: 2/3 b.csv", "ingest: 3/3 c.csv"]


def test_disabled_progress_prints_nothing(capsys):
    with progress("rank", 2, enabled=False) as done:
        done("one")
        done("two")
    assert capsys.readouterr() == ("", "")

