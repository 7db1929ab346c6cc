"""Alembic revisions made from a spec: `qgen revision` writes them; their upgrade() and downgrade() run them.

A revision is immutable: the SQL it runs is rendered when it is made and kept next to its module, in a
folder named like it (migrations/versions/<rev>_<slug>/):

    spec.yaml                    the spec, as it was
    manifest.json                per dialect: every object and the file that holds its SQL now, and the
                                 files upgrade and downgrade run, in order
    <dialect>/create/NN_x.sql    the create script of each object this revision writes, as `qgen render` does
    <dialect>/drop/NN_x.sql      its drop script, when that changed too
    <dialect>/change/, revert/   table changes (add or drop a column, storage) and their reversal
    REVIEW.md                    what changed in the spec, which objects that changes, what happens to data

The modules, in the order a revision lives through them:

    planner.py    what a revision holds and runs for each database (plan_revision), refused when a
                  change cannot be made safely (RevisionRefused); tables.py: what it does to tables
                  that hold jobs; steps.py: what a plan is made of
    writer.py     writes the planned revision: its module (revision.py.mako) and its folder
    manifest.py   manifest.json as data (Manifest), and the revisions before this one (find_previous)
    runner.py     what the revision module's upgrade() and downgrade() call (run_revision): the files
                  in order, under a lock timeout, tried again while another session holds a lock

The first revision of a schema writes and installs every object; downgrading past it drops them all,
tables and the jobs in them included: that is the teardown (its first file sets qgen.force_uninstall,
which uninstall's guard, the verify object's drop, requires before it lets a table with rows go).
Every file of a revision begins with the dialect's session block (templates/<dialect>/script.sql.j2).

A later revision for the same schema (one that follows it in the chain) holds only what changed, like
a commit: an object whose rendered SQL is the same is not written again; the manifest points at the
file of the revision that last wrote it ("../<rev>_<slug>/postgres/create/..."), and the upgrade does
not touch it. Its upgrade, without losing jobs:

- drops (with the previous version's own drop script) and creates again the objects whose SQL
  changed, and those that depend on one of them (a procedure that takes a table type created again);
  unchanged queues and unchanged objects are left alone;
- creates the objects the spec adds, drops those it removes;
- runs the grants again (GRANT only) when it created objects, which come without their grants;
- creates (runs) verify, install's closing check; its drop, uninstall's guard, runs only in the teardown;
- never re-creates tables that hold jobs or results (queue, dead-letter, archive, outbox): it adds
  the spec's new payload columns (which must be nullable) and drops columns only when
  `--allow-drop QUEUE.COLUMN` says so. When the templates now give such a table other storage
  parameters than the previous revision created it with (PostgreSQL's WITH (...): the dialect's
  table_storage) and nothing else, the revision sets them in place (table_storage.sql.j2). Any other
  change to such a table (a column's type, the claim mode, ...) is refused with what to do instead.

Installs that older qgen versions made need no cleanup of their own here: the previous revision's
drop scripts are the ones that older qgen wrote, so they drop exactly what it created (a function
under its old parameter list, purge as a function, an index over the lease).

Its downgrade drops the new code, reverses the column changes (an added column goes only while no
row has a value in it; a dropped one comes back empty and nullable), sets the storage parameters it
changed back, drops a table it added only while it is empty, and creates the earlier revision's
objects again from the files that revision (or one before it) keeps.

Python decides what runs in which order; every line of SQL comes from templates/ (the object
templates, and add_column, drop_column, drop_table_if_empty and table_storage for table changes).

Any Alembic environment takes qgen revisions: the one `qgen init` writes (qgen/project/), or one the
user already has. Alembic names and chains the revision; its module comes from revision.py.mako and
calls run_revision (through qgen.migrate, the import path revision modules keep), which needs nothing
of env.py but a connection (online) or a dialect (offline, --sql). An env.py that autogenerates across
schemas leaves qgen's out (qgen_schemas).
"""

from __future__ import annotations


class RevisionRefused(Exception):
    """The spec change cannot be made safely as a revision; each problem says what to do instead."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


def has_sql(text: str) -> bool:
    """Does a script hold a statement (a line that is neither blank nor a whole-line comment)?"""
    return any(line.strip() and not line.lstrip().startswith("--") for line in text.splitlines())
