"""Spec cases as folders, as sqlc keeps them: each tests/cases/<case>/ holds a spec.yaml and what qgen
makes of it, either

- the install script per dialect the spec names (mssql.sql, postgres.sql), rendered as `qgen render`
  renders it (the spec labelled spec.yaml), or
- error.txt: exactly what `qgen check spec.yaml` prints for a refused spec (file:line:column, the
  field's path, what is wrong and what is accepted; the count of errors last).

The five examples take part through generated/<example>/<dialect>/, which `qgen render` writes.
A difference fails with a diff. QGEN_UPDATE_GOLDEN=1 rewrites the expected files instead (and the
examples' generated/ folders) and says which it rewrote; review the change with `git diff` before
committing it. A new case is a folder with a spec.yaml: run once with QGEN_UPDATE_GOLDEN=1.
"""

from __future__ import annotations

import difflib
import os
import warnings
from pathlib import Path

import pytest

from qgen.cli import main
from qgen.render.engine import check_rendering, render_spec, write_rendering
from qgen.spec.load import SpecInvalid, load_spec
from tests.conftest import EXAMPLES, ROOT

CASES = ROOT / "tests" / "cases"
UPDATE = os.environ.get("QGEN_UPDATE_GOLDEN") == "1"
HOW_TO_UPDATE = "QGEN_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_cases.py"
DIALECTS = ["mssql", "postgres"]
ERROR_FILE = "error.txt"


def case_folders() -> list[Path]:
    return sorted(folder for folder in CASES.iterdir() if (folder / "spec.yaml").is_file())


def expect(path: Path, actual: str) -> None:
    """`actual` must be what `path` holds; under QGEN_UPDATE_GOLDEN=1 it is written there instead."""
    expected = path.read_text(encoding="utf-8") if path.is_file() else None
    if expected == actual:
        return
    if UPDATE:
        path.write_text(actual, encoding="utf-8", newline="\n")
        warnings.warn(f"QGEN_UPDATE_GOLDEN: rewrote {path.relative_to(ROOT)}", stacklevel=2)
        return
    if expected is None:
        pytest.fail(f"{path.relative_to(ROOT)} is missing: write it with {HOW_TO_UPDATE}")
    diff = "".join(difflib.unified_diff(expected.splitlines(keepends=True), actual.splitlines(keepends=True),
                                        str(path.relative_to(ROOT)), "rendered now", n=2))
    pytest.fail(f"{path.relative_to(ROOT)} differs from what qgen makes now (if the change is meant, rewrite "
                f"it with {HOW_TO_UPDATE}):\n{diff[:6000]}")


def forget(path: Path) -> None:
    """An expected file the case no longer has: removed under QGEN_UPDATE_GOLDEN=1, else a failure."""
    if not path.exists():
        return
    if UPDATE:
        path.unlink()
        warnings.warn(f"QGEN_UPDATE_GOLDEN: removed {path.relative_to(ROOT)}", stacklevel=2)
        return
    pytest.fail(f"{path.relative_to(ROOT)} is not what this case makes any more: remove it with {HOW_TO_UPDATE}")


def printed_by_check(folder: Path, capsys, monkeypatch) -> tuple[int, str]:
    monkeypatch.chdir(folder)
    capsys.readouterr()
    status = main(["check", "spec.yaml"])
    return status, capsys.readouterr().err


@pytest.mark.parametrize("folder", case_folders(), ids=lambda folder: folder.name)
def test_case(folder, capsys, monkeypatch):
    try:
        spec = load_spec(folder / "spec.yaml")
    except SpecInvalid:
        status, printed = printed_by_check(folder, capsys, monkeypatch)
        assert status == 2, printed
        assert "Traceback" not in printed
        if not UPDATE:
            assert (folder / ERROR_FILE).is_file(), \
                f"{folder.relative_to(ROOT)}: the spec is refused, but the case expects a rendering:\n{printed}"
        expect(folder / ERROR_FILE, printed)
        for dialect in DIALECTS:
            forget(folder / f"{dialect}.sql")
        return
    if not UPDATE:
        assert not (folder / ERROR_FILE).is_file(), \
            f"{folder.relative_to(ROOT)}: the case expects {ERROR_FILE}, but the spec is accepted"
    for dialect in DIALECTS:
        if dialect in spec.dialects:
            expect(folder / f"{dialect}.sql", render_spec(spec, "spec.yaml", dialect).install)
        else:
            forget(folder / f"{dialect}.sql")
    forget(folder / ERROR_FILE)


def test_every_case_folder_has_a_spec():
    strays = [folder.name for folder in CASES.iterdir() if not (folder / "spec.yaml").is_file()]
    assert not strays, f"tests/cases/ folders without a spec.yaml: {strays}"


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("spec_path", EXAMPLES, ids=lambda p: p.stem)
def test_generated_matches_templates(spec_path, dialect):
    """The examples' cases: every example, rendered now, must equal what generated/ holds."""
    rendering = render_spec(load_spec(spec_path), spec_path.name, dialect)
    folder = ROOT / "generated" / spec_path.stem / dialect
    diffs = check_rendering(rendering, folder)
    if diffs and UPDATE:
        write_rendering(rendering, folder)
        warnings.warn(f"QGEN_UPDATE_GOLDEN: rewrote generated/{spec_path.stem}/{dialect}/", stacklevel=1)
        return
    assert not diffs, "".join(diffs) + f"\ngenerated/ is stale: run `qgen render examples/{spec_path.name}`"
