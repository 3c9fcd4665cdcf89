"""The site's data layout, checked against lookups and brute force written here, and its atomic folder write."""

from __future__ import annotations

import itertools
import json

import polars as pl

from scorehouse.reports.site.model import BenchmarkInput, MethodInput, benchmark_data, index_entry
from scorehouse.reports.site.pages import DATA_GLOBAL, benchmark_page, data_script, slug, system_page
from scorehouse.warehouse.atomic import write_tree

SYSTEMS = ("a", "b", "c", "d")


def _ranking(ranks: dict[str, int]) -> pl.DataFrame:
    return pl.DataFrame({"system": list(ranks), "score": [float(-r) for r in ranks.values()],
                         "rank": list(ranks.values()), "tied": [False] * len(ranks)})


def _inputs(pairwise: pl.DataFrame | None = None, ranks: dict[str, int] | None = None) -> BenchmarkInput:
    task_scores = pl.DataFrame({
        "task": ["t1", "t1", "t1", "t2", "t2", "t2", "t2", "t3", "t3"],
        "metric": ["acc", "acc", "acc", "f1", "f1", "em", "em", "loss", "loss"],
        "system": ["a", "b", "d", "a", "c", "a", "b", "b", "c"],
        "score": [0.9, 0.8, 0.7, 0.5, 0.25, 0.1, 0.2, 3.0, 1.5],
    })
    metrics = pl.DataFrame({
        "task": ["t1", "t2", "t2", "t3"], "metric": ["acc", "f1", "em", "loss"],
        "higher_is_better": [True, True, True, False], "is_ranked": [True, True, True, True],
        "group": ["g1", "g2", "g2", None],
    })
    ranking = _ranking(ranks or {"a": 1, "b": 2, "c": 3, "d": 4})
    method = MethodInput("m0", "mean", "the mean", {"snapshot_id": "s1", "created_at": "2026-01-02 03:04:05",
                                                     "n_voters": 4}, ranking)
    return BenchmarkInput("bench", "task", (method,), SYSTEMS, task_scores, metrics,
                          {"a": 4, "b": 4, "c": 2, "d": 1}, None, pairwise)


def test_every_score_is_in_its_column_at_its_systems_place():
    inputs = _inputs()
    data = benchmark_data(inputs)
    assert data["systems"] == list(SYSTEMS)
    where = {(t["task"], t["metric"]): c for c, t in enumerate(data["tasks"])}
    assert set(where) == {("t1", "acc"), ("t2", "f1"), ("t2", "em"), ("t3", "loss")}
    given = {(t, m, s): v for t, m, s, v in inputs.task_scores.iter_rows()}
    for (task, metric), column in where.items():
        for i, system in enumerate(SYSTEMS):
            assert data["scores"][column][i] == given.get((task, metric, system))
    # a task with two metrics names its columns by both; the orientation travels with the column
    names = {(t["task"], t["metric"]): (t["name"], t["higher"]) for t in data["tasks"]}
    assert names[("t2", "em")] == ("t2 · em", True) and names[("t1", "acc")] == ("t1", True)
    assert names[("t3", "loss")] == ("t3", False)
    # groups: the catalog's, or the task when the catalog has none; each column in exactly one group
    groups = {g["name"]: sorted((data["tasks"][c]["task"], data["tasks"][c]["metric"]) for c in g["columns"])
              for g in data["groups"]}
    assert groups == {"g1": [("t1", "acc")], "g2": [("t2", "em"), ("t2", "f1")], "t3": [("t3", "loss")]}
    assert data["coverage"] == [4, 4, 2, 1]
    assert data["interval"] is None and data["methods"][0]["stat_group"] is None


def _pairwise(p: dict[tuple[str, str], float], separated: set[tuple[str, str]]) -> pl.DataFrame:
    rows = []
    for a, b in itertools.permutations(SYSTEMS, 2):
        prob = p[(a, b)] if (a, b) in p else 1 - p[(b, a)]
        rows.append((a, b, prob, prob - 0.1, prob + 0.1, (a, b) in separated or (b, a) in separated))
    return pl.DataFrame(rows, schema=["system_a", "system_b", "probability", "lower", "upper", "excludes_half"],
                        orient="row")


