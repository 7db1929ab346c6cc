"""`python -m tools.tsql_gate FILE.sql...`: every gate over each script; exit status 1 on a finding."""

import sys

from tools.tsql_gate.gate import main

raise SystemExit(main(sys.argv[1:]))
