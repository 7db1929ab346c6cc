"""Hostile and odd specs through the CLI, as a user sees them: every mistake
located (file:line:col and the field's path), said clearly with what is accepted, never a traceback
and never a raw database error later."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT


def case(name: str) -> bytes:
    """The spec of a case in tests/cases/ (tests/test_cases.py holds it to its error.txt too)."""
    return (ROOT / "tests" / "cases" / name / "spec.yaml").read_bytes()


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
    line = refused(tmp_path, case("dedupe_key_naming_a_column_twice"),
                   "5:17: queues.q.dedupe.key[1]:")
    assert "'a' is already in the key" in line and "accepted: each column once" in line
    line = refused(tmp_path, case("dedupe_key_naming_a_column_twice_in_a_block_list"), "8:11: queues.q.dedupe.key[2]:")
    assert "dedupe.key[0]" in line


@pytest.mark.parametrize("key, kind, shown", [("null", "null", "null"), ("~", "null", "'~'"), ("true", "bool", "true"),
                                              ("yes", "bool", "yes"), ("1.5", "float", "'1.5'"), ("7", "int", "7")])
def test_a_key_yaml_reads_as_something_else_than_text_is_located_at_the_key(tmp_path, key, kind, shown):
    # `null:` was reported as payload.None, at the line of `payload:`.
    line = refused(tmp_path, f"queues:\n  q:\n    payload:\n      a: int\n      {key}: int\n",
                   f"5:7: queues.q.payload.{shown}:")
    assert f"read by YAML as {kind}, not as text" in line and f"quote it, '{key}'" in line


def test_a_merge_key_is_still_a_merge(tmp_path):
    result = check(tmp_path, case("a_merge_key_is_still_a_merge"))
    assert "'<<'" not in result.stderr and "x-defaults" in result.stderr  # only the unknown top-level key


def test_a_long_schema_blames_the_schema_for_the_owner_role_not_a_grants_key_the_spec_lacks(tmp_path):
    schema = "s" * 63
    line = refused(tmp_path, case("a_long_schema_and_its_owner_role"), "1:9: schema:")
    assert f"'{schema}_owner'" in line and "owns the queues' objects" in line and "more of its names" in line
    result = check(tmp_path, case("a_long_schema_and_its_owner_role"))
    assert "grants" not in result.stderr, result.stderr
    assert result.stderr.count(": schema:") == 1, "one error for the one field"


def test_a_role_named_like_the_owner_role_says_which_roles_clash(tmp_path):
    line = refused(tmp_path, case("a_role_named_like_the_owner_role"),
                   "3:13: grants.producer:")
    assert "(the producer role)" in line and "owns the queues' objects" in line


@pytest.mark.parametrize("character", ["\x00", "\x07", "\x1b"])
def test_a_control_character_in_the_file_is_a_located_error_not_a_traceback(tmp_path, character):
    line = refused(tmp_path, f"queues:\n  q:\n    payload:\n      a: int{character}\n".encode(), "4:13: ")
    assert f"the character {ord(character):#06x} is not allowed" in line
