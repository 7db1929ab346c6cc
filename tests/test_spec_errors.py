"""Bad specs: each kind of mistake is reported at its line and column, with the field path, what is
wrong and what is accepted; several mistakes are reported together; never a traceback."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from qgen.specload import SpecInvalid, load_spec_text


def errors_of(text: str) -> list:
    with pytest.raises(SpecInvalid) as caught:
        load_spec_text(textwrap.dedent(text), "spec.yaml")
    return caught.value.errors


MISTAKES = {
    # name: (spec, line, column, path, words the message must hold)
    "unknown key with a suggestion": (
        """\
        queues:
          emails:
            payload: {address: string(320)}
            bach_size: 10
        """, 4, 5, "queues.emails.bach_size", ["unknown key 'bach_size'", "did you mean 'batch_size'", "accepted:"]),
    "bad type": (
        """\
        queues:
          emails:
            payload:
              address: strng(320)
        """, 4, 16, "queues.emails.payload.address.type", ["'strng(320)' is not a type", "accepted: int, bigint, string(n)"]),
    "decimal cut by a flow mapping": (
        """\
        queues:
          prices:
            payload: {amount: decimal(10,2)}
        """, 3, 23, "queues.prices.payload.amount.type", ["cut at its comma", "quote it"]),
    "string too long": (
        """\
        queues:
          q:
            payload:
              name: string(9000)
        """, 4, 13, "queues.q.payload.name.type", ["1 to 4000", "text"]),
    "unsafe queue name": (
        """\
        queues:
          "emails; DROP TABLE x":
            payload: {a: int}
        """, 2, 3, "queues.emails; DROP TABLE x", ["not a safe identifier", "accepted: a letter or _"]),
    "unsafe column name": (
        """\
        queues:
          q:
            payload:
              "a]b": int
        """, 4, 7, "queues.q.payload.a]b", ["not a safe identifier"]),
    "bad enum": (
        """\
        queues:
          q:
            payload: {a: int}
            claim: lock
        """, 4, 12, "queues.q.claim", ["'lock' is not accepted", "'lease' or 'delete'"]),
    "bad duration": (
        """\
        queues:
          q:
            payload: {a: int}
            lease: 5 minutes
        """, 4, 12, "queues.q.lease", ["not a duration", "30s, 5m, 1h, 7d"]),
    "out of range": (
        """\
        queues:
          q:
            payload: {a: int}
            batch_size: 0
        """, 4, 17, "queues.q.batch_size", ["out of range", "at least 1"]),
    "missing payload": (
        """\
        queues:
          q:
            claim: lease
        """, 3, 5, "queues.q.payload", ["required key is missing"]),
    "empty payload": (
        """\
        queues:
          q:
            payload: {}
        """, 3, 14, "queues.q.payload", ["at least one"]),
    "reserved column": (
        """\
        queues:
          q:
            payload:
              lease_token: uuid
        """, 4, 7, "queues.q.payload.lease_token", ["taken by a column or parameter qgen adds"]),
    "dedupe on a missing column": (
        """\
        queues:
          q:
            payload: {a: int}
            dedupe: [b]
        """, 4, 14, "queues.q.dedupe.key[0]", ["'b' is not a payload column", "accepted: a"]),
    "dedupe on a text column": (
        """\
        queues:
          q:
            payload: {a: text}
            dedupe: a
        """, 4, 13, "queues.q.dedupe.key[0]", ["cannot be in a unique index"]),
    "watermark with priority": (
        """\
        queues:
          q:
            payload: {a: int}
            ordering: priority
            watermark: true
        """, 5, 16, "queues.q.watermark", ["needs ordering: fifo"]),
    "lease option on a delete queue": (
        """\
        queues:
          q:
            payload: {a: int}
            claim: delete
            retry: {max_attempts: 3}
        """, 5, 12, "queues.q.retry", ["only claim: lease has retry"]),
    "outbox to an unknown queue": (
        """\
        queues:
          q:
            payload: {a: int}
            outbox: {queue: nowhere}
        """, 4, 21, "queues.q.outbox.queue", ["'nowhere' is not a queue of this spec", "accepted: q"]),
    "duplicate key": (
        """\
        queues:
          q:
            payload: {a: int}
            payload: {b: int}
        """, 4, 5, "", ["duplicate key 'payload'", "first at line 3"]),
    "not yaml": (
        """\
        queues:
          q:
            payload: [a: int
        """, 4, 1, "", ["not valid YAML"]),
    "bad dialect": (
        """\
        dialects: [mssql, oracle]
        queues:
          q:
            payload: {a: int}
        """, 1, 19, "dialects[1]", ["'oracle' is not accepted", "'mssql' or 'postgres'"]),
    "naming without placeholders": (
        """\
        naming: "{queue}"
        queues:
          q:
            payload: {a: int}
        """, 1, 9, "naming", ["needs both {queue} and {object}"]),
    "dedupe ever with no record of finished jobs": (
        """\
        queues:
          q:
            payload: {a: int}
            dedupe: {key: [a], scope: ever}
            dead_letter: false
            on_complete: delete
        """, 4, 31, "queues.q.dedupe.scope", ["on_complete: delete keeps no record", "dead_letter: false keeps no record",
                                              "accepted: scope: queued, or on_complete: archive or mark with dead_letter: true"]),
    "dedupe ever on a downstream queue": (
        """\
        queues:
          up:
            payload: {a: int}
            outbox: {queue: down}
          down:
            payload: {a: int}
            dedupe: {key: [a], scope: ever}
            on_complete: mark
        """, 4, 21, "queues.up.outbox.queue", ["'down' has dedupe.scope: ever", "accepted: a downstream queue with dedupe.scope: queued"]),
    "rescan out of range": (
        """\
        queues:
          q:
            payload: {a: int}
            watermark: {rescan: 0s}
        """, 4, 25, "queues.q.watermark.rescan", ["out of range", "at least 1"]),
}


@pytest.mark.parametrize("name", MISTAKES)
def test_mistake_is_reported_where_it_is(name):
    text, line, column, path, words = MISTAKES[name]
    errors = errors_of(text)
    matching = [e for e in errors if e.path == path]
    assert matching, f"no error at {path!r}; got: {[str(e) for e in errors]}"
    error = matching[0]
    assert (error.line, error.column) == (line, column), str(error)
    assert error.file == "spec.yaml"
    for word in words:
        assert word in error.message, f"{word!r} not in {error.message!r}"


def test_several_mistakes_are_reported_together():
    errors = errors_of(
        """\
        queues:
          q:
            payload:
              a: strng
            bach_size: 3
            claim: lock
        """
    )
    assert {e.path for e in errors} == {"queues.q.payload.a.type", "queues.q.bach_size", "queues.q.claim"}
    assert sorted((e.path, e.line) for e in errors) == [
        ("queues.q.bach_size", 5), ("queues.q.claim", 6), ("queues.q.payload.a.type", 4)]


def test_cli_reports_errors_without_a_traceback(tmp_path):
    spec = tmp_path / "bad.yaml"
    spec.write_text("queues:\n  q:\n    payload: {a: int}\n    bach_size: 3\n")
    for command in (["check"], ["render"]):
        result = subprocess.run([sys.executable, "-m", "qgen.cli", *command, str(spec)], capture_output=True, text=True)
        assert result.returncode == 2
        assert f"{spec}:4:5: queues.q.bach_size: unknown key 'bach_size'" in result.stderr
        assert "Traceback" not in result.stderr + result.stdout
        assert "1 error in the spec" in result.stderr


def test_cli_unreadable_spec_is_a_clear_error(tmp_path):
    result = subprocess.run([sys.executable, "-m", "qgen.cli", "check", str(tmp_path / "missing.yaml")],
                            capture_output=True, text=True)
    assert result.returncode == 2 and "cannot read the spec" in result.stderr and "Traceback" not in result.stderr


def test_minimal_spec_is_a_queue_name_and_one_column():
    spec = load_spec_text("queues:\n  emails:\n    payload:\n      address: string(320)\n")
    queue = spec.queues["emails"]
    assert (queue.claim, queue.batch_size, queue.watermark.enabled, queue.dead_letter) == ("lease", 10, True, True)
    assert spec.dialects == ["mssql", "postgres"] and spec.sqlserver_version == 2017
