"""The model-based test runs on the behavioural suite's backends (tests/support/backends.py):
PostgreSQL here, and its single-session part on SQL Server when QGEN_TEST_MSSQL_URL is set."""

from tests.support.backends import babelfish_gap, backend, dialect, use_spec  # noqa: F401  (fixtures)
