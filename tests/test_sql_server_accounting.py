"""docs/api.md's table of SQL Server's hot statements ("SQL Server, statement by statement") names
indexes and locking hints; each row is held to the rendered procedures, so the table cannot drift
from what qgen renders: every index it names exists in that example's install script, and every
hint it names is a WITH (...) of that procedure."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEADING = "#### SQL Server, statement by statement (on paper)"


def _rows() -> list[list[str]]:
    text = (ROOT / "docs" / "api.md").read_text()
    assert HEADING in text, "docs/api.md lost its SQL Server accounting"
    section = text.split(HEADING, 1)[1].split("\n#", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("| `")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]


def _example(number: str) -> Path:
    (found,) = (ROOT / "generated").glob(f"{number}_*")
    return found / "mssql"


def _procedure(cell: str) -> tuple[str, Path]:
    match = re.fullmatch(r"`(\w+)` \((\d{3})\)", cell)
    assert match, f"a row's first cell names a procedure and its example: {cell!r}"
    name, number = match.groups()
    (path,) = _example(number).glob(f"[0-9][0-9]_{name}.sql")
    return name, path


ROWS = _rows()


def test_the_table_covers_every_hot_procedure():
    named = {_procedure(row[0])[0] for row in ROWS}
    hot = {"enqueue", "dequeue", "watermark_move", "complete", "fail", "extend_lease", "reap"}
    assert {f"rainfall_events_{kind}" for kind in hot} <= named
    assert {"testq_dequeue", "testq_watermark_move"} <= named


@pytest.mark.parametrize("row", ROWS, ids=[f"{row[0]} {row[1]}" for row in ROWS])
def test_each_row_names_what_is_rendered(row):
    name, path = _procedure(row[0])
    body = path.read_text()
    install = (path.parent / "install.sql").read_text()
    assert len(row) == 6, row
    for index in re.findall(r"`(\w+_ix(?:_due)?)`", row[2] + " " + row[4]):
        assert re.search(rf"CREATE (?:UNIQUE )?NONCLUSTERED INDEX \[{index}\]", install), (
            f"{index} (named for {name}) is not an index of {path.parent.parent.name}")
    hints = re.findall(r"`([A-Z][A-Z(), 0-9]+)`", row[5])
    for hint in hints:
        assert f"WITH ({hint})" in body, f"{name}: no statement says WITH ({hint})"
    if not hints:
        assert row[5].startswith("none"), row
