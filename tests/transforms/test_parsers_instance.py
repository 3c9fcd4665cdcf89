"""Instance-level long / wide CSV and pickle parsers on the real files.

References: the row counts of ``shared/data/README.md``; cell values read
with head / Python's csv module (an independent CSV reader); pandas for the
pickles; the README's statement that the pairformance example equals the
BT-eval TopicalChat MoverScore frame.
"""

from __future__ import annotations

import csv
import io
import pickle
from pathlib import Path

import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.transforms.conftest import BUNDLED
from tests.transforms.strategies_instance import rows_or_none, cells, mangled, names
from scorehouse.transforms.parsers import detect_format, parse_file
from scorehouse.transforms.parsers.base import ParseError
from scorehouse.transforms.parsers.instance_long import TEXT_COLUMN
from scorehouse.transforms.parsers.instance_long import parse as parse_long
from scorehouse.transforms.parsers.instance_wide import parse as parse_wide
from scorehouse.transforms.parsers.pickles import parse as parse_pickle

MDR = BUNDLED / "MissingDataRanking"
RNS = BUNDLED / "RankingNLPSystems"

# README section 2: score counts of the MissingDataRanking instance-level files.
MDR_FILES = {
    "final_df/Dialogue/DIALOGUE_pc_data.csv": ("usr-pc-mdr", "pc", 4, 60, 38, 9120),
    "final_df/Dialogue/DIALOGUE_tc_data.csv": ("usr-tc-mdr", "tc", 5, 60, 38, 11400),
    "final_df/Captioning/Flickr_data.csv": ("flickr-mdr", "flickr", 8, 108, 33, 28512),
    "final_df/MT/WMT21/challengeset.en-de.data.csv": ("wmt21-mdr", "en-de:challengeset", 2, 177, 35, 12390),
    "final_df/MT/WMT21/florestest2021.xh-zu.data.csv": ("wmt21-mdr", "xh-zu:florestest2021", 6, 503, 35, 105630),
    "final_df/MT/WMT21/florestest2021.zu-xh.data.csv": ("wmt21-mdr", "zu-xh:florestest2021", 5, 509, 35, 89075),
}
# README section 1: systems (Utterance) x instances (System) and scores.
RNS_FILES = {
    "final_df/DIALOG_pc.csv": ("usr-pc", 4, 60, 19, 4560),
    "final_df/DIALOG_tc.csv": ("usr-tc", 5, 60, 19, 5700),
    "final_df/MLQE.csv": ("mlqe", 7, 1000, 10, 70000),
}


def csv_reference(path: Path, system: str, instance: str) -> set[tuple]:
    """(system, instance, metric, value, start line) of every score cell, read with the csv module."""
    out = set()
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = next(reader)
        start = reader.line_num + 1
        for record in reader:
            row = dict(zip(header, record))
            for column in header[2:]:
                if not TEXT_COLUMN.match(column):
                    out.add((row[system], row[instance], column, row[column] or None, start))
            start = reader.line_num + 1
    return out


@pytest.mark.parametrize("name", sorted(MDR_FILES))
def test_missing_data_ranking_files(name):
    benchmark, task, n_systems, n_instances, n_metrics, n_rows = MDR_FILES[name]
    fmt, parsed = parse_file(MDR / name)
    rows = parsed.rows
    assert fmt.name == "instance-long"
    assert rows.height == n_rows
    assert rows.get_column("benchmark").unique().to_list() == [benchmark]
    assert rows.get_column("task").unique().to_list() == [task]
    assert rows.get_column("system").n_unique() == n_systems
    assert rows.get_column("instance").n_unique() == n_instances
    assert rows.get_column("metric").n_unique() == n_metrics
    assert any("text columns left out" in p for p in parsed.problems)
    assert not any("swapped" in p for p in parsed.problems)
    got = set(rows.select("system", "instance", "metric", "value", "line").rows())
    assert got == csv_reference(MDR / name, "System", "Utterance")


