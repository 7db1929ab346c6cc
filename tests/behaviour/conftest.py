"""The behavioural suite runs every test once per database: see tests/support/backends.py."""

from tests.support.backends import babelfish_gap, backend, dialect, use_spec  # noqa: F401  (fixtures)
