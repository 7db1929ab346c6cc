"""The import path that revision modules and env.py files use: kept so that they work unchanged.

Every revision module `qgen revision` writes (qgen/migrations/revision.py.mako), those already committed
in users' projects included, does `from qgen.migrate import run_revision`; the README shows
`from qgen.migrate import qgen_schemas` for an env.py. The code lives in the package qgen.migrations
(planner, writer, manifest, runner); this module only re-exports what those files and the docs use.
"""

from __future__ import annotations

from qgen.migrations import RevisionRefused
from qgen.migrations.manifest import qgen_schemas
from qgen.migrations.planner import PlannedRevision, plan_revision
from qgen.migrations.runner import LockPolicy, RevisionLockTimeout, run_revision
from qgen.migrations.tables import TABLE_SHAPING
from qgen.migrations.writer import RevisionMade, make_revision, write_revision

__all__ = ["LockPolicy", "PlannedRevision", "RevisionLockTimeout", "RevisionMade", "RevisionRefused", "TABLE_SHAPING",
           "make_revision", "plan_revision", "qgen_schemas", "run_revision", "write_revision"]
