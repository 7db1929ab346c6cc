"""Compiled templates kept on disk between processes (qgen/render/template_cache.py): used only while
a template's source is unchanged, only from a folder that is the user's alone, and never in the way
of rendering when the folder cannot be used."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from jinja2.bccache import bc_magic

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


MAGIC = len(bc_magic)  # Jinja's header: its bytecode version and Python's


def _truncated(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _cut_in_checksum(data: bytes) -> bytes:
    return data[: MAGIC + 3]


def _garbage_checksum(data: bytes) -> bytes:
    return data[:MAGIC] + b"\x80\x04\x95garbage" + data[MAGIC + 10:]


# Ways a kept file is found damaged: a write cut short (disk full, a killed process) anywhere, an empty
# file, bytes changed after the header.
DAMAGE = {"truncated": _truncated, "cut in its checksum": _cut_in_checksum, "empty": lambda data: b"",
          "checksum garbled": _garbage_checksum}


def test_a_damaged_kept_file_is_compiled_again_not_a_traceback(tmp_path):
    fresh = render(ROOT / "templates", "off")
    for kind, damage in DAMAGE.items():
        cache = tmp_path / kind.replace(" ", "_")
        render(ROOT / "templates", str(cache))
        for kept in cache.iterdir():
            kept.write_bytes(damage(kept.read_bytes()))
        assert render(ROOT / "templates", str(cache)) == fresh, kind


# Compiles every template of the example into the cache folder with one Environment option changed.
COMPILE_OTHERWISE = """
import sys
from pathlib import Path
import jinja2
from qgen.render import engine
real = jinja2.Environment
def other(*args, **kwargs):
    kwargs["trim_blocks"] = False
    return real(*args, **kwargs)
engine.jinja2.Environment = other
from qgen.spec import load_spec
engine.render_spec(load_spec(sys.argv[1]), "x.yaml", "postgres")
"""


def test_a_template_kept_by_an_environment_with_other_options_is_not_used(tmp_path):
    cache = tmp_path / "cache"
    env = {**os.environ, "QGEN_TEMPLATE_CACHE": str(cache)}
    done = subprocess.run([sys.executable, "-c", COMPILE_OTHERWISE, str(EXAMPLE)], env=env, capture_output=True,
                          text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert list(cache.iterdir()), "the other environment kept what it compiled"
    assert render(ROOT / "templates", str(cache)) == render(ROOT / "templates", "off")
