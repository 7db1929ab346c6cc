"""Every example call on the reference page (docs/api.md, generated from the contract) runs as written,
on each database: a reader pastes it into psql or sqlcmd. The page's queue `s.q` is installed as
tests/behaviour/specs/reference.yaml (schema qgref, queue q, payload n int), a few jobs are queued, and
each example runs as its page shows it, the schema's name put in. An example may be answered with one
of qgen's own refusals (its job id is not leased, say): never with an error qgen does not know (a
syntax error: `limit => 10` on PostgreSQL, where limit is a keyword) nor with 'not installed' (a
parameter the procedure does not have)."""

from __future__ import annotations

import re

import pytest

from qgen import dialects
from qgen.spec.contract import PROCEDURES
from tests.conftest import ROOT

SPEC = ROOT / "tests" / "behaviour" / "specs" / "reference.yaml"
PAGE = ROOT / "docs" / "api.md"
HEADERS = {"postgres": "-- PostgreSQL", "mssql": "-- SQL Server"}
# Examples a page shows as words, not a statement: SQL Server's enqueue_batch takes a table-valued
# parameter (a client sends it; sqlcmd cannot write one inline). PostgreSQL has no enqueue_json.
NO_STATEMENT = {("mssql", "enqueue_batch"), ("postgres", "enqueue_json")}


def page_examples() -> dict[str, dict[str, str]]:
    """{procedure: {dialect: its example statement}} as the page shows them."""
    text = PAGE.read_text(encoding="utf-8")
    found: dict[str, dict[str, str]] = {}
    for section in re.split(r"\n### ", text)[1:]:
        kind = section.split("\n", 1)[0].strip()
        if kind not in PROCEDURES:
            continue
        block = re.search(r"```sql\n(.*?)```", section, re.S)
        assert block, f"### {kind} has no example"
        lines = block.group(1).splitlines()
        for dialect, header in HEADERS.items():
            if header in lines:
                found.setdefault(kind, {})[dialect] = lines[lines.index(header) + 1]
    return found


EXAMPLES = page_examples()


def test_the_page_shows_an_example_of_every_procedure_on_each_database():
    assert set(EXAMPLES) == set(PROCEDURES)
    shown = {(d, k) for k, by in EXAMPLES.items() for d in by}
    assert shown | NO_STATEMENT == {(d, k) for d in HEADERS for k in PROCEDURES}
    assert not shown & NO_STATEMENT


@pytest.mark.parametrize("kind", sorted(PROCEDURES))
def test_the_example_runs_as_written(use_spec, kind):
    env = use_spec(SPEC)
    statement = EXAMPLES[kind].get(env.dialect)
    if statement is None:
        pytest.skip(f"the page shows {kind} on {env.dialect} in words: {NO_STATEMENT}")
    queue = env.client("q")
    queue.enqueue_many([{"n": n} for n in range(20)])
    statement = statement.replace("s.q_", "qgref.q_")
    try:
        env.sql(statement.rstrip(";"))
    except Exception as exc:  # noqa: BLE001 (what the database said is judged below)
        code = dialects.get(env.dialect).classify(exc)
        assert code is not None and code.kind != "missing", f"{statement}\n{type(exc).__name__}: {exc}"
