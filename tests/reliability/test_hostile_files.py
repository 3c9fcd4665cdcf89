"""Hostile files next to good ones (issue 25, part B): each is its own outcome, and the good files land.

A folder and command lines hold good files (a GLUE leaderboard of the bundled data, a user's table, a
file of battles) beside hostile ones: empty, binary bytes named like tables, UTF-16, corrupt and
truncated gzip, a 200,000-character system name, unbalanced quotes, a header alone, NUL bytes,
20,000 columns, Latin-1 bytes in UTF-8, symbolic link loops (of files and of folders), a dangling
link, a link to a secret outside the folder, a folder named like a file, an unreadable file, and
seeded byte mutations of the good files.  The expected outcome of every file comes from the rules
(README "Formats", docs/formats.md), and the row counts from Python's csv and json modules, never
from scorehouse; the warehouse's own tables must say rows in = landed + quarantined for every load.
"""

import csv
import gzip
import hashlib
import io
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.raw_layout import archived_bytes, committed, packs
from tests.reliability.rankings import SUPERGLUE
from tests.reliability.test_failed_ingest_leaves_nothing import named

REPO = Path(__file__).resolve().parents[2]
GLUE = SUPERGLUE.with_name("leaderboards - GLUE.csv")
GLUE_PAIRED = ("MRPC", "STS-B", "QQP")  # GLUE's tasks published with two metrics (F1/acc, Pearson/Spearman)
GLUE_NOT_SCORES = 4  # Rank, Name, Model, URL
SECRET = "hunter2-SECRET-TOKEN"
SEED = 25
TABLE = ("--system", "model", "--task", "task", "--score", "score")


def table_text(rng: random.Random, rows: int, prefix: str = "m") -> str:
    """A user's table of ``rows`` scores, each of its own (system, task): systems named ``prefix`` and a number."""
    lines = ["model,task,score"] + [f"{prefix}{i // 5},t{i % 5},{rng.random():.4f}" for i in range(rows)]
    return "\n".join(lines) + "\n"


def battles_text(rng: random.Random, rows: int) -> str:
    models = [f"model-{i}" for i in range(5)]
    battles = []
    for _ in range(rows):
        a, b = rng.sample(models, 2)
        battles.append(json.dumps({"model_a": a, "model_b": b, "winner": rng.choice(["model_a", "model_b", "tie"])}))
    return "\n".join(battles) + "\n"


def mutated(data: bytes, rng: random.Random, count: int, alphabet: bytes) -> bytes:
    """``data`` with ``count`` letters or digits after its first line replaced by bytes of ``alphabet``: the
    separators, quotes and line ends stay, so the file keeps its records and columns."""
    start = data.index(b"\n") + 1
    places = [i for i in range(start, len(data)) if data[i:i + 1].isalnum()]  # ASCII only: UTF-8 stays whole
    out = bytearray(data)
    for place in rng.sample(places, count):
        out[place] = rng.choice(alphabet)
    return bytes(out)


def gzip_of(text: str) -> bytes:
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as handle:
        handle.write(text.encode())
    return buffer.getvalue()


def write_hostile(folder: Path, rng: random.Random) -> dict[str, tuple[str, str]]:
    """The hostile files every run holds, each with its outcomes under the rules: given by name with the columns
    of a table, and found in a folder, where a text file no format recognises is skipped."""
    table = table_text(rng, 30)
    files = {
        "empty.csv": (b"", ("rejected", "rejected")),
        "binary.csv": (b"\x89PNG\r\n\x1a\n\x00\x9c" + rng.randbytes(400), ("rejected", "rejected")),
        "utf16.csv": (table.encode("utf-16"), ("rejected", "rejected")),
        "corrupt.csv.gz": (b"\x1f\x8b\x08\x00" + rng.randbytes(200), ("rejected", "rejected")),
        "truncated.csv.gz": (gzip_of(table)[:60], ("rejected", "rejected")),
        "long-quoted.csv": (f'model,task,score\n"{"x" * 200_000}",t1,0.5\nm1,t1,0.25\n'.encode(), ("rejected", "skipped")),
        "long-plain.csv": (f"model,task,score\n{'y' * 200_000},t1,0.5\nm1,t1,0.25\n".encode(), ("rejected", "skipped")),
        "unbalanced.csv": (b'model,task,score\nm1,"t1,0.5\nm2,t2,0.25\n', ("rejected", "skipped")),
        "header-only.csv": (b"model,task,score\n", ("loaded", "skipped")),
        "nul.csv": (table.replace("t1", "t\x001").encode(), ("rejected", "rejected")),
        "mixed.csv": (table.encode() + "caf\u00e9,t1,0.5\n".encode("latin-1"), ("rejected", "rejected")),
    }
    for name, (data, _) in files.items():
        (folder / name).write_bytes(data)
    (folder / "dir.csv").mkdir()
    (folder / "loop-a.csv").symlink_to("loop-b.csv")
    (folder / "loop-b.csv").symlink_to("loop-a.csv")
    (folder / "dangling.csv").symlink_to("nowhere.csv")
    links = dict.fromkeys(("loop-a.csv", "loop-b.csv", "dangling.csv"), ("skipped", "skipped"))
    return {name: outcomes for name, (_, outcomes) in files.items()} | links


