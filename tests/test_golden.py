"""Rendering as a whole: deterministic and headed output, install order, what `qgen render` writes and
checks. Each example rendered against generated/, and every spec case against its expected output,
is tests/test_cases.py."""

from __future__ import annotations

import re
import shutil

import pytest

from qgen.cli import main
from qgen.render.engine import render_spec
from qgen.spec.load import load_spec
from tests.conftest import EXAMPLES, ROOT

DIALECTS = ["mssql", "postgres"]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_rendering_is_deterministic_and_headed(dialect):
    spec_path = EXAMPLES[0]
    first = render_spec(load_spec(spec_path), spec_path.name, dialect).files()
    second = render_spec(load_spec(spec_path), spec_path.name, dialect).files()
    assert first == second
    for name, text in first.items():
        header = text.splitlines()[0]
        assert header.startswith("-- qgen ") and spec_path.name in header, (name, header)
        assert not re.search(r"\b20\d\d-\d\d-\d\d\b", text), f"{name} carries a date"


def test_files_follow_dependency_order():
    rendering = render_spec(load_spec(EXAMPLES[4]), EXAMPLES[4].name, "mssql")
    names = [item.filename for item in rendering.objects]
    assert names == sorted(names), "file names must sort in install order"
    kinds = [item.obj.key for item in rendering.objects]
    # complete hands rows to the downstream queue, so that queue's table must exist first
    assert kinds.index("rainfall_transfer.table") < kinds.index("rainfall_events.complete")
    assert kinds.index("rainfall_events.table") < kinds.index("rainfall_events.claim_index")
    assert kinds[0] == "schema" and kinds[-2:] == ["grants", "verify"]


def test_render_check_reports_stale_output_with_a_diff(tmp_path, capsys):
    spec = tmp_path / "emails.yaml"
    spec.write_text("queues:\n  emails:\n    payload:\n      address: string(320)\n")
    out = tmp_path / "out"
    assert main(["render", str(spec), "-o", str(out)]) == 0
    assert main(["render", str(spec), "-o", str(out), "--check"]) == 0

    dequeue = next((out / "mssql").glob("*_emails_dequeue.sql"))
    dequeue.write_text(dequeue.read_text().replace("READPAST", "NOLOCK"))
    (out / "postgres" / "99_leftover.sql").write_text("-- qgen 0.0.0: an object no longer rendered\n")
    capsys.readouterr()
    assert main(["render", str(spec), "-o", str(out), "--check"]) == 1
    report = capsys.readouterr().out
    assert "-" in report and "+" in report and "READPAST" in report and dequeue.name in report
    assert "99_leftover.sql" in report

    # render repairs both: the edited file is rewritten, the leftover removed
    assert main(["render", str(spec), "-o", str(out)]) == 0
    assert main(["render", str(spec), "-o", str(out), "--check"]) == 0
    assert not (out / "postgres" / "99_leftover.sql").exists()


def test_render_leaves_files_it_did_not_write(tmp_path):
    spec = tmp_path / "emails.yaml"
    spec.write_text("queues:\n  emails:\n    payload:\n      address: string(320)\n")
    mine = tmp_path / "out" / "mssql" / "notes.sql"
    mine.parent.mkdir(parents=True)
    mine.write_text("-- my own notes\n")
    assert main(["render", str(spec), "-o", str(tmp_path / "out")]) == 0
    assert mine.read_text() == "-- my own notes\n"


def test_default_output_folder_is_generated_stem(tmp_path, monkeypatch):
    spec = tmp_path / "orders.yaml"
    spec.write_text("dialects: [postgres]\nqueues:\n  orders:\n    payload:\n      order_id: bigint\n")
    monkeypatch.chdir(tmp_path)
    assert main(["render", str(spec)]) == 0
    assert (tmp_path / "generated" / "orders" / "postgres" / "install.sql").exists()
    assert not (tmp_path / "generated" / "orders" / "mssql").exists()


def test_installed_wheel_layout_finds_templates(tmp_path):
    """templates/ ships inside the package as qgen/templates; the renderer must find it there."""
    import qgen.render.engine as render_module

    fake_package = tmp_path / "qgen"
    shutil.copytree(ROOT / "templates", fake_package / "templates")
    original = render_module.__file__
    try:
        render_module.__file__ = str(fake_package / "render" / "engine.py")
        assert render_module.templates_dir() == fake_package / "templates"
    finally:
        render_module.__file__ = original


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("spec_path", EXAMPLES, ids=lambda p: p.stem)
def test_a_fresh_install_carries_no_cleanup_for_older_versions(spec_path, dialect):
    """What an install an older qgen made needs (drop function versions, lease indexes, purge as a
    function; add the watermark's corrected_at) is in upgrade.sql only, never in install.sql."""
    rendering = render_spec(load_spec(spec_path), spec_path.name, dialect)
    for marker in ("earlier qgen", "older qgen", "pronargs", "LIKE '%lease_token%'", "COL_LENGTH", "ADD COLUMN IF NOT EXISTS"):
        assert marker.lower() not in rendering.install.lower(), marker
        assert all(marker.lower() not in item.create.lower() for item in rendering.objects), marker
    if rendering.upgrade:
        assert rendering.files()["upgrade.sql"] == rendering.upgrade and "before install.sql" in rendering.upgrade
