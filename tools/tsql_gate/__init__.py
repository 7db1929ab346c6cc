"""The T-SQL gate: checks rendered SQL Server scripts without a SQL Server.

Developer tooling, not a user command: it needs Mono (Microsoft's T-SQL parser runs under it, built by
tools/tsql_parser/build.sh) and sqlfluff (the test extra), which qgen's users do not install. The tests
run it over every rendered script (tests/test_tsql_rendered.py, tests/test_tsql_gate.py); by hand,
from the repo root: `python -m tools.tsql_gate FILE.sql...`.

- gate.py: the three gates (Microsoft's parser, sqlfluff, qgen's own checks) and deployment rules.
- rules.py: qgen's semantic rules (what parses but fails under a caller's transaction, RCSI, ...).
- locks.py: the lock-order rule across the procedures that hold or end a lease.
- tokens.py: the tokenizer the rules read.
"""
