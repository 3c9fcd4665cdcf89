"""Files that take a name from their folder (COCO team folders) are separate sources.

Every COCO team folder holds a ``scores.txt``, and two teams' files can be
byte-identical (mRNN_share.JMao and junhua.mao submitted the same val2014
results): the system is the folder, so neither the file name nor the bytes
identify the load.  Reference: the bundled folders' contents (4 teams x 14
scores.txt lines, 3 val2014 files of 7 metrics; MSR_Captivator's val2014 is
all zeros and refused).
"""

import shutil
from pathlib import Path

from scorehouse.flows.ingest import ingest_flow
from tests.warehouse.conftest import BUNDLED
from scorehouse.warehouse.catalog import connect, query_frame
from scorehouse.warehouse.storage import Warehouse

COCO = BUNDLED / "MissingDataRanking/data_generation/data/Captioning/coco_captioning_challenge"


def scores(home: Path):
    with connect(Warehouse(home)) as con:
        return query_frame(con, "SELECT task, system, count(*) AS n FROM scores GROUP BY ALL ORDER BY ALL")


def test_every_team_folder_is_its_own_source(home):
    report = ingest_flow([str(COCO)], home=str(home))
    status = [f.status for f in report.files]
    # metadata x4, id.txt, 8 test-split eval JSONs (loaded from scores.txt), 1 all-zero val2014 eval:
    # recognised, holding no scores to load, so skipped with their reason rather than rejected
    assert status.count("loaded") == 4 + 3 and status.count("skipped") == 4 + 1 + 8 + 1
    assert status.count("rejected") == 0 and report.ok
    found = scores(home)
    assert found.filter(task="test-c5")["system"].to_list() == ["MSR_Captivator", "OriolVinyals", "human", "karpathy"]
    assert found.filter(task="val2014")["system"].to_list() == ["OriolVinyals", "human:rand", "karpathy:LSTM"]
    assert found["n"].unique().to_list() == [7]


def test_identical_bytes_in_two_folders_are_two_loads(home, tmp_path):
    for team in ("teamA", "teamB"):
        shutil.copytree(COCO / "OriolVinyals", tmp_path / "coco" / team)
    first = ingest_flow([str(tmp_path / "coco")], home=str(home))
    assert sorted(f.status for f in first.files if f.path.endswith(("scores.txt", "val2014_googlstm_eval.json"))) == ["loaded"] * 4
    assert scores(home).filter(task="test-c40")["system"].to_list() == ["teamA", "teamB"]
    again = ingest_flow([str(tmp_path / "coco")], home=str(home))
    assert {f.status for f in again.files} == {"unchanged", "skipped"}