def scorehouse(home: Path, temporary: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "TMPDIR": str(temporary)}
    return subprocess.run([sys.executable, "-m", "scorehouse", "--home", str(home), *args], capture_output=True,
                          text=True, timeout=300, cwd=REPO, env=env)


def outcome_of(done: subprocess.CompletedProcess, path: Path) -> str | None:
    """The status the ingest report printed for ``path`` (its lines: ``STATUS: PATH: why`` or ``STATUS: PATH (n rows)``)."""
    found = [m.group(1) for m in re.finditer(rf"^(loaded|unchanged|skipped|rejected): {re.escape(str(path))}(?=: |, line | \()",
                                             done.stdout + done.stderr, re.MULTILINE)]
    assert len(found) <= 1, f"{path} reported {len(found)} times"
    return found[0] if found else None


def query(home: Path, temporary: Path, sql: str) -> list[list[str]]:
    done = scorehouse(home, temporary, "sql", sql, "--format", "csv")
    assert done.returncode == 0, done.stderr
    return list(csv.reader(io.StringIO(done.stdout)))[1:]


def check_every_load(home: Path, temporary: Path, expected_rows: dict[str, int]) -> None:
    """Every load's rows are in its scores (``scores_history``: a later load may supersede some in ``scores``) or
    battles plus its quarantine; the good files' loads hold the rows counted here by the csv and json modules,
    and each serves rows in the current views."""
    loads = query(home, temporary, "SELECT file_name, load_id, rows_in, rows_landed, rows_quarantined FROM loads")
    landed = dict(query(home, temporary, "SELECT load_id, count(*) FROM (SELECT load_id FROM scores_history "
                                         "UNION ALL SELECT load_id FROM battles) GROUP BY 1"))
    held = dict(query(home, temporary, "SELECT load_id, count(*) FROM (SELECT load_id FROM quarantine UNION ALL "
                                       "SELECT load_id FROM battles_quarantine) GROUP BY 1"))
    current = {load_id for [load_id] in query(home, temporary, "SELECT DISTINCT load_id FROM scores UNION "
                                                               "SELECT DISTINCT load_id FROM battles")}
    by_file = {}
    for file, load_id, rows_in, rows_landed, rows_quarantined in loads:
        assert int(landed.get(load_id, 0)) == int(rows_landed), file
        assert int(held.get(load_id, 0)) == int(rows_quarantined), file
        assert int(rows_in) == int(rows_landed) + int(rows_quarantined), file
        by_file[file] = (int(rows_in), load_id in current)
    for file, rows in expected_rows.items():
        assert by_file.get(file) == (rows, rows > 0), f"{file}: {by_file.get(file)} (rows in, served), counted {rows}"


def check_clean(done: subprocess.CompletedProcess, home: Path, temporary: Path) -> None:
    """No traceback, no secret, nothing left in the temporary folder, and only whole archived bytes in raw/."""
    output = done.stdout + done.stderr
    assert "Traceback" not in output
    assert SECRET not in output
    assert not list(temporary.iterdir())
    assert not [p for p in home.rglob("*") if ".tmp" in p.name]
    assert {p.stem for p in packs(home)} <= committed(home)  # no pack of a batch that did not commit
    held = archived_bytes(home)  # files of their own and the packs' rows
    for sha, data in held.items():
        assert hashlib.sha256(data).hexdigest() == sha, sha
    assert named(home) <= set(held)  # every load's and rejection's bytes are kept


def glue_rows(path: Path) -> int:
    records = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    return (len(records) - 1) * (len(records[0]) - GLUE_NOT_SCORES + len(GLUE_PAIRED))


def table_rows(path: Path) -> int:
    return len(list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))) - 1


def battle_rows(path: Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path, Path]:
    """The home, a private temporary folder, and a folder outside the inputs holding a secret."""
    temporary, outside = tmp_path / "tmp", tmp_path / "outside"
    temporary.mkdir()
    outside.mkdir()
    (outside / "secret.csv").write_text(f"{SECRET}\n{SECRET},1\n")
    return tmp_path / "home", temporary, outside


