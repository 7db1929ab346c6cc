"""What a revision holds and runs for each database (plan_revision), worked out before anything is
written: the first revision of a schema installs every object (its downgrade is the teardown); one that
follows an earlier revision of the schema re-creates only the objects whose SQL changed (and what depends
on them) and changes tables in place (tables.py), or is refused (RevisionRefused)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from qgen import dialects
from qgen.spec.catalog import DbObject
from qgen.migrations import RevisionRefused, has_sql
from qgen.migrations.manifest import ObjectEntry, Previous, StoredObject, find_previous
from qgen.migrations.steps import DialectPlan, Steps, body, header
from qgen.migrations.tables import DATA_TABLES, STATE_TABLES, column_changes, plan_kept_tables, render_change
from qgen.render.engine import Rendering, render_spec
from qgen.spec.model import Spec
from qgen.spec.load import load_spec

# Run by every revision that creates objects (install ends with it); their drop block is uninstall's
# guard against dropping tables with jobs, so only the teardown runs it, never a revision that follows.
CHECKS = ("verify",)


@dataclass
class PlannedRevision:
    """What `qgen revision` would write, worked out and checked, nothing written yet."""

    spec_path: Path
    spec: Spec
    spec_text: str
    revision: str
    previous: Previous | None
    plans: dict[str, DialectPlan]
    script_dir: object

    @property
    def table_changes(self) -> list[str]:
        return sorted({c for plan in self.plans.values() for c in plan.changes}, key=lambda c: (c.split()[0], c))

    def page(self, message: str, dry_run: bool = False) -> str:
        """The revision's review page (REVIEW.md in its folder; `qgen revision --dry-run` prints it)."""
        from qgen.render.review import revision_page

        return revision_page(self, message, dry_run)


def plan_revision(spec_path: str | Path, config_path: str | Path = "alembic.ini", dialect: str | None = None,
                  allow_drop: list[str] | tuple[str, ...] = ()) -> PlannedRevision:
    """Work out the revision `qgen revision` would write for the spec, and refuse it (RevisionRefused)
    when it cannot be made safely. Writes nothing. Raises RevisionRefused, SpecInvalid or
    alembic.util.CommandError."""
    from alembic import util as alembic_util
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    spec_path = Path(spec_path)
    spec = load_spec(spec_path)
    spec_text = spec_path.read_text(encoding="utf-8")
    dialects = list(spec.dialects) if dialect in (None, "all") else [dialect]
    if dialect not in (None, "all") and dialect not in spec.dialects:
        raise RevisionRefused([f"the spec renders for {', '.join(spec.dialects)}, not {dialect}"])
    config_path = Path(config_path)
    if not config_path.is_file():
        raise RevisionRefused([f"no Alembic configuration at {config_path}: run `qgen init` to make an Alembic "
                               "environment here, or pass -c PATH (the alembic.ini of your project's environment)"])
    script_dir = ScriptDirectory.from_config(Config(str(config_path)))
    script_dir.get_current_head()  # one head, or alembic's own error about several
    previous = find_previous(script_dir, spec.schema)
    problems: list[str] = []
    allowed, used = set(allow_drop), set[str]()
    changes: dict = {}
    if previous is not None:
        missing = [d for d in dialects if d not in previous.manifest.dialects]
        if missing:
            problems.append(f"revision {previous.revision} (schema {spec.schema}) has no SQL for {', '.join(missing)}; "
                            f"make this one with --dialect {' / '.join(previous.manifest.dialects)}")
            dialects = [d for d in dialects if d not in missing]
        changes, found = column_changes(previous.spec, spec, allowed, used)
        problems += found
    revision = alembic_util.rev_id()
    plans = {}
    for name in dialects:
        rendering = render_spec(spec, spec_path.name, name)
        plans[name] = plan_dialect(name, revision, spec_path.name, spec, rendering, previous, changes, allowed, used)
        problems += [p for p in plans[name].problems if p not in problems]
    if previous is not None and plans and all(plan.same_as_previous for plan in plans.values()):
        problems.append(f"nothing changed since revision {previous.revision}: every object renders the SQL it "
                        "already has; no revision is needed.")
    for flag in sorted(allowed - used):
        problems.append(f"--allow-drop {flag}: this revision drops no such column or table "
                        "(columns are QUEUE.COLUMN, tables are their name in the schema)")
    if problems:
        raise RevisionRefused(problems)
    return PlannedRevision(spec_path, spec, spec_text, revision, previous, plans, script_dir)


