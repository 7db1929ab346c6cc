"""Compiled templates kept on disk between processes (qgen/render/template_cache.py): used only while
a template's source is unchanged, only from a folder that is the user's alone, and never in the way
of rendering when the folder cannot be used."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "001_watermark.yaml"

# Renders the example's PostgreSQL install from the templates in argv[1]; prints it.
RENDER = """
import sys
from pathlib import Path
from qgen.render.engine import render_spec
from qgen.spec import load_spec
print(render_spec(load_spec(sys.argv[2]), "x.yaml", "postgres", Path(sys.argv[1])).install, end="")
"""


def render(templates: Path, cache: str) -> str:
    env = {**os.environ, "QGEN_TEMPLATE_CACHE": cache}
    done = subprocess.run([sys.executable, "-c", RENDER, str(templates), str(EXAMPLE)], env=env, capture_output=True,
                          text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_kept_template_is_used_only_while_its_source_is_the_same(tmp_path):
    templates = tmp_path / "templates"
    shutil.copytree(ROOT / "templates", templates)
    cache = tmp_path / "cache"
    first = render(templates, str(cache))
    kept = sorted(cache.iterdir())
    assert kept, "the first process keeps what it compiled"
    assert render(templates, str(cache)) == first == render(templates, "off")
    peek = templates / "postgres" / "peek.sql.j2"
    peek.write_text(peek.read_text(encoding="utf-8").replace("{% block create %}\n", "{% block create %}\n-- changed\n", 1),
                    encoding="utf-8")
    changed = render(templates, str(cache))
    assert "-- changed\n" in changed and "-- changed\n" not in first, "a changed source is compiled again"


def test_a_folder_others_may_write_to_is_not_used(tmp_path):
    cache = tmp_path / "shared"
    cache.mkdir()
    cache.chmod(0o777)
    render(ROOT / "templates", str(cache))
    assert list(cache.iterdir()) == [], "compiled code is executed when loaded: never from a folder others write"


def test_a_folder_that_cannot_be_made_leaves_rendering_as_it_was(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    assert render(ROOT / "templates", str(blocker / "cache")) == render(ROOT / "templates", "off")
