"""Bad specs: each kind of mistake is reported at its line and column, with the field path, what is
wrong and what is accepted; several mistakes are reported together; never a traceback."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from qgen.spec.load import SpecInvalid, load_spec_text
from tests.conftest import ROOT

CASES = ROOT / "tests" / "cases"


def errors_of(text: str) -> list:
    with pytest.raises(SpecInvalid) as caught:
        load_spec_text(textwrap.dedent(text), "spec.yaml")
    return caught.value.errors


MISTAKES = {
    # case (tests/cases/<case>/spec.yaml; tests/test_cases.py holds it to its error.txt too):
    # (line, column, path, words the message must hold)
    "unknown_key_with_a_suggestion": (4, 5, "queues.emails.bach_size", ["unknown key 'bach_size'", "did you mean 'batch_size'", "accepted:"]),
    "bad_type": (4, 16, "queues.emails.payload.address.type", ["'strng(320)' is not a type", "accepted: int, bigint, string(n)"]),
    "decimal_cut_by_a_flow_mapping": (3, 23, "queues.prices.payload.amount.type", ["cut at its comma", "quote it"]),
    "string_too_long": (4, 13, "queues.q.payload.name.type", ["1 to 4000", "text"]),
    "unsafe_queue_name": (2, 3, "queues.'emails; DROP TABLE x'", ["not a safe identifier", "accepted: a letter or _"]),
    "unsafe_column_name": (4, 7, "queues.q.payload.'a]b'", ["not a safe identifier"]),
    "bad_enum": (4, 12, "queues.q.claim", ["'lock' is not accepted", "'lease' or 'delete'"]),
    "bad_duration": (4, 12, "queues.q.lease", ["not a duration", "30s, 5m, 1h, 7d"]),
    "out_of_range": (4, 17, "queues.q.batch_size", ["out of range", "at least 1"]),
    "batch_size_above_the_lock_escalation_cap": (4, 17, "queues.q.batch_size", ["at most 4000"]),
    "max_batch_size_above_the_lock_escalation_cap": (4, 21, "queues.q.max_batch_size", ["at most 4000"]),
    # SQL Server escalates one statement's 5,000 locks on an index to a table lock (qgen/spec/locks.py): a
    # lease queue's row can fill a page alone (last_error), so a claim takes two locks a row.
    "max_batch_size_whose_claim_could_escalate_on_sql_server": (4, 21, "queues.q.max_batch_size", ["escalates to a table lock", "page locks",
                                                "accepted: max_batch_size at most 1999"]),
    "batch_size_whose_claim_could_escalate_on_sql_server": (6, 21, "queues.q.max_batch_size", ["escalates to a table lock", "accepted: max_batch_size at most 3"]),
    "batch_size_above_max_batch_size": (5, 21, "queues.q.max_batch_size", ["batch_size 200 is above max_batch_size 100", "accepted:"]),
    "batch_size_above_the_default_max_batch_size": (4, 17, "queues.q.batch_size", ["above max_batch_size 1000 (the default)", "accepted:"]),
    "missing_payload": (3, 5, "queues.q.payload", ["required key is missing"]),
    "empty_payload": (3, 14, "queues.q.payload", ["at least one"]),
    "reserved_column": (4, 7, "queues.q.payload.lease_token", ["'lease_token' is taken", "a column qgen adds to the queue table"]),
    "reserved_column_in_another_case": (4, 7, "queues.q.payload.Dead_At", ["'dead_at' (names are compared without case)", "the dead-letter table"]),
    "column_named_found": (4, 7, "queues.q.payload.found", ["PL/pgSQL's FOUND"]),
    "outbox_column_named_like_complete_s_parameter": (5, 17, "queues.q.outbox.columns.lease_token", ["complete's parameter"]),
    "in_database_worker_on_a_queue_with_an_outbox": (7, 7, "queues.q.worker", ["worker or outbox, not both"]),
    "outbox_column_named_like_complete_s_no_result": (5, 17, "queues.q.outbox.columns.No_Result", ["says a job hands nothing on"]),
    "payload_column_that_is_the_job_type_s_column": (5, 7, "queues.q.payload.Kind", ["also the name of the job type's column"]),
    "two_columns_that_differ_only_in_case": (5, 7, "queues.q.payload.Addr", ["also the name of the column 'addr'", "without case"]),
    "dedupe_on_a_missing_column": (4, 14, "queues.q.dedupe.key[0]", ["'b' is not a payload column", "accepted: a"]),
    "dedupe_on_a_text_column": (4, 13, "queues.q.dedupe.key[0]", ["cannot be in a unique index"]),
    "watermark_with_priority": (5, 16, "queues.q.watermark", ["needs ordering: fifo"]),
    "lease_option_on_a_delete_queue": (5, 12, "queues.q.retry", ["only claim: lease has retry"]),
    "outbox_to_an_unknown_queue": (4, 21, "queues.q.outbox.queue", ["'nowhere' is not a queue of this spec", "accepted: q"]),
    "duplicate_key": (4, 5, "", ["duplicate key 'payload'", "first at line 3"]),
    "not_yaml": (3, 14, "", ["not valid YAML"]),  # where the unclosed [ opened, not past the file's end
    "bad_dialect": (1, 19, "dialects[1]", ["'oracle' is not accepted", "'mssql' or 'postgres'"]),
    "a_queue_named_like_another_queue_s_dead_letter_table": (4, 3, "queues.jobs_dead", ["the table 'jobs_dead' (queue jobs_dead's table) has the name of the table "
                                        "'jobs_dead' (queue jobs's dead letter table)", "SQL Server", "PostgreSQL"]),
    "a_queue_named_like_another_queue_s_watermark_table": (4, 3, "queues.jobs_watermark", ["has the name of the table 'jobs_watermark' (queue jobs's watermark table)"]),
    "queues_whose_names_differ_only_in_case": (4, 3, "queues.emails", ["the table 'emails' (queue emails's table) has the name of the table 'Emails'",
                                     "compared without case", "more of their names are the same too"]),
    "a_names_override_that_takes_another_object_s_name": (4, 22, "queues.q.names.enqueue", ["the procedure 'Q_Dequeue' (queue q's enqueue) has the name of the procedure "
                                              "'q_dequeue' (queue q's dequeue)"]),
    "a_naming_pattern_that_makes_two_names_one": (5, 3, "queues.adead", ["has the name of the table 'adead' (queue a's dead letter table)"]),
    "a_schema_too_long_for_its_role_names": (1, 9, "schema", ["the role 's23456789_123456789_123456789_123456789_123456789_123456789_12_owner'",
                              "68 bytes long on PostgreSQL", "at most 63", "3 more of its names are too long"]),
    # the owner role is named from the schema too (it was reported at `grants`, which cannot name it)
    "a_role_prefix_too_long_for_its_role_names": (1, 23, "grants.role_prefix", ["_owner'", "68 bytes long on PostgreSQL", "3 more of its names are too long"]),
    "two_roles_that_are_one": (1, 39, "grants.consumer", ["the role 'writers'", "has the name of the role 'Writers'", "role names that differ"]),
    "a_constraint_name_past_sql_server_s_limit": (2, 3, "queues.q23456789_123456789_123456789_123456789_123456789_123456789_123",
        ["_is_json'", "135 characters long on SQL Server", "at most 128"]),
    "a_name_with_a_trailing_newline": (2, 3, "queues.'q\\n'", ["'q\\n' is not a safe identifier"]),
    "a_schema_with_a_trailing_newline": (1, 9, "schema", ["'jobs\\n' is not a safe identifier"]),
    "a_lease_longer_than_an_int_holds": (4, 12, "queues.q.lease", ["'30000d' is 2592000000 seconds", "at most 2147483647 seconds"]),
    "a_retention_longer_than_an_int_holds": (4, 16, "queues.q.retention", ["at most 2147483647 seconds"]),
    "a_backoff_longer_than_an_int_holds": (4, 28, "queues.q.retry.backoff.max", ["at most 2147483647 seconds"]),
    "a_worker_limit_larger_than_an_int_holds": (4, 37, "queues.q.worker.max_items", ["out of range", "at most 2147483647"]),
    "a_lease_of_no_time": (4, 12, "queues.q.lease", ["already expired", "at least 1 second"]),
    "a_schema_postgresql_reserves": (1, 9, "schema", ["PostgreSQL reserves schema names that start with pg_"]),
    "a_schema_sql_server_reserves": (1, 9, "schema", ["catalog schema"]),
    "the_role_everyone_is_in": (1, 20, "grants.producer", ["the producer role 'public'", "grants everyone"]),
    "a_fixed_sql_server_role": (1, 17, "grants.admin", ["fixed SQL Server database role"]),
    "roles_named_after_a_schema_in_postgresql_s_pg_names": (1, 9, "schema", ["the roles named after the schema", "'pg_producer'", "or name the roles in grants"]),
    "an_xml_job_type": (4, 15, "queues.q.job_type.type", ["xml cannot be a job type", "SQL Server (T-SQL) and PostgreSQL"]),
    "a_text_job_type_on_sql_server": (5, 36, "queues.q.job_type.type", ["text cannot be a job type", "on SQL Server"]),
    "a_dedupe_key_past_postgresql_s_index_entry": (4, 13, "queues.q.dedupe.key", ["takes up to 3208 bytes on PostgreSQL", "at most 2700"]),
    "a_job_type_past_postgresql_s_index_entry": (4, 15, "queues.q.job_type.type", ["the claim index takes up to 2812 bytes on PostgreSQL"]),
    "a_flag_for_a_number": (4, 17, "queues.q.batch_size", ["true is not a whole number"]),
    "text_for_a_flag": (4, 12, "queues.q.audit", ["'true' is not accepted", "true or false"]),
    "a_dialect_twice": (1, 29, "dialects[2]", ["'postgres' is listed twice"]),
    "naming_without_placeholders": (1, 9, "naming", ["needs both {queue} and {object}"]),
    "dedupe_ever_with_no_record_of_finished_jobs": (4, 31, "queues.q.dedupe.scope", ["on_complete: delete keeps no record", "dead_letter: false keeps no record",
                                              "accepted: scope: queued, or on_complete: archive or mark with dead_letter: true"]),
    "dedupe_ever_on_a_downstream_queue": (4, 21, "queues.up.outbox.queue", ["'down' has dedupe.scope: ever", "accepted: a downstream queue with dedupe.scope: queued"]),
    "rescan_out_of_range": (4, 25, "queues.q.watermark.rescan", ["out of range", "at least 1"]),
    "wakeup_notify_on_a_sql_server_only_spec": (5, 13, "queues.q.wakeup", ["PostgreSQL's LISTEN/NOTIFY", "@wait_ms", "accepted: wakeup: poll"]),
    "an_unknown_wakeup": (4, 13, "queues.q.wakeup", ["'poll' or 'notify'"]),
    "a_wake_up_channel_past_postgresql_s_63_bytes": (3, 3, "queues.a_queue_name_of_thirty_chars__",
        ["notification channel 'a_schema_name_of_thirty_chars_.a_queue_name_of_thirty_chars___wakeup'", "is 68 bytes",
         "at most 63"]),
    "a_wake_up_channel_named_like_another_queue_s": (5, 29, "queues.q.names.wakeup_channel", ["notification channel 'qgen.r_wakeup'", "has the name of"]),
}


def test_errors_come_in_line_order():
    errors = errors_of("""\
        queues:
          q:
            payload: {a: strng}
            batch_size: 0
        schema: "1bad"
        naming: "{queue}"
        """)
    assert [e.line for e in errors] == sorted(e.line for e in errors) and len(errors) == 3, [str(e) for e in errors]


def test_schema_public_and_dbo_stay_usable():
    for schema in ("public", "dbo"):
        assert load_spec_text(f"schema: {schema}\nqueues:\n  q:\n    payload: {{a: int}}\n").schema == schema


def test_a_yaml_alias_bomb_is_refused_at_once(tmp_path):
    value = "&a [" + ",".join(["lol"] * 9) + "]"
    for previous, name in zip("abcdefgh", "bcdefghi"):
        value = f"&{name} [{value}, " + ", ".join([f"*{previous}"] * 8) + "]"
    spec = tmp_path / "bomb.yaml"
    spec.write_text(f"queues:\n  q:\n    payload: {{a: int}}\n    ordering: {value}\n")  # 9^9 values from 400 bytes
    run = subprocess.run([sys.executable, "-m", "qgen.cli", "check", str(spec)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "expand to more than 100000 values" in run.stderr, run.stderr
    assert len(run.stderr) < 1000


def test_a_message_quotes_at_most_a_little_of_what_it_was_given():
    huge = "x" * 100_000
    errors = errors_of(f"""\
        queues:
          q:
            payload: {{a: int}}
            lease: "{huge} minutes"
            ordering: "{huge}"
        """)
    assert len(errors) == 2 and all(len(str(e)) < 400 for e in errors), [str(e)[:500] for e in errors]


def test_names_only_the_procedures_used_inside_are_free_for_columns():
    # Once reserved because a procedure had a variable or parameter of that name.
    names = ["token", "owner", "error", "limit", "version", "from", "result", "new", "old", "target", "now",
             "existing", "cutoff", "v_token", "v_current", "v_target", "v_cutoff", "v_sequence", "batch_size", "jobs"]
    spec = load_spec_text("queues:\n  q:\n    payload:\n" + "".join(f"      {n}: int\n" for n in names)
                          + "    outbox:\n      columns: {owner: int, error: int, result: int}\n")
    assert list(spec.queues["q"].payload) == names


@pytest.mark.parametrize("case", MISTAKES)
def test_mistake_is_reported_where_it_is(case):
    line, column, path, words = MISTAKES[case]
    errors = errors_of((CASES / case / "spec.yaml").read_text())
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


def test_a_mistake_across_fields_is_reported_with_the_others_at_once():
    """A dedupe key that names no column is found in the same report as a wrong type, an unknown key and
    a wrong value elsewhere (not only once those are fixed), each at its place; a setting taken out for
    the check (the wrong lease) or a column stood in for (the wrong type) is not blamed twice."""
    errors = errors_of(
        """\
        queues:
          mail:
            payload:
              address: strng(320)
              name: string(20)
            lease: 2x
            dedupe: {key: [adress, address]}
            priorty: 3
          sms:
            payload:
              to: string(20)
            claim: delete
            lease: 1m
        """
    )
    assert [(e.line, e.column, e.path) for e in errors] == [
        (4, 16, "queues.mail.payload.address.type"), (6, 12, "queues.mail.lease"),
        (7, 20, "queues.mail.dedupe.key[0]"), (8, 5, "queues.mail.priorty"), (13, 12, "queues.sms.lease")]
    assert "'adress' is not a payload column; accepted: address, name" in errors[2].message
    assert "only claim: lease has lease" in errors[4].message
    # A missing payload leaves nothing sensible to check across fields: only what is wrong is said.
    assert [e.path for e in errors_of("queues:\n  q:\n    dedupe: x\n    lease: 2x\n")] == ["queues.q.payload", "queues.q.lease"]


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
    assert "missing.yaml: cannot read the spec: no such file" in result.stderr
    assert "error in the spec" not in result.stderr, "a file that is not there is not an error in a spec"
    assert "Errno" not in result.stderr


@pytest.mark.parametrize("text, found", [
    ("queues:\n  q:\n    payload:\n", "got nothing (an empty value)"),
    ("queues:\n  q:\n    payload: [a, b]\n", "got a list"),
    ("queues:\n  q: 7\n", "got a whole number (7)"),
    ("queues:\n  q:\n    payload: {a: int}\n    retry: often\n", "got text ('often')"),
])
def test_a_value_of_the_wrong_kind_is_named_in_yaml_words(text, found):
    with pytest.raises(SpecInvalid) as raised:
        load_spec_text(text)
    assert found in str(raised.value), str(raised.value)
    for python_name in ("NoneType", "dict", "str", "int", "list'"):
        assert f"got {python_name}" not in str(raised.value)


def test_minimal_spec_is_a_queue_name_and_one_column():
    spec = load_spec_text("queues:\n  emails:\n    payload:\n      address: string(320)\n")
    queue = spec.queues["emails"]
    assert (queue.claim, queue.batch_size, queue.watermark.enabled, queue.dead_letter) == ("lease", 10, True, True)
    assert spec.dialects == ["mssql", "postgres"] and spec.sqlserver_version == 2017


def test_sqlserver_2016_means_2016_sp1():
    """The T-SQL uses CREATE OR ALTER, which SQL Server 2016 has from SP1 on: `2016` is accepted in
    that sense only, and the key's description (README, JSON Schema) says so."""
    from qgen.spec.model import Spec

    spec = load_spec_text("sqlserver_version: 2016\nqueues:\n  q:\n    payload: {a: int}\n", "spec.yaml")
    assert spec.sqlserver_version == 2016
    assert "2016 means 2016 SP1 or later" in Spec.model_fields["sqlserver_version"].description


