"""WMT metric-score and DA parsers on the real WMT20 files.

Expected numbers were read from the files with zcat / awk / grep (noted next
to each), not computed with the parsers.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.transforms.conftest import BUNDLED
from tests.transforms.strategies_instance import rows_or_none, mangled, tsv_lines
from scorehouse.transforms.parsers import detect_format, parse_file
from scorehouse.transforms.parsers.base import ParseError
from scorehouse.transforms.parsers.wmt import parse as parse_wmt
from scorehouse.transforms.parsers.wmt_da import parse as parse_da

WMT = BUNDLED / "wmt20-metrics"
SEG = WMT / "final-metric-scores/submissions/BAQ_dyn.seg.score.gz"
DA = WMT / "manual-evaluation/DA"


def cell(rows: pl.DataFrame, **key: str | None) -> pl.DataFrame:
    return rows.filter(*(pl.col(k).is_null() if v is None else pl.col(k) == v for k, v in key.items()))


def test_segment_file_counts_and_values():
    rows = parse_file(SEG)[1].rows
    # zcat | wc -l: 55852 lines; cut -f2 | uniq -c: en-zh 19852, zh-en 36000; 30 systems, 14 in en-zh.
    assert rows.height == 55852
    assert rows.get_column("benchmark").unique().to_list() == ["wmt20"]
    assert sorted(rows.get_column("task").unique()) == ["en-zh", "zh-en"]
    assert rows.get_column("metric").unique().to_list() == ["BAQ_dyn"]
    assert rows.get_column("system").n_unique() == 30
    assert cell(rows, task="en-zh").get_column("system").n_unique() == 14
    # 19852 / 14 and 36000 / 18 segments per system.
    assert cell(rows, task="en-zh").get_column("instance").n_unique() == 1418
    assert cell(rows, task="zh-en").get_column("instance").n_unique() == 2000
    first = rows.row(0, named=True)
    assert first == {
        "benchmark": "wmt20", "task": "en-zh", "metric": "BAQ_dyn", "instance": "1",
        "system": "dong-nmt.768", "value": "0.542923391", "line": 1,
    }
    # awk: the 571st and 2000th zh-en rows of WeChat_AI.1525 are lines 50423 and 51852.
    hit = cell(rows, task="zh-en", system="WeChat_AI.1525", instance="571")
    assert hit.select("value", "line").row(0) == ("0.65158534", 50423)
    hit = cell(rows, task="zh-en", system="WeChat_AI.1525", instance="2000")
    assert hit.select("value", "line").row(0) == ("0.810373187", 51852)


def test_system_files_share_task_and_metric_with_segments():
    seg = parse_file(SEG)[1].rows
    sys = parse_file(WMT / "final-metric-scores/submissions/BAQ_dyn.sys.score.gz")[1].rows
    assert sys.get_column("instance").null_count() == sys.height
    assert set(sys.select("task", "metric").unique().rows()) == set(seg.select("task", "metric").unique().rows())
    # grep -n WeChat: line 30, 0.6789913392559995
    assert cell(sys, system="WeChat_AI.1525").select("value", "line").row(0) == ("0.6789913392559995", 30)


def test_alternative_references_are_separate_metrics():
    fmt, parsed = parse_file(WMT / "final-metric-scores/baselines/BLEU.sys.score.gz")
    rows = parsed.rows
    assert fmt.name == "wmt-scores"
    # zcat | wc -l 410; cut -f2 23 pairs; cut -f5 241 systems; references newstest{,B,M,P}2020.
    assert rows.height == 410
    assert rows.get_column("task").n_unique() == 23
    assert rows.get_column("system").n_unique() == 241
    assert sorted(rows.get_column("metric").unique()) == [
        "BLEU", "BLEU@newstestB2020", "BLEU@newstestM2020", "BLEU@newstestP2020",
    ]
    # grep -n: line 29 is BLEU de-en newstest2020 newstestB2020 Online-B.1587 40.8664
    hit = cell(rows, task="de-en", metric="BLEU@newstestB2020", system="Online-B.1587")
    assert hit.select("value", "line").row(0) == ("40.8664", 29)
    # One voter per (task, metric, system): no duplicate across references.
    assert rows.select("task", "metric", "system").is_duplicated().sum() == 0


def test_all_system_files_and_testsuites():
    files = sorted(WMT.glob("final-metric-scores/*/*.sys.score.gz"))
    assert len(files) == 36
    rows = pl.concat([parse_file(f)[1].rows for f in files])
    # zcat *.sys.score.gz | wc -l: 11979; cut -f1 | sort -u: 37 metric names (Yisi-combi and YiSi-*).
    assert rows.height == 11979
    assert rows.select(pl.col("metric").str.replace(r"@.*", "")).n_unique() == 37
    assert "cs-en:testsuites2020" in rows.get_column("task").to_list()
    # grep -n: EED line 325: en-de newstest2020 newstestP2020 OPPO.1535 -0.5127768588419189
    hit = cell(rows, task="en-de", metric="EED@newstestP2020", system="OPPO.1535")
    assert hit.get_column("value").to_list() == ["-0.5127768588419189"]
    assert rows.select(pl.struct("benchmark", "task", "metric", "system")).is_duplicated().sum() == 0


def test_gzip_and_plain_give_identical_rows(tmp_path: Path):
    plain = tmp_path / "wmt20" / "BAQ_dyn.seg.score"
    plain.parent.mkdir()
    plain.write_bytes(gzip.decompress(SEG.read_bytes()))
    assert detect_format(plain).name == "wmt-scores"
    assert parse_wmt(plain, None).rows.equals(parse_wmt(SEG, None).rows)


def test_benchmark_from_folder_or_argument(tmp_path: Path):
    line = "M\tde-en\tmytest\tmytest\tsysA\t0.5\n"
    unnamed = tmp_path / "x.sys.score"
    unnamed.write_text(line)
    with pytest.raises(ParseError, match="--benchmark"):
        parse_wmt(unnamed, None)
    assert parse_wmt(unnamed, "wmt99").rows.get_column("benchmark").to_list() == ["wmt99"]
    folder = tmp_path / "wmt19-submitted" / "x.sys.score"
    folder.parent.mkdir()
    folder.write_text(line)
    rows = parse_wmt(folder, None).rows
    assert rows.select("benchmark", "task", "metric").row(0) == ("wmt19", "de-en:mytest", "M")


def test_segments_listed_in_another_order_are_the_same_segments(tmp_path: Path):
    path = tmp_path / "x.seg.score"
    path.write_text(
        "M\tde-en\tnewstest2020\tnewstest2020\tA\td1\t1\t0.1\n"
        "M\tde-en\tnewstest2020\tnewstest2020\tA\td1\t2\t0.2\n"
        "M\tde-en\tnewstest2020\tnewstest2020\tB\td1\t2\t0.3\n"
        "M\tde-en\tnewstest2020\tnewstest2020\tB\td1\t1\t0.4\n"
    )
    # SEGMENT names the segment, not its line: B's second line is segment 1.
    parsed = parse_wmt(path, None)
    assert parsed.rows.get_column("instance").to_list() == ["1", "2", "2", "1"]
    assert parsed.problems == ()


def test_da_segment_file():
    rows = parse_file(DA / "ad-seg-scores-zh-en.csv")[1].rows
    # grep -c .: 29249 lines = header + 29248 rated segments, 3 values each (RAW.SCR, Z.SCR, N).
    assert rows.height == 29248 * 3
    assert sorted(rows.get_column("metric").unique()) == ["DA-N", "DA-raw", "DA-z"]
    assert rows.get_column("task").unique().to_list() == ["zh-en"]
    # grep -n '^WeChat_AI.1525 571 ': line 23054: 85 0.137682803743177 1
    hit = cell(rows, system="WeChat_AI.1525", instance="571").sort("metric")
    assert hit.select("metric", "value", "line").rows() == [
        ("DA-N", "1", 23054), ("DA-raw", "85", 23054), ("DA-z", "0.137682803743177", 23054),
    ]


def test_da_system_file_and_document_local_ids():
    rows = parse_file(DA / "ad-sys-scores-en-de.csv")[1].rows
    # 18 lines = header + 17 systems, 4 values each.
    assert rows.height == 17 * 4
    assert rows.get_column("instance").null_count() == rows.height
    de = parse_file(DA / "ad-sys-scores-de-en.csv")[1].rows
    # head: line 2 is 84.5966801256169 0.219925007273862 743 OPPO.1360 1009
    assert cell(de, system="OPPO.1360").sort("metric").select("metric", "value").rows() == [
        ("DA-N", "743"), ("DA-N.all", "1009"), ("DA-raw", "84.5966801256169"), ("DA-z", "0.219925007273862"),
    ]
    parsed = parse_file(DA / "ad-seg-scores-en-de.csv")[1]
    assert any("document-local" in p for p in parsed.problems)
    # head -2: PROMT_NMT.73 en.ndtv.com.12997_0 39 -1.69579845320916 2
    first = parsed.rows.filter(pl.col("line") == 2).sort("metric")
    assert first.select("instance", "system", "value").rows()[1] == ("en.ndtv.com.12997_0", "PROMT_NMT.73", "39")


def centred_correlation(human: pl.DataFrame, metric: pl.DataFrame, shift: int) -> float:
    shifted = metric.with_columns(instance=(pl.col("instance").cast(pl.Int64) + shift).cast(pl.String))
    joined = human.join(shifted, on=["benchmark", "task", "instance", "system"]).select(
        "system", x=pl.col("value").cast(pl.Float64), y=pl.col("value_right").cast(pl.Float64)
    )
    centred = joined.with_columns((pl.col(c) - pl.col(c).mean().over("system")) for c in ("x", "y"))
    return centred.select(pl.corr("x", "y")).item()


def test_da_and_metric_segments_share_instance_ids():
    """Human and metric scores of the same segment correlate; of neighbouring segments they do not.

    An independent check of the instance numbering: if position != SID the
    join would pair unrelated segments and the correlation would vanish.
    """
    human = cell(parse_file(DA / "ad-seg-scores-zh-en.csv")[1].rows, metric="DA-raw")
    metric = parse_file(SEG)[1].rows
    aligned = centred_correlation(human, metric, 0)
    assert aligned > 0.12
    for shift in (-1, 1):
        assert aligned - centred_correlation(human, metric, shift) > 0.05


def test_rules_direction_agrees_with_human_judgments():
    """Every WMT20 system-level metric, read as the catalog says, correlates positively with DA-z."""
    rules = pl.read_csv(Path(__file__).resolve().parents[2] / "warehouse/defaults/metric_rules.csv")
    scores = pl.concat([parse_file(f)[1].rows for f in sorted(WMT.glob("final-metric-scores/*/*.sys.score.gz"))])
    human = parse_file(DA / "ad-sys-scores-de-en.csv")[1].rows.filter(pl.col("metric") == "DA-z")
    import fnmatch

    def higher(metric: str) -> bool:
        for rule in rules.iter_rows(named=True):
            if fnmatch.fnmatchcase("wmt20", rule["benchmark"]) and fnmatch.fnmatchcase(metric, rule["metric"]):
                return rule["higher_is_better"]
        raise AssertionError("no rule matched")

    joined = cell(scores, task="de-en").join(human.select("system", h=pl.col("value").cast(pl.Float64)), on="system")
    corr = joined.group_by("metric").agg(r=pl.corr(pl.col("value").cast(pl.Float64), "h", method="spearman"))
    assert corr.height >= 30
    for metric, r in corr.rows():
        assert (r > 0) == higher(metric), (metric, r)


@settings(max_examples=150, deadline=None)
@given(lines=tsv_lines(8), data=st.data())
def test_mangled_score_files_give_rows_or_parse_error(tmp_path_factory, lines, data):
    """Invariant: rows emitted == non-blank lines (one score each), or a ParseError; nothing else."""
    text = "".join("\t".join(f) + "\n" for f in lines)
    raw = data.draw(mangled(text))
    path = tmp_path_factory.mktemp("wmt20") / "m.seg.score"
    path.write_bytes(raw)
    rows = rows_or_none(parse_wmt, path, None)
    if rows is None:
        return
    physical = raw.decode("utf-8").removeprefix("\ufeff").split("\n")
    assert rows.height == sum(1 for line in physical if line.strip())
    if raw == text.encode():
        assert rows.get_column("value").to_list() == [f[-1] or None for f in lines]


@settings(max_examples=150, deadline=None)
@given(lines=tsv_lines(5), data=st.data())
def test_mangled_da_files_give_rows_or_parse_error(tmp_path_factory, lines, data):
    """Invariant: rows emitted == data lines x 3 score columns, or a ParseError."""
    body = "".join(" ".join(f) + " \n" for f in lines)
    raw = data.draw(mangled("SYS SID RAW.SCR Z.SCR N \n" + body))
    path = tmp_path_factory.mktemp("wmt20") / "ad-seg-scores-de-en.csv"
    path.write_bytes(raw)
    rows = rows_or_none(parse_da, path, None)
    if rows is None:
        return
    physical = raw.decode("utf-8").removeprefix("\ufeff").split("\n")[1:]
    assert rows.height == 3 * sum(1 for line in physical if line.strip())
