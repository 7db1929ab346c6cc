"""The concurrency tests run once per database, on the behavioural suite's backends
(tests/support/backends.py): PostgreSQL here, SQL Server when QGEN_TEST_MSSQL_URL is set."""

from tests.support.backends import babelfish_gap, backend, dialect, use_spec  # noqa: F401  (fixtures)