def test_multiline_texts_keep_line_numbers():
    rows = parse_file(MDR / "final_df/Dialogue/DIALOGUE_tc_data.csv")[1].rows
    # csv module: first record starts on line 2; its Bleurt is 1.1066077 and H:Overall 3.333333333333333.
    first = rows.filter(pl.col("system") == "Argmax Decoding", pl.col("instance") == "0")
    assert first.get_column("line").unique().to_list() == [2]
    values = dict(first.select("metric", "value").rows())
    assert values["Bleurt"] == "1.1066077"
    assert values["H:Overall"] == "3.333333333333333"
    # the multi-line contexts push later records far below their row number
    assert rows.get_column("line").max() > 5 * 300


def test_missing_example_keeps_missing_cells():
    parsed = parse_file(MDR / "example_data_cli/DIALOGUE_pc_missing.csv")[1]
    rows = parsed.rows
    # README: 4 systems x 60 instances x 32 metrics, 1,320 NaN; head: KV-MemNN,0 has an empty Bleurt.
    assert rows.height == 4 * 60 * 32
    assert rows.get_column("value").null_count() == 1320
    assert rows.get_column("benchmark").unique().to_list() == ["usr-pc-missing-mdr"]
    kv = rows.filter(pl.col("system") == "KV-MemNN", pl.col("instance") == "0")
    assert dict(kv.select("metric", "value").rows())["Bleurt"] is None
    assert dict(kv.select("metric", "value").rows())["WordInfoLost"] == "1.0"


@pytest.mark.parametrize("name", sorted(RNS_FILES))
def test_swapped_labels_are_detected(name):
    benchmark, n_systems, n_instances, n_metrics, n_rows = RNS_FILES[name]
    parsed = parse_file(RNS / name)[1]
    rows = parsed.rows
    assert any("swapped" in p for p in parsed.problems)
    assert rows.height == n_rows
    assert rows.get_column("benchmark").unique().to_list() == [benchmark]
    assert rows.get_column("system").n_unique() == n_systems
    assert rows.get_column("instance").n_unique() == n_instances
    assert rows.get_column("metric").n_unique() == n_metrics
    expected = {(s, i, m, v, n) for i, s, m, v, n in csv_reference(RNS / name, "System", "Utterance")}
    if benchmark == "mlqe":
        assert sorted(rows.get_column("task").unique()) == ["en-de", "en-zh", "et-en", "ne-en", "ro-en", "ru-en", "si-en"]
        expected = {(f"mt-{s}", i, m, v, n) for s, i, m, v, n in expected}
    assert set(rows.select("system", "instance", "metric", "value", "line").rows()) == expected


def test_csv_and_pickle_of_the_same_annotations_agree():
    """DIALOG_pc.csv (swapped labels) and the Dialogue pickle hold the same metric cells."""
    csv_rows = parse_file(RNS / "final_df/DIALOG_pc.csv")[1].rows
    pickled = parse_file(RNS / "data/human_annotations/Dialogue_dataframe.pickle", trust_pickle=True)[1].rows
    key = ["benchmark", "task", "metric", "instance", "system"]
    joined = csv_rows.join(pickled, on=key)
    assert joined.height == 13 * 60 * 4  # the 13 automatic metrics of the 4 PersonaChat systems
    assert (joined.get_column("value").cast(pl.Float64) == joined.get_column("value_right").cast(pl.Float64)).all()


