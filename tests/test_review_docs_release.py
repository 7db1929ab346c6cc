"""Review (DBA): docs/api.md says what each procedure does in each caller's session mode ('each procedure
says what it does in each'), but its table leaves release out, though release joins the caller's transaction
(SQL Server IMPLICIT_TRANSACTIONS ON: @@TRANCOUNT 1 afterwards, uncommitted until the caller commits) as
tests/behaviour/test_caller_modes.py shows; the Procedures section has no paragraph on release either."""

from __future__ import annotations

import re

from tests.conftest import ROOT

API = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")


def test_the_session_mode_table_says_what_release_does():
    section = API.split("### The caller's session mode", 1)[1].split("\n### ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and "procedure" not in line]
    assert any(re.search(r"\brelease\b", row.split("|")[1]) for row in rows), "release is in no row of the table"


def test_the_procedures_section_describes_release():
    procedures = API.split("\n## Procedures", 1)[1]
    assert "**release**" in procedures, "no **release** paragraph under Procedures"