def plan_dialect(dialect: str, revision: str, label: str, spec: Spec, rendering: Rendering,
                 previous: Previous | None, changes: dict, allow_drop: set[str], used: set[str]) -> DialectPlan:
    """Which files the revision holds for one database, and which of them (or of the revisions before
    it) its upgrade and downgrade run, in order."""
    if previous is None:
        return _plan_install(dialect, revision, label, spec, rendering)
    return _FollowOn(dialect, revision, label, spec, rendering, previous, allow_drop, used).make(changes)


def _plan_install(dialect: str, revision: str, label: str, spec: Spec, rendering: Rendering) -> DialectPlan:
    """The first revision of a schema: every object's create and drop file; upgrade creates them all,
    downgrade is the teardown."""
    plan = DialectPlan()
    for item in rendering.objects:
        create_path, drop_path = _write_object(plan, dialect, revision, label, spec, rendering, item)
        plan.objects.append(_entry(item.obj, create_path, drop_path))
        if has_sql(item.create):
            plan.upgrade.append(create_path)
    # Downgrading past the first revision is the documented teardown: it drops the tables with
    # their jobs, so it tells uninstall's guard (the verify object's drop) that it may.
    if has_sql(rendering.force_uninstall):
        path = f"{dialect}/drop/force_uninstall.sql"
        plan.files[path] = header("lets the teardown drop tables that hold jobs", dialect, revision, label,
                                   rendering.session) + rendering.force_uninstall
        plan.downgrade.append(path)
    plan.downgrade += [entry.drop for entry in reversed(plan.objects) if entry.drop]
    # ... and it ends as uninstall.sql ends: on SQL Server the guard began a transaction that holds its
    # table locks through every drop, and uninstall's ending commits it. Without it the teardown's
    # drops stayed in an open transaction that the connection's close rolled back.
    ending = rendering.uninstall_end
    if has_sql(ending):
        path = f"{dialect}/drop/uninstall_end.sql"
        plan.files[path] = header("ends the teardown as uninstall.sql ends", dialect, revision, label,
                                   rendering.session) + ending
        plan.downgrade.append(path)
    plan.downgrade_notes.append(f"drops every object of schema {spec.schema}, tables and the jobs in them included "
                                "(the teardown)")
    return plan


def _write_object(plan: DialectPlan, dialect: str, revision: str, label: str, spec: Spec, rendering: Rendering,
                  item) -> tuple[str, str | None]:
    """An object's create file and drop file (None when its drop block is empty), kept in this revision."""
    create_path = f"{dialect}/create/{item.filename}"
    plan.files[create_path] = item.create
    if not has_sql(item.drop):
        return create_path, None
    drop_path = f"{dialect}/drop/{item.filename}"
    what = f"drops {item.obj.kind} {spec.schema}.{item.obj.name}" if item.obj.queue else f"drops {item.obj.kind}"
    plan.files[drop_path] = header(what, dialect, revision, label, rendering.session) + item.drop
    return create_path, drop_path


def _entry(obj: DbObject, create: str, drop: str | None) -> ObjectEntry:
    return ObjectEntry(obj.key, obj.kind, obj.name, obj.queue, create, drop)