def test_pairformance_wide_file():
    path = BUNDLED / "pairformance/examples/dialogue_example_df.csv"
    fmt, parsed = parse_file(path)
    rows = parsed.rows
    assert fmt.name == "instance-wide"
    assert rows.height == 60 * 5
    assert rows.select("benchmark", "task", "metric").unique().rows() == [("pairformance-tc", "tc", "MoverScore")]
    # head: line 3 is instance 1; its M1 is 0.5000554852631756
    hit = rows.filter(pl.col("instance") == "1", pl.col("system") == "M1")
    assert hit.select("value", "line").row(0) == ("0.5000554852631756", 3)
    # README: identical to BT-eval Dialogue_dataframe.pickle['Dialogue']['tc']['MoverScore'] (pandas as reference).
    with open(BUNDLED / "BT-eval/Data/Dialogue_dataframe.pickle", "rb") as handle:
        frame = pickle.load(handle)["Dialogue"]["tc"]["MoverScore"]
    for instance, system, value in rows.select("instance", "system", "value").rows():
        # the CSV was written with 16 significant digits: equal up to the last bit
        assert float(value) == pytest.approx(frame.loc[int(instance), system], rel=1e-15)


def test_pickles_need_trust_and_map_keys():
    path = RNS / "data/human_annotations/TAC_pyr_dataframe.pickle"
    assert detect_format(path).needs_trust
    with pytest.raises(ParseError, match="--trust-pickle"):
        parse_file(path)
    rows = parse_file(path, trust_pickle=True)[1].rows
    frames = pd.read_pickle(path)["TAC_pyr"]
    # README: TAC08 48x62, TAC09 44x59, TAC11 44x54.
    assert rows.height == 48 * 62 + 44 * 59 + 44 * 54
    assert sorted(rows.get_column("benchmark").unique()) == ["tac-08", "tac-09", "tac-11"]
    assert rows.get_column("metric").unique().to_list() == ["H:pyr"]
    for year in ("08", "09", "11"):
        got = rows.filter(pl.col("task") == year).select("instance", "system", pl.col("value").cast(pl.Float64))
        expected = frames[year].stack()
        assert got.height == expected.size
        for instance, system, value in got.sample(50, seed=0).rows():
            assert value == expected[(int(instance), system)]


def test_mlqe_pickle_and_bt_eval_copy():
    rows = parse_file(RNS / "data/human_annotations/mlqe-pe_human_dataframe.pickle", trust_pickle=True)[1].rows
    assert rows.height == 1000 * 7
    assert rows.select("benchmark", "metric").unique().rows() == [("mlqe", "H:human")]
    assert set(rows.select("task", "system").unique().rows()) == {
        (p, f"mt-{p}") for p in ("en-de", "en-zh", "ru-en", "ro-en", "et-en", "ne-en", "si-en")
    }
    bt = parse_file(BUNDLED / "BT-eval/Data/Dialogue_dataframe.pickle", trust_pickle=True)[1]
    assert sorted(bt.rows.get_column("benchmark").unique()) == ["usr-pc-bt", "usr-tc-bt"]
    assert bt.rows.get_column("line").null_count() == bt.rows.height


def test_derived_correlations_are_refused():
    with pytest.raises(ParseError, match="correlations derived from the scores"):
        parse_file(RNS / "data/original/TAC_corr_dataframe.pickle", trust_pickle=True)


def test_every_shipped_file_is_detected_and_unrelated_files_are_refused(tmp_path: Path):
    mine = {
        "wmt-scores": sorted(BUNDLED.glob("wmt20-metrics/final-metric-scores/*/*.score.gz")),
        "wmt-da": sorted(BUNDLED.glob("wmt20-metrics/manual-evaluation/DA/*.csv")),
        "instance-long": sorted(MDR.glob("final_df/**/*.csv")) + sorted(RNS.glob("final_df/*.csv"))
        + [MDR / "example_data_cli/DIALOGUE_pc_missing.csv"],
        "instance-wide": [BUNDLED / "pairformance/examples/dialogue_example_df.csv"],
        "pickle-frames": sorted(BUNDLED.glob("**/*.pickle")),
    }
    assert sum(len(paths) for paths in mine.values()) == 37 + 6 + 10 + 1 + 5
    for name, paths in mine.items():
        for path in paths:
            assert detect_format(path).name == name, path
    unrelated = tmp_path / "notes.txt"
    unrelated.write_bytes(b"\x89PNG\r\n\x1a\nnot a score dump")
    with pytest.raises(ParseError, match="notes.txt"):
        parse_file(unrelated)


