"""Writes a planned revision (planner.py): its module, which Alembic names, places and chains and
qgen writes from revision.py.mako, and its folder (the spec, manifest.json, the SQL files, REVIEW.md)."""

from __future__ import annotations

import datetime
import os
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional

from qgen import __version__
from qgen.migrations.manifest import SPEC_FILE, DialectFiles, Manifest
from qgen.migrations.planner import PlannedRevision, plan_revision
from qgen.migrations.steps import DialectPlan

# The module of a qgen revision (Mako, as Alembic's script.py.mako).
REVISION_TEMPLATE = Path(__file__).parent / "revision.py.mako"
# The revision's review page: what changed in the spec, which objects that changes, what happens to data.
PAGE_FILE = "REVIEW.md"


@dataclass
class RevisionMade:
    path: Path
    folder: Path
    revision: str
    previous: Optional[str]
    plans: dict[str, DialectPlan]


def make_revision(spec_path: str | Path, message: str, config_path: str | Path = "alembic.ini",
                  dialect: str | None = None, allow_drop: list[str] | tuple[str, ...] = ()) -> RevisionMade:
    """Write an Alembic revision that installs the spec (first revision of its schema) or moves the
    database from the schema's previous qgen revision to this spec. Raises RevisionRefused, SpecInvalid,
    or alembic.util.CommandError; writes nothing then."""
    planned = plan_revision(spec_path, config_path, dialect, allow_drop)
    return write_revision(planned, message)


def write_revision(planned: PlannedRevision, message: str) -> RevisionMade:
    """Write the planned revision: its module (Alembic names, places and chains it) and its folder."""
    from alembic import util as alembic_util

    qgen = _docs(planned)
    # Alembic names, places and chains the revision (its file template, version locations, head);
    # its module is then written from qgen's own template, whatever the environment's
    # script.py.mako says: an Alembic environment of the user's own takes qgen revisions as it is.
    script = planned.script_dir.generate_revision(planned.revision, message, head="head", qgen=qgen)  # type: ignore[attr-defined]
    module = Path(script.path)
    folder = module.with_suffix("")
    try:
        alembic_util.template_to_file(
            str(REVISION_TEMPLATE), str(module), "utf-8", up_revision=script.revision,
            down_revision=script.down_revision, branch_labels=None, depends_on=None,
            create_date=datetime.datetime.now(), comma=alembic_util.format_as_comma, message=message, qgen=qgen)
        folder.mkdir()
        (folder / SPEC_FILE).write_text(planned.spec_text, encoding="utf-8", newline="\n")
        (folder / PAGE_FILE).write_text(planned.page(message), encoding="utf-8", newline="\n")
        for plan in planned.plans.values():
            for relative, text in plan.files.items():
                path = folder / relative
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8", newline="\n")
        manifest(planned, message, folder).write(folder)
    except BaseException:
        module.unlink(missing_ok=True)
        shutil.rmtree(folder, ignore_errors=True)
        raise
    previous = planned.previous.revision if planned.previous else None
    return RevisionMade(module, folder, planned.revision, previous, planned.plans)


def manifest(planned: PlannedRevision, message: str, folder: Path) -> Manifest:
    """The planned revision's manifest.json, its paths relative to its folder."""

    def here(path: str) -> str:
        return _relative(path, folder)

    dialects = {name: DialectFiles(
        objects=tuple(replace(entry, create=here(entry.create), drop=entry.drop and here(entry.drop))
                      for entry in plan.objects),
        upgrade=tuple(here(p) for p in plan.upgrade), downgrade=tuple(here(p) for p in plan.downgrade),
        downgrade_notes=tuple(plan.downgrade_notes)) for name, plan in planned.plans.items()}
    previous = planned.previous.revision if planned.previous else None
    return Manifest(__version__, planned.revision, message, str(planned.spec_path), planned.spec.schema, previous,
                    tuple(planned.table_changes), dialects)


def _relative(path: str, folder: Path) -> str:
    """A file a manifest names, relative to the revision's folder: one of its own ("postgres/create/..."),
    or one an earlier revision kept ("../<rev>_<slug>/postgres/create/..."), as `qgen revision` found it."""
    if not os.path.isabs(path):
        return path
    return Path(os.path.relpath(path, folder)).as_posix()


def _docs(planned: PlannedRevision) -> dict:
    """What the revision's module says of itself (revision.py.mako)."""
    spec, previous = planned.spec, planned.previous
    if previous is None:
        summary = (f"First qgen revision of schema {spec.schema}: downgrading past it drops every object it created, "
                   "tables and their jobs included.")
        upgrade_doc = "Create every object of the spec, in dependency order."
        downgrade_doc = "Drop every object, tables and their jobs included: the teardown."
    else:
        table_changes = planned.table_changes
        summary = (f"Follows qgen revision {previous.revision} of the same schema: replaces the objects that changed, "
                   "keeps the tables and their jobs" + ("; " + "; ".join(table_changes) if table_changes else "") + ".")
        upgrade_doc = (f"Create again only the objects whose SQL changed since revision {previous.revision} (and "
                       "those that depend on them), add and remove objects; change tables only as listed above.")
        downgrade_doc = (f"Restore revision {previous.revision}'s versions of those objects; tables keep their jobs "
                         "(an added column stays while it holds values).")
    return {"spec": str(planned.spec_path), "schema": spec.schema, "dialects": list(planned.plans), "summary": summary,
            "upgrade": upgrade_doc, "downgrade": downgrade_doc}
