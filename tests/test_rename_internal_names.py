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