def test_unknown_long_file_needs_benchmark(tmp_path: Path):
    path = tmp_path / "mine.csv"
    path.write_text("System,Utterance,BLEU\nA,0,1\nB,0,2\n")
    with pytest.raises(ParseError, match="--benchmark"):
        parse_long(path, None)
    rows = parse_long(path, "mybench").rows
    assert rows.select("benchmark", "task", "system", "instance", "value").rows() == [
        ("mybench", "mine", "A", "0", "1"), ("mybench", "mine", "B", "0", "2"),
    ]


# -- mangled input --------------------------------------------------------------------------------

@st.composite
def long_csv(draw: st.DrawFn) -> str:
    metrics = draw(st.lists(names.filter(lambda n: not TEXT_COLUMN.match(n)), min_size=1, max_size=4, unique=True))
    text = draw(st.booleans())
    header = ["System", "Utterance", *metrics] + (["hyp"] if text else [])
    lines = [",".join(header)]
    for _ in range(draw(st.integers(0, 8))):
        row = [draw(names), draw(names), *(draw(cells) for _ in metrics)]
        if text:
            row.append('"a ""quoted"",\nmulti-line text"')
        lines.append(",".join(row))
    return "\n".join(lines) + "\n"


def reference_records(raw: bytes) -> tuple[list[str], int]:
    reader = csv.reader(io.StringIO(raw.decode("utf-8").removeprefix("\ufeff"), newline=""))
    records = list(reader)
    return records[0], len(records) - 1


@settings(max_examples=200, deadline=None)
@given(text=long_csv(), data=st.data())
def test_mangled_long_csv_gives_rows_or_parse_error(tmp_path_factory, text, data):
    """Invariant: rows emitted == data records x score columns (csv module count), or a ParseError."""
    raw = data.draw(mangled(text))
    path = tmp_path_factory.mktemp("long") / "mine.csv"
    path.write_bytes(raw)
    rows = rows_or_none(parse_long, path, "b")
    if rows is None:
        return
    header, records = reference_records(raw)
    scores = [c for c in header[2:] if not TEXT_COLUMN.match(c)]
    assert rows.height == records * len(scores)


@settings(max_examples=150, deadline=None)
@given(width=st.integers(1, 5), values=st.lists(cells, max_size=30), data=st.data())
def test_mangled_wide_csv_gives_rows_or_parse_error(tmp_path_factory, width, values, data):
    """Invariant: rows emitted == data records x system columns, or a ParseError."""
    body = [values[i : i + width] for i in range(0, len(values) - len(values) % width, width)]
    text = ",".join(f"M{i}" for i in range(width)) + "\n" + "".join(",".join(r) + "\n" for r in body)
    raw = data.draw(mangled(text))
    path = tmp_path_factory.mktemp("wide") / "mine.csv"
    path.write_bytes(raw)
    rows = rows_or_none(parse_wide, path, "b")
    if rows is None:
        return
    header, records = reference_records(raw)
    index_column = header[0] in ("", "Unnamed: 0")  # a pandas index: the instance ids, not a system
    assert rows.height == records * (len(header) - index_column)
    if raw == text.encode():
        assert rows.get_column("value").to_list() == [v or None for r in body for v in r]


@settings(max_examples=60, deadline=None)
@given(raw=st.binary(max_size=300))
def test_random_bytes_are_not_a_pickle(tmp_path_factory, raw):
    path = tmp_path_factory.mktemp("pickle") / "x.pickle"
    path.write_bytes(raw)
    with pytest.raises(ParseError, match="x.pickle"):
        parse_pickle(path, None)
