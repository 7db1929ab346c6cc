"""`python -m qgen.cli`: the qgen command (what the tests run, without the installed script)."""

from qgen.cli import main

raise SystemExit(main())