def test_rank_range_and_tied_groups_against_brute_force():
    # a beats everyone surely; b and c cannot be told apart; d loses to a and b surely, not to c
    p = {("a", "b"): 0.9, ("a", "c"): 0.9, ("a", "d"): 0.95, ("b", "c"): 0.55, ("b", "d"): 0.8, ("c", "d"): 0.6}
    separated = {("a", "b"), ("a", "c"), ("a", "d"), ("b", "d")}
    data = benchmark_data(_inputs(_pairwise(p, separated), ranks={"a": 1, "b": 2, "c": 3, "d": 4}))

    def beats(x: str, y: str) -> bool:
        prob = p[(x, y)] if (x, y) in p else 1 - p[(y, x)]
        return ((x, y) in separated or (y, x) in separated) and prob > 0.5

    for i, system in enumerate(SYSTEMS):
        best = 1 + sum(beats(o, system) for o in SYSTEMS if o != system)
        worst = len(SYSTEMS) - sum(beats(system, o) for o in SYSTEMS if o != system)
        assert (data["interval"]["low"][i], data["interval"]["high"][i]) == (best, worst)
    # along the ranking a | b c | d: a new group where neighbours are separated (a-b, c-d? no: c-d is not)
    assert data["methods"][0]["stat_group"] == [0, 1, 1, 1]
    cells = data["pairwise"]["cells"]
    assert cells[0][0] is None and cells[0][1] == [0.9, 0.8, 1.0, True] and cells[2][1][3] is False


def test_index_entry_counts_coverage_and_agreement():
    data = benchmark_data(_inputs())
    entry = index_entry(data, "benchmarks/x.html")
    assert entry["coverage"] == round((4 + 4 + 2 + 1) / (4 * 4), 4)
    assert (entry["systems"], entry["voters"], entry["leader"], entry["agreement"]) == (4, 4, "a", None)


def test_pages_escape_names_and_data_scripts_are_one_json_assignment():
    hostile = '<script>alert(1)</script> & "x"'
    page = system_page(hostile, "b <i>", "data/x.js", 3)
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;" in page
    assert '<table id="leaderboard"' in benchmark_page("t", "data/t.js") and '<select id="method">' in benchmark_page("t", "d")
    script = data_script({"systems": [hostile, "é"]})
    prefix = f"window.{DATA_GLOBAL} = "
    assert script.startswith(prefix) and json.loads(script[len(prefix):].rstrip().rstrip(";")) == {"systems": [hostile, "é"]}
    assert data_script({"x": [float("nan"), float("inf"), 1.5]}) == f"{prefix}{{\"x\":[null,null,1.5]}};\n"
    names = [hostile, "a/b", "a_b", "a b", "", "x" * 300]
    slugs = [slug(n) for n in names]
    assert len(set(slugs)) == len(names)
    assert all(s.replace("-", "").replace("_", "").replace(".", "").isalnum() and len(s) <= 49 for s in slugs)


def test_write_tree_replaces_the_folder_whole(tmp_path):
    target = tmp_path / "site"
    write_tree({"index.html": "old", "data/old.js": "x"}, target)
    write_tree({"index.html": "new", "data/new.js": "y"}, target)
    assert sorted(str(p.relative_to(target)) for p in target.rglob("*") if p.is_file()) == ["data/new.js", "index.html"]
    assert (target / "index.html").read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["site"]  # nothing left aside


