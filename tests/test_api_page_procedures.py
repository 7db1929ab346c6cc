"""docs/api.md describes every procedure of the contract where a reader looks for it: the table of what
each does in each caller's session mode ("each procedure says what it does in each"), and a paragraph
under Procedures. A procedure added to the contract without them fails here (release did, found by
review)."""

from __future__ import annotations

import re

import pytest

from qgen.spec.contract import PROCEDURES
from tests.conftest import ROOT

API = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")


def session_mode_rows() -> list[str]:
    section = API.split("### The caller's session mode", 1)[1].split("\n### ", 1)[0]
    return [line.split("|")[1] for line in section.splitlines() if line.startswith("| ") and "procedure |" not in line]


@pytest.mark.parametrize("kind", sorted(PROCEDURES))
def test_the_session_mode_table_names_the_procedure(kind):
    assert any(re.search(rf"(?<![\w_]){kind}(?![\w_])", row) for row in session_mode_rows()), \
        f"{kind} is in no row of the caller's session mode table"


@pytest.mark.parametrize("kind", sorted(PROCEDURES))
def test_the_procedures_section_has_a_paragraph_on_the_procedure(kind):
    procedures = API.split("\n## Procedures", 1)[1]
    assert f"\n**{kind}** (" in procedures, f"no **{kind}** paragraph under Procedures"