def test_a_claim_size_only_sql_server_would_escalate_is_accepted_for_postgresql_alone():
    spec = load_spec_text("dialects: [postgres]\nqueues:\n  q:\n    payload: {a: int}\n    max_batch_size: 4000\n", "s.yaml")
    assert spec.queues["q"].max_batch_size == 4000
def test_grants_role_prefix_names_the_roles_and_is_checked_where_it_is_written():
    """Roles belong to the whole server: a spec may give them a prefix of their own (two databases
    that install the same schema otherwise share its roles)."""
    from qgen.render.engine import render_spec
    from qgen.spec.model import role_name

    base = "schema: app_queues\ngrants:\n  role_prefix: {prefix}\nqueues:\n  q:\n    payload: {{a: int}}\n"
    spec = load_spec_text(base.format(prefix="billing_db"))
    assert [role_name(spec, r) for r in ("producer", "consumer", "admin", "owner")] == [
        "billing_db_producer", "billing_db_consumer", "billing_db_admin", "billing_db_owner"]
    for dialect in ("postgres", "mssql"):
        roles = next(o for o in render_spec(spec, "s.yaml", dialect).objects if o.obj.kind == "roles")
        assert "billing_db_producer, billing_db_consumer, billing_db_admin" in roles.create.splitlines()[0]
        assert "app_queues_producer" not in roles.create
    for prefix, words in (("bad-name", "grants.role_prefix:"), ("pg", "grants.role_prefix: the roles named with this prefix"),
                          ("x" * 60, "grants.role_prefix")):
        with pytest.raises(SpecInvalid) as raised:
            load_spec_text(base.format(prefix=prefix), "s.yaml")
        assert str(raised.value).startswith("s.yaml:3:"), str(raised.value)
        assert words in str(raised.value), str(raised.value)
