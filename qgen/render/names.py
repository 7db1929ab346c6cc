"""Every name a spec's objects get in the database, checked where the spec is checked.

The templates decide which names they create: a table and its default constraints, an index, the
dequeue row type, the roles. Rather than repeat their suffixes here, qgen renders the spec for each
of its databases and collects every name the scripts create (`created_names` of qgen/dialects/<db>:
a few patterns over the rendered DDL, plus the names PostgreSQL derives itself). Each name is held
to the database's identifier limit (PostgreSQL cuts a longer one at 63 bytes, so two long names can
silently become one role or one table) and to every other name of its namespace, compared without
case as SQL Server's default collation compares them. A problem points at the spec field the name
came from: a `names:` override, a grants role, else the queue's name or the schema.
"""

from __future__ import annotations

from qgen import dialects as dialect_registry
from qgen.spec.catalog import DbObject
from qgen.dialects import CreatedName
from qgen.render.engine import render_spec
from qgen.spec.model import Spec, role_name

ROLES = ("producer", "consumer", "admin")


def _origin(spec: Spec, obj: DbObject, created: CreatedName) -> tuple:
    """The path of the spec field a created name comes from."""
    if created.namespace == "role":
        role = next((r for r in ROLES if role_name(spec, r) == created.name), None)
        if role is not None and getattr(spec.grants, role):
            return ("grants", role)
        derived = role is not None or created.name == role_name(spec, "owner")
        if derived:  # named <role_prefix>_<role>, the prefix being the schema unless grants gives one
            return ("grants", "role_prefix") if spec.grants.role_prefix else ("schema",)
        return ("grants",)
    if obj.queue is None:
        return ("schema",)
    kind = "wakeup_channel" if created.namespace == "channel" else obj.kind
    if kind in spec.queues[obj.queue].names:
        return ("queues", obj.queue, "names", kind)
    return ("queues", obj.queue)


def _describe(spec: Spec, obj: DbObject, created: CreatedName) -> str:
    owner = f"queue {obj.queue}'s {obj.kind.replace('_', ' ')}" if obj.queue else f"the {obj.kind}"
    if created.namespace == "role":
        if obj.kind == "schema":  # the schema's script makes the owner role
            owner = "the role that owns the queues' objects, named after the schema"
        else:
            role = next((r for r in ROLES if role_name(spec, r) == created.name), None)
            owner = f"the {role} role" if role else f"made by {owner}"
    return f"the {created.what} {created.name!r} ({owner})"


class _Found:
    """One problem between two spec fields (or one field and a limit): its first instance, and how
    many further names and which databases show it, so a clash of two queues is one error."""

    def __init__(self, message: str, name: str):
        self.message, self.name = message, name
        self.more: set[str] = set()
        self.databases: list[str] = []

    def note(self, name: str, database: str) -> None:
        if database not in self.databases:
            self.databases.append(database)
        if name != self.name:
            self.more.add(name)

    def text(self, what_more: str) -> str:
        more = f"; {len(self.more)} more of {what_more} too" if self.more else ""
        return self.message.replace("{on}", "on " + " and ".join(self.databases)).replace("{more}", more)


def name_problems(spec: Spec) -> list[tuple[tuple, str]]:
    """Created names too long for a database, or shared by two objects of one namespace."""
    too_long: dict[tuple, _Found] = {}
    clashes: dict[tuple[tuple, tuple], _Found] = {}
    for dialect_name in spec.dialects:
        dialect = dialect_registry.get(dialect_name)
        seen: dict[tuple[str, str], tuple[DbObject, CreatedName]] = {}
        for item in render_spec(spec, "<check>", dialect_name).objects:
            for created in dict.fromkeys(dialect.created_names(item.create)):
                path = _origin(spec, item.obj, created)
                size = dialect.identifier_size(created.name)
                if size > dialect.max_identifier_length:
                    found = too_long.setdefault(path, _Found(
                        f"{_describe(spec, item.obj, created)} is {size} {dialect.identifier_unit} long {{on}}; accepted: at "
                        f"most {dialect.max_identifier_length}, as the database cuts or refuses a longer name{{more}}; "
                        "choose a shorter name", created.name))
                    found.note(created.name, dialect.title)
                key = (created.namespace, created.name.lower())
                # A queue's channel is notified by several of its routines: one name, not a clash.
                same_channel = created.namespace == "channel" and key in seen and seen[key][0].queue == item.obj.queue
                if key in seen and seen[key] != (item.obj, created) and not same_channel:
                    this, other = (item.obj, created), seen[key]
                    other_path = _origin(spec, *other)
                    if "names" in other_path and "names" not in path:
                        (this, path), (other, other_path) = (other, other_path), (this, path)  # blame the override
                    case = " (names are compared without case)" if other[1].name != this[1].name else ""
                    hint = ("role names that differ (grants.producer, consumer, admin)" if created.namespace == "role"
                            else "names that differ: rename the queue, or override a name with names:")
                    found = clashes.setdefault((path, other_path), _Found(
                        f"{_describe(spec, *this)} has the name of {_describe(spec, *other)} {{on}}{case}{{more}}; accepted: {hint}",
                        created.name.lower()))
                    found.note(created.name.lower(), dialect.title)
                seen.setdefault(key, (item.obj, created))
    return ([(path, found.text("its names are too long")) for path, found in too_long.items()]
            + [(path, found.text("their names are the same")) for (path, _), found in clashes.items()])

