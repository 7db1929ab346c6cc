"""Review findings pinned as strict xfails: each test fails on today's code and must pass once fixed."""

from tests.support.backends import backend, dialect, use_spec  # noqa: F401  (fixtures)
