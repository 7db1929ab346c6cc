"""Regression (the test failed before the fix): a payload key written `null:` (YAML reads it as None)
was reported as `queues.q.payload.None` at the `payload:` line, not at the key's own line and
column, and the message named Python's NoneType rather than what is accepted."""

from __future__ import annotations

import textwrap

import pytest

from qgen.spec.load import SpecInvalid, load_spec_text


def test_a_null_payload_key_is_reported_at_its_own_line_with_what_is_accepted():
    text = textwrap.dedent("""\
        schema: s
        queues:
          q:
            payload:
              a: int
              null: int
        """)
    with pytest.raises(SpecInvalid) as caught:
        load_spec_text(text, "spec.yaml")
    error, = caught.value.errors
    assert (error.line, error.column) == (6, 7), str(error)
    assert "None" not in str(error) and "accepted" in str(error), str(error)
