"""Resolve metric rules (glob patterns) into the metric catalog: the one place metric defaults are applied.

A rule names a ``benchmark``, ``task`` and ``metric`` by glob pattern (``*``,
``?``, ``[...]`` as in :mod:`fnmatch`) and says how to read what it matches:
``higher_is_better``, ``is_ranked``, ``weight``, ``group`` (empty = the
task) and, optionally, ``group_weight`` (the group's weight in two-step runs;
empty or absent = 1, every group the same).  Rules are tried in order and the
first match wins, so user overrides are simply put before the bundled
defaults (whose last rule is the catch-all: higher is better, ranked, weight 1).

:func:`resolve_metrics` gives every (benchmark, task, metric) a row with every
field filled; the catalog stores that table (``metrics.parquet``, the
``metrics`` view) and everything that orients or weights scores (the
ballots, the dense partitions, the ``oriented_scores`` view) reads it and
fills nothing of its own: a score without a catalog row is an error
(:func:`with_catalog`), not a silent default.
"""

from __future__ import annotations

import re

import polars as pl

from scorehouse.aggregators.errors import ScorehouseError
from scorehouse.warehouse.schema import METRIC_RULES, METRICS, conform

KEY = ("benchmark", "task", "metric")
OPTIONAL_RULE_COLUMNS = ("note", "group_weight")


class MetricRulesError(ScorehouseError, ValueError):
    """A metric rules file is malformed; fix the file (a retry cannot help)."""


class MetricCatalogError(ScorehouseError, ValueError):
    """Scores have no entry in the metric catalog given with them: pass the catalog resolved for these scores."""


def uncovered(key: tuple[str, ...], count: int) -> MetricCatalogError:
    """The error for ``count`` (benchmark, task, metric) keys of the scores without a catalog row, ``key`` the first."""
    return MetricCatalogError(
        f"{count} (benchmark, task, metric) of the scores have no metric catalog row, the first "
        f"{dict(zip(KEY, key, strict=True))}; pass the metrics resolved for these scores (resolve_metrics), "
        f"or rebuild the warehouse catalog (any 'scorehouse ingest' or 'refresh' re-resolves it)"
    )


def with_catalog(scores: pl.LazyFrame, metrics: pl.LazyFrame) -> pl.LazyFrame:
    """``scores`` joined to their catalog rows (:data:`METRICS`); :class:`MetricCatalogError` when one has none.

    The check reads the distinct keys of ``scores`` once (a few columns, cheap
    next to ranking them).
    """
    metrics = metrics.select(pl.col(c).cast(t) for c, t in METRICS.items())
    missing = scores.select(KEY).unique().join(metrics, on=list(KEY), how="anti").sort(KEY).collect()
    if missing.height:
        raise uncovered(missing.row(0), missing.height)
    return scores.join(metrics, on=list(KEY), how="left")  # every row matches: as inner, in the scores' order


def glob_regex(pattern: str) -> str:
    """An anchored regular expression matching the glob ``pattern`` like ``fnmatch.fnmatchcase``.

    Written here rather than taken from ``fnmatch.translate``, whose output uses
    atomic groups that the Rust regex engine behind Polars does not support.
    """
    parts = ["^"]
    i = 0
    while i < len(pattern):
        char = pattern[i]
        i += 1
        if char == "*":
            parts.append(".*")
        elif char == "?":
            parts.append(".")
        elif char == "[":
            # A "]" right after "[" or "[!" is a member, not the end (so "[!]" is a literal "[!]").
            start = i + 1 if pattern[i : i + 1] == "!" else i
            start += 1 if pattern[start : start + 1] == "]" else 0
            close = pattern.find("]", start)
            if close == -1:
                parts.append(re.escape(char))
                continue
            body = pattern[i:close]
            i = close + 1
            parts.append(_character_class(body))
        else:
            parts.append(re.escape(char))
    parts.append("$")
    return "(?s)" + "".join(parts)


def glob_escaped(names: pl.Expr) -> pl.Expr:
    """Glob patterns matching exactly ``names``: each ``*``, ``?`` and ``[`` as a one-member class (``[*]``)."""
    return names.str.replace_all(r"([*?\[])", "[$1]")