def test_a_folder_of_hostile_files_lands_its_good_files_and_reports_every_other(tmp_path: Path, places) -> None:
    home, temporary, outside = places
    rng = random.Random(SEED)
    folder = tmp_path / "folder"
    folder.mkdir()
    hostile = write_hostile(folder, rng)
    glue = folder / GLUE.name
    glue.write_bytes(GLUE.read_bytes())
    (folder / "battles.jsonl").write_text(battles_text(rng, 60))
    (folder / "mutated-battles.jsonl").write_bytes(mutated(battles_text(rng, 40).encode(), rng, 6, b"abqz0123456789"))
    (folder / "results.csv").write_text(table_text(rng, 40))  # read only by naming its columns
    long_glue = GLUE.read_text(encoding="utf-8").replace("StructBERT + CLEVER", "z" * 200_000)
    (folder / "long-name-glue.csv").write_text(long_glue)
    (folder / "mutated-glue.csv").write_bytes(mutated(GLUE.read_bytes(), rng, 12, b"abqz0123456789"))
    (folder / "binary-glue.csv").write_bytes(mutated(GLUE.read_bytes(), rng, 3, b"\xff\x00"))
    for suffix in (".json", ".jsonl"):
        (folder / f"binary{suffix}").write_bytes(b"\xff\xfe" + rng.randbytes(300))
    (folder / "link-to-secret.csv").symlink_to(outside / "secret.csv")
    (folder / "sub").mkdir()
    (folder / "sub" / "up").symlink_to("..")  # a folder cycle through a link
    (folder / "sub" / "battles-too.jsonl").write_text(battles_text(rng, 25))

    done = scorehouse(home, temporary, "ingest", str(folder), "--benchmark", "fuzz")
    check_clean(done, home, temporary)
    assert done.returncode == 1, done.stderr  # hostile files are rejected ...
    expected = {name: in_folder for name, (_, in_folder) in hostile.items()}
    expected |= {GLUE.name: "loaded", "battles.jsonl": "loaded", "sub/battles-too.jsonl": "loaded",
                 "mutated-glue.csv": "loaded", "mutated-battles.jsonl": "loaded", "results.csv": "skipped", "binary-glue.csv": "rejected",
                 "long-name-glue.csv": "rejected", "binary.json": "rejected", "binary.jsonl": "rejected",
                 "link-to-secret.csv": "skipped", "sub/up": "skipped"}
    for name, status in expected.items():
        assert outcome_of(done, folder / name) == status, (name, done.stdout, done.stderr)
    assert re.search(rf"^skipped: {re.escape(str(folder / 'loop-a.csv'))}: a symbolic link loop", done.stderr + done.stdout,
                     re.MULTILINE)
    assert "131,072 characters" in done.stderr  # the field limit is named, not mistaken for a quote
    # the header and 30 rows, then the Latin-1 row; the first "t1" is on the second row
    assert f"{folder / 'mixed.csv'}: unrecognised format (byte 0xe9 on line 32 is not UTF-8 text" in done.stderr
    assert f"{folder / 'nul.csv'}: unrecognised format (a NUL byte on line 3:" in done.stderr
    # ... and the good ones land, every row of them landed or quarantined
    check_every_load(home, temporary, {str(glue): glue_rows(glue), str(folder / "battles.jsonl"): 60,
                                       str(folder / "sub" / "battles-too.jsonl"): 25,
                                       str(folder / "mutated-battles.jsonl"): battle_rows(folder / "mutated-battles.jsonl"),
                                       str(folder / "mutated-glue.csv"): glue_rows(folder / "mutated-glue.csv")})


def test_hostile_files_named_beside_a_table_are_each_rejected_and_the_table_lands(tmp_path: Path, places) -> None:
    home, temporary, _ = places
    rng = random.Random(SEED + 1)
    folder = tmp_path / "given"
    folder.mkdir()
    hostile = write_hostile(folder, rng)
    good = folder / "results.csv"
    good.write_text(table_text(rng, 50))
    wide = folder / "wide.csv"  # 20,000 columns, the three named among them
    names = ["model", "task", "score"] + [f"c{i}" for i in range(20_000)]
    wide.write_text(",".join(names) + "\n" + "".join(f"w{r},t1,{r / 10}," + ",".join(["1"] * 20_000) + "\n" for r in range(3)))
    noisy = folder / "mutated.csv"
    noisy.write_bytes(mutated(table_text(rng, 50, prefix="n").encode(), rng, 20, b"abqz0123456789"))
    given = [good, wide, noisy, *(folder / name for name in hostile), folder / "dir.csv"]

    done = scorehouse(home, temporary, "ingest", *map(str, given), "--benchmark", "mine", *TABLE)
    check_clean(done, home, temporary)
    assert done.returncode == 1, done.stderr
    for name, (status, _) in hostile.items():
        assert outcome_of(done, folder / name) == status, (name, done.stdout, done.stderr)
    for path in (good, wide, noisy):
        assert outcome_of(done, path) == "loaded", (path, done.stderr)
    assert re.search(r"long-quoted\.csv, line 2: field longer than 131,072 characters", done.stderr)
    assert re.search(r"long-plain\.csv, line 2: field longer than 131,072 characters", done.stderr)
    check_every_load(home, temporary, {str(good): table_rows(good), str(wide): 3, str(noisy): table_rows(noisy),
                                       str(folder / "header-only.csv"): 0})


