"""Render a spec for PostgreSQL into a folder: install.sql, uninstall.sql (scratch helper for the smoke tests)."""

import sys
from pathlib import Path

from qgen.render.engine import render_spec
from qgen.spec.load import load_spec


def render(spec_path: str, out: str) -> tuple[Path, Path]:
    rendering = render_spec(load_spec(spec_path), Path(spec_path).name, "postgres")
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "install.sql").write_text(rendering.install)
    (folder / "uninstall.sql").write_text(rendering.uninstall)
    return folder / "install.sql", folder / "uninstall.sql"


if __name__ == "__main__":
    for path in render(sys.argv[1], sys.argv[2]):
        print(path)