DECLARED_NOTE = "declared with scorehouse ingest --higher-is-better {value}"


def declared_rules(keys: pl.DataFrame, higher_is_better: bool) -> pl.DataFrame:
    """One rule (:data:`METRIC_RULES`) per distinct (benchmark, task, metric) of ``keys``, matching exactly it.

    A direction declared at ingest: the metric is ranked with weight 1 in the direction given.
    """
    exact = keys.select(pl.col(KEY).cast(pl.String)).unique().sort(KEY)
    return conform(
        exact.with_columns(
            glob_escaped(pl.col(KEY)),
            higher_is_better=pl.lit(higher_is_better),
            is_ranked=pl.lit(True),
            weight=pl.lit(1.0),
            group=pl.lit(None, dtype=pl.String),
            group_weight=pl.lit(None, dtype=pl.Float64),
            note=pl.lit(DECLARED_NOTE.format(value=str(higher_is_better).lower())),
        ),
        METRIC_RULES,
    )


def _character_class(body: str) -> str:
    """A glob ``[...]`` body as a regex class; reversed ranges match nothing, as in fnmatch."""
    negate = body.startswith("!")
    body = body[1:] if negate else body
    items, j = [], 0
    while j < len(body):
        if j + 2 < len(body) and body[j + 1] == "-":
            low, high = body[j], body[j + 2]
            if low <= high:
                items.append(f"{re.escape(low)}-{re.escape(high)}")
            j += 3
        else:
            items.append(re.escape(body[j]))
            j += 1
    if not items:  # Rust regex has no lookaround: spell "nothing" and "anything" as classes
        return r"[\s\S]" if negate else r"[^\s\S]"
    return f"[{'^' if negate else ''}{''.join(items)}]"


def _where(source: str, bad: pl.DataFrame) -> str:
    """The file and line of the first rule of ``bad`` (its file ``line`` when known, else its place)."""
    line = bad["line"][0] if "line" in bad.columns else None
    return f"{source}: line {line}" if line is not None else f"{source}: rule {bad['row'][0] + 1} under the header"


def _rule_error(source: str, bad: pl.DataFrame, column: str, allowed: str) -> MetricRulesError:
    """The error for the first bad cell of ``bad``: file, line, column, value and allowed values."""
    return MetricRulesError(
        f"{_where(source, bad)}: {column} must be {allowed}, got {bad[column][0]!r} "
        f"(column {column!r}, allowed values: {allowed}); fix the file and run again"
    )


def _group_weights(rules: pl.DataFrame, source: str) -> pl.DataFrame:
    """``rules`` with the optional ``group_weight`` column as numbers (empty = null, filled with 1 on resolve)."""
    allowed = "a number >= 0 or empty (1: every group weighs the same)"
    value = pl.col("group_weight").cast(pl.String).str.strip_chars()
    number = pl.when(value == "").then(None).otherwise(value).cast(pl.Float64, strict=False)
    bad = rules.with_row_index("row").filter((number.is_null() & value.is_not_null() & (value != "")) | (number < 0))
    if bad.height:
        raise _rule_error(source, bad, "group_weight", allowed)
    return rules.with_columns(number.alias("group_weight"))


