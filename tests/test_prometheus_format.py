"""qgen/cli/prometheus.py writes what a strict 0.0.4 parser (tests/support/prom_text.py) reads back
exactly: label values and HELP text escaped, every name by Prometheus's conventions. And the parser
is strict: each malformed text below is refused (a parser that accepts anything checks nothing)."""

from __future__ import annotations

import math

import pytest

from qgen.cli.prometheus import QUEUE_GAUGES, Family, families, render
from tests.support.prom_text import ExpositionError, parse, value

# Queue and schema names a spec refuses (it takes safe identifiers only), and the exposition must
# carry anyway should that ever change: every character the format escapes, and some it does not.
ODD = ['plain', 'quote"d', 'back\\slash', 'new\nline', 'all\\"\n\\n', 'ünïcödé ✓', '{brace}=,', 'trailing\\', '']

ROW = {"ready": 3, "scheduled": 1, "in_flight": 4, "expired": 2, "dead": 5, "oldest_ready_age_seconds": 12.25,
       "completed_last_minute": 7, "processed": 0, "archived": 9, "watermark_lag": -3}


@pytest.mark.parametrize("schema", ODD)
def test_odd_names_round_trip(schema):
    results = [(queue, dict(ROW, ready=n)) for n, queue in enumerate(ODD)] + [("down\"\n", None)]
    parsed = parse(render(families(schema, results, 0.5)))
    for n, queue in enumerate(ODD):
        assert value(parsed, "qgen_jobs_ready", queue=queue, schema=schema) == n
        assert value(parsed, "qgen_up", queue=queue, schema=schema) == 1
    assert value(parsed, "qgen_up", queue="down\"\n", schema=schema) == 0
    assert value(parsed, "qgen_jobs_ready", queue="down\"\n", schema=schema) is None, "a queue not read: qgen_up only"


def test_help_text_escaped():
    text = render([Family("qgen_x", "a \\ backslash\nand a newline", samples=[({}, 1)])])
    assert text.splitlines()[0] == "# HELP qgen_x a \\\\ backslash\\nand a newline"
    assert parse(text)["qgen_x"].help == "a \\ backslash\nand a newline"


def test_values_and_missing_figures():
    parsed = parse(render(families("s", [("q", dict(ROW, completed_last_minute=None, watermark_lag=None,
                                                           oldest_ready_age_seconds=float("nan")))], 0.0)))
    assert "qgen_jobs_completed_last_minute" not in parsed and "qgen_watermark_lag" not in parsed, \
        "a figure the queue has not (NULL) is left out, not written as 0"
    assert math.isnan(value(parsed, "qgen_oldest_ready_age_seconds", queue="q", schema="s"))
    assert value(parsed, "qgen_dead_letters", queue="q", schema="s") == 5


def test_names_follow_the_conventions():
    parsed = parse(render(families("s", [("q", ROW)], 0.25)))
    for name, family in parsed.items():
        assert name.startswith("qgen_") and name == name.lower()
        assert family.type == "gauge" and not name.endswith("_total"), "_total is for counters"
    assert {name for name, _, _ in QUEUE_GAUGES if "age" in name} == {"qgen_oldest_ready_age_seconds"}
    assert value(parsed, "qgen_scrape_duration_seconds", schema="s") == 0.25


def test_output_is_deterministic():
    assert render(families("s", [("a", ROW), ("b", None)], 0.1)) == render(families("s", [("a", ROW), ("b", None)], 0.1))


@pytest.mark.parametrize("text", [
    'm{a="x"} 1',                                    # no final newline
    'm{a="x\\t"} 1\n',                               # an escape the format does not have
    'm{a="x"y"} 1\n',                                # a raw quote
    'm{a="x",a="y"} 1\n',                            # a label twice
    'm{__a="x"} 1\n',                                # a reserved label name
    'm{1a="x"} 1\n',                                 # a label name outside the grammar
    '1m 1\n',                                        # a metric name outside the grammar
    'm one\n',                                       # not a float
    'm 1 2 3\n',                                     # too many fields
    'm 1\nn 1\nm 2\n',                               # a name's samples apart
    'm{a="x"} 1\nm{a="x"} 2\n',                      # a series twice
    '# TYPE m gauge\n# TYPE m gauge\nm 1\n',         # TYPE twice
    'm 1\n# TYPE m gauge\n',                         # TYPE after the samples
    '# TYPE m gorge\nm 1\n',                         # an unknown type
    '# HELP m x\n# HELP m y\nm 1\n',                 # HELP twice
    '# HELP m a \\t\nm 1\n',                         # a HELP escape the format does not have
])
def test_the_parser_is_strict(text):
    with pytest.raises(ExpositionError):
        parse(text)


def test_the_parser_reads_what_the_format_allows():
    parsed = parse('# a comment\n# HELP m h\n# TYPE m counter\nm{a="\\\\\\"\\n"} +Inf 123\nm{a="b"} -1.5e3\n\nn NaN\n')
    assert parsed["m"].samples == [({"a": '\\"\n'}, math.inf), ({"a": "b"}, -1500.0)]
    assert math.isnan(parsed["n"].samples[0][1])


def test_the_documented_alert_rules_name_only_metrics_qgen_writes():
    """docs/operations.md's alert rules are YAML Prometheus loads, and every qgen_ metric they (and the
    metrics table there) name is one qgen writes: a renamed metric cannot leave an alert that never fires."""
    import re

    import yaml

    from tests.conftest import ROOT

    text = (ROOT / "docs" / "operations.md").read_text()
    section = text[text.index("## Metrics and alerts"):]
    blocks = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", section, re.S)]
    rules = [rule for block in blocks if "groups" in block for group in block["groups"] for rule in group["rules"]]
    assert {r["alert"] for r in rules} >= {"QgenQueueUnreadable", "QgenOldestReadyJobTooOld", "QgenMaintenanceNotRunning",
                                            "QgenDeadLettersRising"}
    written = set(parse(render(families("s", [("q", ROW)], 0.1))))
    named = set(re.findall(r"\bqgen_[a-z_]+", section)) - {"qgen_jobs_completed_total"}  # the counter there is not
    assert named <= written, named - written
    assert all(set(re.findall(r"\bqgen_[a-z_]+", r["expr"])) <= written for r in rules)
