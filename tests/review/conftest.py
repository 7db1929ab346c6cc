"""Findings of a sceptical DBA's review of issue 15's changes, each a test: the fixed ones plain
(they failed on the code reviewed), the open ones strict xfails naming what is wrong."""

from tests.support.backends import babelfish_gap, backend, dialect, use_spec  # noqa: F401  (fixtures)