def check_rules(rules: pl.DataFrame, source: str) -> pl.DataFrame:
    """Rules conformed to :data:`METRIC_RULES`, or :class:`MetricRulesError` saying what is wrong.

    The one parser of metric rules files: every error names the file, the line
    (the file's own line when ``rules`` has a ``line`` column, as read by
    :func:`warehouse.storage.read_metric_rules`), the column and the allowed values.
    """
    absent = [c for c in METRIC_RULES if c not in rules.columns and c not in OPTIONAL_RULE_COLUMNS]
    if absent:
        raise MetricRulesError(f"{source}: metric rules lack the column(s) {absent}")
    rules = rules.with_columns(pl.lit(None, dtype=pl.String).alias(c) for c in OPTIONAL_RULE_COLUMNS if c not in rules.columns)
    for flag in ("higher_is_better", "is_ranked"):
        if rules.schema[flag] == pl.String:
            text = rules.get_column(flag).str.strip_chars().str.to_lowercase()
            bad = rules.with_row_index("row").filter(~text.is_in(["true", "false"]) & text.is_not_null())
            if bad.height:
                raise _rule_error(source, bad, flag, "true or false")
            rules = rules.with_columns((text == "true").alias(flag))
    if rules.schema["weight"] == pl.String:
        weight = pl.col("weight").str.strip_chars()
        bad = rules.with_row_index("row").filter(weight.cast(pl.Float64, strict=False).is_null() & (weight != ""))
        if bad.height:
            raise _rule_error(source, bad, "weight", "a number (0 keeps it out of rankings)")
    rules = _group_weights(rules, source)
    lines = rules.select("line") if "line" in rules.columns else pl.DataFrame()
    try:
        rules = conform(rules.with_columns(pl.col("group").cast(pl.String)), METRIC_RULES)
    except pl.exceptions.InvalidOperationError as error:
        raise MetricRulesError(f"{source}: a value does not fit its column: {error}") from None
    required = (*KEY, "higher_is_better", "is_ranked", "weight")
    blank = pl.concat([rules, lines], how="horizontal").with_row_index("row").filter(pl.any_horizontal(pl.col(c).is_null() for c in required))
    if blank.height:
        empty = [c for c in required if blank[c][0] is None]
        raise MetricRulesError(
            f"{_where(source, blank)}: the rule leaves a required field empty "
            f"(column(s) {empty}); fill it in and run again"
        )
    return rules


def resolve_metrics(keys: pl.DataFrame, rules: pl.DataFrame) -> pl.DataFrame:
    """The METRICS row of every distinct (benchmark, task, metric) in ``keys``.

    Raises :class:`MetricRulesError` when a key matches no rule (the bundled
    rules end with a catch-all, so this only happens with custom rules).
    """
    # Order kept by the unique: keys come sorted from the catalog's query, and a sort of sorted keys is cheap where
    # one of a hash unique's shuffle cost a second for 600,000 MTEB keys.
    keys = keys.select(pl.col(KEY).cast(pl.String)).unique(maintain_order=True).sort(KEY)
    # A pattern is matched against the distinct names of its column, and each key looks its names' matches up by
    # their places among them: MTEB's 685,000 keys hold a few thousand task and metric names, and 47 rules times
    # 3 columns of regular expressions over every key took most of the catalog's rebuild.
    names = {column: keys.get_column(column).unique().drop_nulls().sort() for column in KEY}
    places = {column: (keys.get_column(column).rank("dense") - 1).cast(pl.UInt32) for column in KEY}  # null: no name
    rule_index = pl.Series("rule", [None] * keys.height, dtype=pl.Int64)
    for i, (benchmark, task, metric) in enumerate(rules.select(KEY).iter_rows()):
        hit = pl.repeat(True, keys.height, dtype=pl.Boolean, eager=True)
        for column, pattern in zip(KEY, (benchmark, task, metric), strict=True):
            hit &= names[column].str.contains(glob_regex(pattern)).gather(places[column])
        rule_index = pl.select(
            pl.when(rule_index.is_null() & hit).then(pl.lit(i)).otherwise(rule_index)
        ).to_series()
    if rule_index.null_count():
        first = keys.filter(rule_index.is_null()).row(0)
        raise MetricRulesError(f"no metric rule matches {dict(zip(KEY, first, strict=True))}; add a catch-all rule")
    resolved = keys.with_columns(rule_index.alias("rule")).join(
        rules.drop(KEY).with_row_index("rule").with_columns(pl.col("rule").cast(pl.Int64)), on="rule"
    )
    resolved = resolved.with_columns(
        group=pl.when(pl.col("group").is_null() | (pl.col("group") == ""))
        .then(pl.col("task"))
        .otherwise(pl.col("group")),
        group_weight=pl.col("group_weight").fill_null(1.0),
    )
    return conform(resolved, METRICS).sort(KEY)