def test_a_link_to_a_secret_given_by_name_never_shows_its_content(tmp_path: Path, places) -> None:
    home, temporary, outside = places
    link = tmp_path / "scores.csv"
    link.symlink_to(outside / "secret.csv")
    as_table = scorehouse(home, temporary, "ingest", str(link), "--benchmark", "mine", *TABLE)
    check_clean(as_table, home, temporary)
    assert as_table.returncode == 2 and "scores.csv" in as_table.stderr  # the options do not fit the file
    detected = scorehouse(home, temporary, "ingest", str(link))
    check_clean(detected, home, temporary)
    assert detected.returncode == 1 and outcome_of(detected, link) == "rejected"


def test_a_file_that_cannot_be_read_is_rejected_by_name(tmp_path: Path, places) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads a file without read permission: the refusal cannot happen")
    home, temporary, _ = places
    locked = tmp_path / "locked.csv"
    locked.write_text(GLUE.read_text(encoding="utf-8"))
    locked.chmod(0)
    done = scorehouse(home, temporary, "ingest", str(locked), str(GLUE))
    check_clean(done, home, temporary)
    assert done.returncode == 1 and outcome_of(done, locked) == "rejected" and outcome_of(done, GLUE) == "loaded"


SECRET_SHAPES = {  # a secret as the text of every kind of file a format might be forced on
    "notes.csv": f"{SECRET}\n{SECRET},{SECRET}\n\"{SECRET}\n",
    "notes.tsv": f"{SECRET}\t{SECRET}\n{SECRET}\n",
    "notes.jsonl": f'{{"{SECRET}": "{SECRET}"}}\n{SECRET}\n',
    "notes.json": f'{{"{SECRET}": [{{"{SECRET}": "{SECRET}"}}], "x": {SECRET}}}',
    "notes.txt": f"{SECRET} {SECRET}\n{SECRET}\n",
}


@pytest.mark.parametrize("name", list(SECRET_SHAPES))
def test_no_format_forced_on_a_file_shows_its_content_in_an_error(tmp_path: Path, name: str) -> None:
    from scorehouse.transforms.parsers import FORMATS, parse_file

    path = tmp_path / name
    path.write_text(SECRET_SHAPES[name])
    for fmt in sorted(FORMATS):
        try:
            parse_file(path, format=fmt, benchmark="b")
        except Exception as error:  # noqa: BLE001 - whatever a format raises must not show the content
            assert SECRET not in str(error), (fmt, str(error))
    with pytest.raises(Exception) as refused:  # noqa: PT011 - the refusal of a user's table read by its columns
        FORMATS["user-table"].read(path, "b", {"system": "model", "score": "score"})
    assert SECRET not in str(refused.value)


def test_a_folder_inside_an_inbox_is_reported_and_left_where_it_is(tmp_path: Path, places) -> None:
    home, temporary, _ = places
    inbox = tmp_path / "inbox"
    (inbox / "later").mkdir(parents=True)
    (inbox / "processed").mkdir()
    (inbox / ".cache").mkdir()
    (inbox / "notes.txt").write_text("a note beside the dumps\n")  # a file of the inbox itself: read, and moved out
    waiting = inbox / "later" / SUPERGLUE.name
    waiting.write_bytes(SUPERGLUE.read_bytes())
    for run in range(2):  # reported by every refresh while it is there, new files or not
        done = scorehouse(home, temporary, "refresh", "--inbox", str(inbox))
        check_clean(done, home, temporary)
        assert done.returncode == 0, done.stderr
        assert f"skipped: {inbox / 'later'}: a folder inside the inbox" in done.stderr
        assert "processed:" not in done.stderr and ".cache" not in done.stderr
        assert waiting.read_bytes() == SUPERGLUE.read_bytes()
    assert (inbox / "processed" / "notes.txt").is_file()