def test_an_arena_snapshot_gives_its_method_its_own_rank_range():
    # intervals: a [1100, 1200]; b [1050, 1150] overlaps a and c; c [990, 1060]; d [800, 900] below everyone
    arena = pl.DataFrame({"system": ["a", "b", "c", "d"], "rating": [1150.0, 1100.0, 1020.0, 850.0],
                          "lower": [1100.0, 1050.0, 990.0, 800.0], "upper": [1200.0, 1150.0, 1060.0, 900.0],
                          "rank": [1, 2, 3, 4], "rank_ub": [1, 1, 2, 4], "n_battles": [9, 9, 9, 9],
                          "win_rate": [0.7, 0.6, 0.4, 0.1]})
    inputs = _inputs()
    own = MethodInput("m1", "arena", "ratings", {"snapshot_id": "s2", "created_at": "2026-01-02 03:04:05"},
                      _ranking({"a": 1, "b": 2, "c": 3, "d": 4}), arena=arena)
    data = benchmark_data(BenchmarkInput(inputs.benchmark, inputs.level, (*inputs.methods, own), SYSTEMS,
                                         inputs.task_scores, inputs.metrics))
    # by hand: a can be 1st or 2nd (b overlaps), b 1st to 3rd, c 2nd (a above it) or 3rd, d only 4th
    assert data["methods"][1]["interval"] == {"low": [1, 1, 2, 4], "high": [2, 3, 3, 4]}
    assert data["methods"][0]["interval"] is None  # a snapshot without an arena stores no interval


def test_stored_intervals_are_drawn_and_a_method_without_says_why():
    stored = pl.DataFrame({"system": ["d", "a", "b"], "score_low": [0.0, 0.5, 0.2], "score_high": [0.3, 0.9, 0.6],
                           "rank_best": [3, 1, 1], "rank_worst": [3, 2, 3], "tie_group": [2, 1, 1],
                           "n_resamples": [200] * 3, "seed": [0] * 3, "confidence": [0.95] * 3})
    manifest = {"created_at": "2026-01-02 03:04:05", "level": "task"}
    with_intervals = MethodInput("m1", "borda", "points", {**manifest, "snapshot_id": "s2"},
                                 _ranking({"a": 1, "b": 2, "d": 3}), intervals=stored)
    over = MethodInput("m2", "kemeny", "consensus", {**manifest, "snapshot_id": "s3", "notes": [
        "kemeny: 3 blocks", "intervals: none stored: exact kemeny on 40 systems (over 12) is too slow"]},
        _ranking({"a": 1, "b": 2, "c": 3, "d": 4}))
    inputs = _inputs()
    data = benchmark_data(BenchmarkInput(inputs.benchmark, inputs.level, (*inputs.methods, with_intervals, over),
                                         SYSTEMS, inputs.task_scores, inputs.metrics))
    mean, borda, kemeny = data["methods"]
    # in the page's system order (a, b, c, d): c has no row in the stored table
    assert borda["interval"] == {"low": [1, 1, None, 3], "high": [2, 3, None, 3], "source": "stored",
                                 "resamples": 200, "seed": 0, "confidence": 0.95, "resampled": "voters"}
    assert kemeny["interval"] is None and kemeny["no_interval"] == "exact kemeny on 40 systems (over 12) is too slow"
    # a snapshot written before rank stored intervals (no such note) says so
    assert mean["interval"] is None and mean["no_interval"].startswith("its snapshot was written before rank stored")


def test_a_battles_snapshot_draws_the_interval_of_its_resampled_battles_and_an_older_one_says_why():
    stored = pl.DataFrame({"system": ["a", "b"], "score_low": [0.1, -0.4], "score_high": [0.4, 0.0],
                           "rank_best": [1, 1], "rank_worst": [1, 2], "tie_group": [1, 1],
                           "n_resamples": [200] * 2, "seed": [0] * 2, "confidence": [0.95] * 2})
    manifest = {"created_at": "2026-01-02 03:04:05", "level": "battles"}
    new = MethodInput("m1", "bradley_terry", "strengths", {**manifest, "snapshot_id": "s2"},
                      _ranking({"a": 1, "b": 2}), intervals=stored)
    old = MethodInput("m2", "elo", "ratings", {**manifest, "snapshot_id": "s3"}, _ranking({"a": 1, "b": 2}))
    inputs = _inputs()
    data = benchmark_data(BenchmarkInput(inputs.benchmark, "battles", (new, old), ["a", "b"], inputs.task_scores,
                                         inputs.metrics))
    drawn, before = data["methods"]
    assert drawn["interval"] == {"low": [1, 1], "high": [1, 2], "source": "stored", "resamples": 200, "seed": 0,
                                 "confidence": 0.95, "resampled": "battles"}
    assert before["interval"] is None and before["no_interval"].startswith("its snapshot was written before rank stored")
