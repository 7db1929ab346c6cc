"""SQL Server's error table: each error number (and SQLSTATE) the server, its ODBC drivers or qgen's
own procedures raise, and what it means to a queue (qgen/dialects/error_codes.py); and the codes of a
pyodbc error, read from its diagnostic records, never from its text."""

from __future__ import annotations

import re
from typing import Optional

from qgen.dialects.error_codes import (
    CONNECTION, CONNECTION_CONFIG, DEADLOCK, LOCK_TIMEOUT, CANCELLED, DENIED, DUPLICATE, INSTALL_REFUSED, INVALID, LEASE_LOST, MAINTAIN_FAILED, MISSING,
    NOT_VERIFIED, PAST_LIMIT, REFUSED, UNINSTALL_REFUSED, UNKNOWN_HOST, ErrorCode, ErrorTable,
)


def _lost(about: str) -> ErrorCode:
    return ErrorCode("connection", CONNECTION.raises, about)


ERRORS = ErrorTable(
    {
        50000: UNINSTALL_REFUSED,  # RAISERROR with a message (uninstall's guard)
        50001: LEASE_LOST,
        50002: DUPLICATE,
        50003: INVALID,
        50004: ErrorCode("refused", REFUSED.raises, "qgen: purge inside the caller's transaction or implicit transactions"),
        50005: REFUSED,
        50006: CANCELLED,
        50010: PAST_LIMIT,
        8152: ErrorCode("invalid", INVALID.raises, "string or binary data would be truncated (an insert past a column's length)"),
        2628: ErrorCode("invalid", INVALID.raises, "string or binary data would be truncated in a named column"),
        8115: ErrorCode("invalid", INVALID.raises, "arithmetic overflow converting a value to a parameter's or column's type "
                        "(a bigint past its range; a decimal with more digits before the point than its parameter holds)"),
        50020: NOT_VERIFIED,
        50022: ErrorCode("install_refused", INSTALL_REFUSED.raises,
                         "qgen install refused: the schema's owner is not a user (maintain's EXECUTE AS OWNER cannot impersonate it)"),
        50024: ErrorCode("uninstall_refused", UNINSTALL_REFUSED.raises,
                         "qgen uninstall refused, before dropping anything: objects that are not qgen's use qgen's objects"),
        50030: MAINTAIN_FAILED,
        50031: ErrorCode("install_refused", INSTALL_REFUSED.raises,
                         "schedule.sql refused, before the job is made: the Agent operator it names does not exist"),
        2601: ErrorCode("duplicate", DUPLICATE.raises, "duplicate key row in a unique index"),
        2627: ErrorCode("duplicate", DUPLICATE.raises, "violation of a PRIMARY KEY or UNIQUE constraint"),
        229: ErrorCode("denied", DENIED.raises, "permission denied on an object"),
        230: ErrorCode("denied", DENIED.raises, "permission denied on a column"),
        2812: ErrorCode("missing", MISSING.raises, "could not find stored procedure"),
        2715: ErrorCode("missing", MISSING.raises, "no such type (the batch table type)"),
        8144: ErrorCode("missing", MISSING.raises, "too many arguments: an older install"),
        8145: ErrorCode("missing", MISSING.raises, "no such parameter: an older install"),
        1222: ErrorCode("lock_timeout", LOCK_TIMEOUT.raises, "lock request time out period exceeded (SET LOCK_TIMEOUT)"),
        1205: ErrorCode("deadlock", None, "chosen as the deadlock victim: retried"),
        "40001": DEADLOCK,  # the SQLSTATE a deadlock victim's record carries
        # Refused at connect time (ConnectionConfigError, not retried; the driver's record of SQLSTATE
        # class 08 that comes with them is weaker).
        911: ErrorCode("connection_config", CONNECTION_CONFIG.raises, "the database does not exist"),
        4060: ErrorCode("connection_config", CONNECTION_CONFIG.raises, "cannot open the database the login names"),
        18456: ErrorCode("connection_config", CONNECTION_CONFIG.raises, "login failed (user or password)"),
        **UNKNOWN_HOST,  # FreeTDS says 20009 for it as for a server that does not answer: looked up again
        233: _lost("no process on the other end of the pipe"),
        10053: _lost("the connection was aborted by the host"),
        10054: _lost("the connection was reset by the peer"),
        40613: _lost("Azure SQL Database: the database is unavailable"),
        40197: _lost("Azure SQL Database: the service failed processing the request"),
        40501: _lost("Azure SQL Database: the service is busy"),
    },
    classes={"08": _lost("connection exception (SQLSTATE class 08; FreeTDS reports a dropped socket as 08S01)")},
)

# pyodbc writes a driver error's diagnostic records into its message as "[SQLSTATE] text (native
# error) (ODBC function)" for the first record, then "; [SQLSTATE] text (native error)" for each
# further one (pyodbc's errors.cpp; FreeTDS's text starts "[FreeTDS][SQL Server]", and its native
# error is the server's error number). The text is the server's and may say anything: a value it
# quotes (a dedupe key in error 2601, a handler's own message) can hold "(50001); [42000] " or a
# whole first-record trailer. So only what no text can move is read: the message's end, which is
# the last record's trailer (" (native) (function)" when there is one record: then that is all),
# and the first record's trailer when it is the only place in the message shaped like one. A middle
# record's bounds cannot be told from its text: its number is not read.
_PYODBC_START = re.compile(r"\[[0-9A-Z]{5}\] ")
_PYODBC_ONE_RECORD = re.compile(r" \((-?[0-9]+)\) \(SQL\w+\)\Z")
_PYODBC_LAST = re.compile(r" \((-?[0-9]+)\)\Z")
_PYODBC_FIRST_TRAILER = re.compile(r" \((-?[0-9]+)\) \(SQL\w+\)(?=; \[[0-9A-Z]{5}\] )")


def pyodbc_codes(exc: BaseException) -> tuple[Optional[str], set[int]]:
    """(SQLSTATE, SQL Server native error numbers) of a pyodbc error: the first record's SQLSTATE
    (pyodbc's args[0]) and the numbers of the records whose bounds no server text can forge."""
    args: tuple = getattr(exc, "args", ())
    state = args[0] if args and isinstance(args[0], str) and len(args[0]) == 5 else None
    text = args[1] if len(args) > 1 and isinstance(args[1], str) else ""
    if not _PYODBC_START.match(text):
        return state, set()
    one = _PYODBC_ONE_RECORD.search(text)
    if one is not None:  # a further record ends in a number, never in the function's name
        return state, {int(one.group(1))}
    last = _PYODBC_LAST.search(text)
    first = _PYODBC_FIRST_TRAILER.findall(text)
    numbers = {int(last.group(1))} if last is not None else set()
    if last is not None and len(first) == 1:
        numbers.add(int(first[0]))
    return state, numbers