class _FollowOn:
    """A revision that follows an earlier one of the same schema. It holds files only for the objects
    whose SQL changes; an unchanged object's entry in its manifest points at the file of the revision
    that last wrote it. Its upgrade drops and creates only:
    - objects whose SQL changed (their previous version's drop, then their new create);
    - objects that depend on one of those (a procedure that takes a table type that is re-created);
    - objects the spec adds or removes.
    Tables that hold jobs are only ever altered (_plan_kept_tables). The grants are run again (GRANT
    only: nothing is revoked) when objects were re-created and the grants' own SQL is unchanged, as
    re-created objects come without their grants; verify, install's closing check, runs last in both
    directions."""

    def __init__(self, dialect: str, revision: str, label: str, spec: Spec, rendering: Rendering, previous: Previous,
                 allow_drop: set[str], used: set[str]):
        self.dialect, self.revision, self.label, self.spec = dialect, revision, label, spec
        self.rendering, self.previous, self.allow_drop, self.used = rendering, previous, allow_drop, used
        self.old = previous.objects(dialect)
        self.old_by_key = {o.key: o for o in self.old}
        self.new_by_key = {item.obj.key: item for item in rendering.objects}
        self.plan = DialectPlan()
        self.steps = Steps(dialect, revision, label, rendering.session)
        self.database = dialects.get(dialect)
        self.in_place: set[str] = set()  # redone by their create alone (replaces_in_place): nothing dropped

    def same_drop(self, key: str) -> bool:
        """Whether the object's new drop is the old one's, compared as its drop file holds it."""
        o, n = self.old_by_key[key], self.new_by_key[key]
        return body(o.drop) == body(self.rendering.session + n.drop if has_sql(n.drop) else "")

    def unchanged(self, key: str) -> bool:
        return body(self.old_by_key[key].create) == body(self.new_by_key[key].create) and self.same_drop(key)

    def redone(self) -> dict[str, str]:
        """The objects in both revisions that the upgrade drops and creates again, with why."""
        why = {}
        for item in self.rendering.objects:
            key, obj = item.obj.key, item.obj
            if key not in self.old_by_key or obj.kind in DATA_TABLES + STATE_TABLES or obj.kind in CHECKS \
                    or obj.kind == "grants":
                continue
            if not self.unchanged(key):
                why[key] = "its SQL changed"
                if self._replaceable(key) and not any(d in why and d not in self.in_place for d in obj.depends_on):
                    self.in_place.add(key)
                    why[key] = "its routine bodies changed (replaced in place: nothing is dropped)"
            else:
                deps = [dep for dep in obj.depends_on if dep in why and dep not in self.in_place]
                if deps:
                    why[key] = f"it depends on {', '.join(deps)}, which is created again"
        if "grants" in self.new_by_key and "grants" in self.old_by_key and not self.unchanged("grants"):
            why["grants"] = "its SQL changed"
        return why

    def _replaceable(self, key: str) -> bool:
        """Its create may run over the old objects (the database keeps their identity), its drop is the
        same (redone() also asks that nothing it depends on is dropped and created again)."""
        return self.same_drop(key) and self.database.replaces_in_place(self.old_by_key[key].create,
                                                                       self.new_by_key[key].create)

    def make(self, changes: dict) -> DialectPlan:
        plan, old_by_key, new_by_key = self.plan, self.old_by_key, self.new_by_key
        redo = self.redone()
        added = [k for k in new_by_key if k not in old_by_key]
        removed = [o.key for o in self.old if o.key not in new_by_key]
        # Objects re-created come without their grants: GRANT them again (only when the grants' SQL is
        # the same: a changed grants object is dropped, revoking, and created like any other).
        created = [k for k in list(redo) + added if new_by_key[k].obj.kind not in CHECKS and k != "grants"]
        regrant = "grants" in new_by_key and "grants" in old_by_key and "grants" not in redo and bool(created)
        plan.redone, plan.added, plan.removed, plan.regrant = redo, added, removed, regrant
        located = self._locate()
        up_drops: list[str] = []
        up_creates: list[str] = []
        down_drops: list[str] = []
        down_creates: list[str] = []
        for o in reversed(self.old):
            if o.kind in DATA_TABLES:
                if o.key not in new_by_key:
                    up_drops += self._drop_removed_table(o)
            elif (o.key in redo and o.key not in self.in_place) or o.key in removed:
                up_drops += [o.drop_path] if o.drop_path else []
        for item in self.rendering.objects:
            key, kind = item.obj.key, item.obj.kind
            create, drop = located[key]
            if key in redo or key in added or kind in CHECKS or (kind == "grants" and regrant):
                if has_sql(item.create) and not (kind in DATA_TABLES and key in old_by_key):
                    up_creates.append(create)
                if kind in DATA_TABLES and key in added:
                    plan.changes.append(f"create table {self.spec.schema}.{item.obj.name}")
            if kind in DATA_TABLES and key in added:
                down_drops.insert(0, self._drop_if_empty(item.obj))
            elif ((key in redo and key not in self.in_place) or key in added) and drop:
                down_drops.insert(0, drop)
        for o in self.old:
            if o.kind in DATA_TABLES:
                if o.key not in new_by_key and o.name in self.allow_drop:
                    down_creates.append(o.create_path)
            elif o.key in redo or o.key in removed or o.kind in CHECKS or (o.kind == "grants" and regrant):
                down_creates += [o.create_path] if has_sql(o.create) else []

        # Tables in both: only storage parameters and columns change, and only when nothing else about them did.
        plan_kept_tables(self.dialect, self.spec, self.rendering, self.previous, old_by_key, changes, plan, self.steps)
        self._say_what_downgrade_does_to_tables(removed)
        plan.files.update(self.steps.files)
        plan.upgrade = up_drops + self.steps.upgrade + up_creates
        plan.downgrade = down_drops + self.steps.downgrade + down_creates
        plan.same_as_previous = (not plan.changes and set(old_by_key) == set(new_by_key)
                                 and all(self.unchanged(k) for k in new_by_key))
        return plan

    def _say_what_downgrade_does_to_tables(self, removed: list[str]) -> None:
        """The tables the downgrade keeps with their rows (first), and those it creates again empty (last)."""
        notes = self.plan.downgrade_notes
        kept = [f"{self.spec.schema}.{o.name}" for o in self.old if o.kind in DATA_TABLES and o.key in self.new_by_key]
        if kept:
            notes.insert(0, f"keeps table{'s' if len(kept) > 1 else ''} {', '.join(kept)} and every row in "
                         "them (jobs pending, leased, dead-lettered, archived)")
        for key in removed:
            o = self.old_by_key[key]
            if o.kind in DATA_TABLES and o.name in self.allow_drop:
                notes.append(f"creates table {self.previous.spec.schema}.{o.name} again, empty: the rows "
                             "the upgrade dropped are lost")

    def _locate(self) -> dict[str, tuple[str, str | None]]:
        """Per object of the new rendering: its create and drop file. Each is written into this revision
        when its SQL is new or changed; else it is the previous revision's (an absolute path, which the
        manifest stores relative to this revision's folder): a drop that names the same object is
        the same file, whatever its create became."""
        located: dict[str, tuple[str, str | None]] = {}
        for item in self.rendering.objects:
            key, o = item.obj.key, self.old_by_key.get(item.obj.key)
            same_create = o is not None and body(o.create) == body(item.create)
            same_drop = o is not None and self.same_drop(key)
            if o is None:
                located[key] = _write_object(self.plan, self.dialect, self.revision, self.label, self.spec,
                                             self.rendering, item)
            elif same_create and same_drop:
                located[key] = (o.create_path, o.drop_path)
            else:
                create, drop = _write_object(self.plan, self.dialect, self.revision, self.label, self.spec,
                                             self.rendering, item)
                if same_create:
                    del self.plan.files[create]
                    create = o.create_path
                if same_drop and drop is not None:
                    del self.plan.files[drop]
                    drop = o.drop_path
                located[key] = (create, drop)
            self.plan.objects.append(_entry(item.obj, *located[key]))
        return located

    def _drop_removed_table(self, o: StoredObject) -> list[str]:
        if o.name in self.allow_drop:
            self.used.add(o.name)
            self.plan.changes.append(f"drop table {self.previous.spec.schema}.{o.name} (allowed)")
            return [o.drop_path] if o.drop_path else []
        self.plan.problems.append(
            f"table {self.previous.spec.schema}.{o.name} ({o.kind.replace('_', ' ')} of queue {o.queue}) is no longer "
            f"in the spec; dropping it loses the rows it holds. Drain it first, then pass --allow-drop {o.name} "
            "to drop it; or keep it in the spec.")
        return []

    def _drop_if_empty(self, obj: DbObject) -> str:
        _, drop = render_change(self.dialect, self.spec, "drop_table_if_empty", obj)
        path = f"{self.dialect}/revert/{next(self.steps.number):02d}_{obj.name}_drop_if_empty.sql"
        self.plan.files[path] = header(f"drops table {self.spec.schema}.{obj.name} if empty", self.dialect,
                                        self.revision, self.label, self.rendering.session) + drop
        self.plan.downgrade_notes.append(f"drops table {self.spec.schema}.{obj.name} only if it is empty; "
                                         "a table holding rows is kept with them")
        return path
