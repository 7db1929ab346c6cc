"""The templates' own variables hold a `$`, so no spec name can collide with one:
scripts/rename_internal_names.py has nothing left to rename."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def test_no_template_declares_a_variable_a_spec_name_could_take():
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "rename_internal_names.py"), "--check"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout == ""


def test_a_name_already_renamed_is_not_collected_again():
    """v$wrong's leading v was once collected as a name: the rename then turned every other bare v in
    the templates into v$v (psql's `-v qgen_database=...` in schedule.sql, relkind 'v' in verify.sql,
    so the install check stopped checking views)."""
    import sys

    sys.path.insert(0, str(ROOT / "scripts"))
    from rename_internal_names import postgres_declared

    text = "DECLARE\n    v$wrong text;\n    v$n integer := 0;\n    plain int;\nBEGIN\n"
    assert postgres_declared(text) == ["plain"]
    for path in sorted((ROOT / "templates" / "postgres").rglob("*.j2")):
        assert "v$v" not in path.read_text(encoding="utf-8"), f"{path}: a bare v renamed to v$v"
