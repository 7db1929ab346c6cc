"""Hostile and odd specs through the CLI, as a user sees them (issue 15, items 16-17): every mistake
located (file:line:col and the field's path), said clearly with what is accepted, never a traceback
and never a raw database error later."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def check(tmp_path: Path, text: str | bytes) -> subprocess.CompletedProcess:
    spec = tmp_path / "spec.yaml"
    spec.write_bytes(text if isinstance(text, bytes) else text.encode())
    result = subprocess.run([sys.executable, "-m", "qgen.cli", "check", str(spec)], capture_output=True, text=True,
                            cwd=tmp_path)
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
    return result


def refused(tmp_path: Path, text: str | bytes, where: str) -> str:
    """The one error line the CLI prints at `where` (line:col: path), exit status 2."""
    result = check(tmp_path, text)
    assert result.returncode == 2, (result.stdout, result.stderr)
    spec = str(tmp_path / "spec.yaml")
    lines = [line for line in result.stderr.splitlines() if line.startswith(f"{spec}:{where}")]
    assert lines, f"no error at {where}:\n{result.stderr}"
    return lines[0]


def test_a_dedupe_key_naming_a_column_twice_is_refused_where_it_is(tmp_path):
    # SQL Server refuses a column twice in an index key (Msg 1911): the spec must not pass check.
    line = refused(tmp_path, "queues:\n  q:\n    payload:\n      a: int\n    dedupe: [a, a]\n",
                   "5:17: queues.q.dedupe.key[1]:")
    assert "'a' is already in the key" in line and "accepted: each column once" in line
    line = refused(tmp_path, "queues:\n  q:\n    payload: {a: int, b: int}\n    dedupe:\n      key:\n        - a\n"
                   "        - b\n        - a\n", "8:11: queues.q.dedupe.key[2]:")
    assert "dedupe.key[0]" in line
