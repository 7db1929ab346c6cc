"""PostgreSQL's error table: each SQLSTATE (or SQLSTATE class) the server or qgen's own functions
raise, and what it means to a queue (qgen/dialects/error_codes.py)."""

from __future__ import annotations

from qgen.dialects.error_codes import (
    CONNECTION, CONNECTION_CONFIG, DEADLOCK, LOCK_TIMEOUT, CANCELLED, DENIED, DUPLICATE, INSTALL_REFUSED, INVALID, LEASE_LOST, MISSING, NOT_VERIFIED,
    PAST_LIMIT, REFUSED, REPLACED, UNINSTALL_REFUSED, UNKNOWN_HOST, ErrorCode, ErrorTable,
)

ERRORS = ErrorTable(
    {
        "QG001": LEASE_LOST,
        "QG002": REFUSED,
        "QG003": INVALID,
        "QG006": CANCELLED,
        "QG010": PAST_LIMIT,
        "22001": ErrorCode("invalid", INVALID.raises, "a value too long for its column", condition="string_data_right_truncation"),
        "22003": ErrorCode("invalid", INVALID.raises, "a number out of its type's range (integer, bigint)",
                           condition="numeric_value_out_of_range"),
        "2D000": ErrorCode("refused", REFUSED.raises, "invalid transaction termination: purge's or the worker's "
                           "COMMIT inside the caller's transaction"),
        "23505": ErrorCode("duplicate", DUPLICATE.raises, DUPLICATE.about, condition="unique_violation"),
        "42501": ErrorCode("denied", DENIED.raises, DENIED.about, condition="insufficient_privilege"),
        "40P01": ErrorCode("deadlock", None, "deadlock detected: retried", condition="deadlock_detected"),
        "40001": ErrorCode("deadlock", None, DEADLOCK.about, condition="serialization_failure"),
        # psycopg prepares a statement it ran 5 times; once a revision changes the row type of the
        # function it selects from, every run of it fails with this, on a live connection, forever.
        "0A000": ErrorCode("replaced", REPLACED.raises, "cached plan must not change result type: the function's row type "
                           "changed under a prepared statement (a revision): prepared statements forgotten, retried once",
                           condition="feature_not_supported"),
        "55P03": ErrorCode("lock_timeout", LOCK_TIMEOUT.raises, LOCK_TIMEOUT.about, condition="lock_not_available"),
        "42883": ErrorCode("missing", MISSING.raises, "undefined function: not installed, or other parameters",
                           condition="undefined_function"),
        "3F000": ErrorCode("missing", MISSING.raises, "invalid schema name: not installed",
                           condition="invalid_schema_name"),
        "57P01": ErrorCode("connection", CONNECTION.raises, "admin shutdown", condition="admin_shutdown"),
        "57P02": ErrorCode("connection", CONNECTION.raises, "crash shutdown", condition="crash_shutdown"),
        "57P03": ErrorCode("connection", CONNECTION.raises, "cannot connect now", condition="cannot_connect_now"),
        # Refused at connect time (ConnectionConfigError, not retried). libpq does not hand a startup
        # error's SQLSTATE on (psycopg's OperationalError has none): connect_postgres finds it out
        # (startup_refusal) and sets it on the error as qgen_sqlstate.
        "3D000": ErrorCode("connection_config", CONNECTION_CONFIG.raises, "the database does not exist",
                           condition="invalid_catalog_name"),
        "28P01": ErrorCode("connection_config", CONNECTION_CONFIG.raises, "the password was refused (or none was given "
                           "where one is needed)", condition="invalid_password"),
        "28000": ErrorCode("connection_config", CONNECTION_CONFIG.raises, "the login was refused (no such role, or "
                           "pg_hba.conf has no entry for it)", condition="invalid_authorization_specification"),
        **UNKNOWN_HOST,
        "QG020": NOT_VERIFIED,
        "QG021": UNINSTALL_REFUSED,
        "QG022": INSTALL_REFUSED,
    },
    classes={"08": ErrorCode("connection", CONNECTION.raises, "connection exception (SQLSTATE class 08)")},
)
