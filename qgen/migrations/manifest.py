"""What a revision keeps of itself, and the revisions before it.

manifest.json, in the revision's folder, says per database which file holds each object's SQL and
which files upgrade and downgrade run, in order. Users commit it with their revisions: the JSON
Manifest.to_json writes stays what qgen has always written, byte for byte (key order, one object per
line), and every manifest an earlier qgen wrote still loads (those before downgrade_notes lack it).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Optional

from qgen.migrations import RevisionRefused
from qgen.spec.model import Spec
from qgen.spec.load import SpecInvalid, load_spec_text

MANIFEST = "manifest.json"
SPEC_FILE = "spec.yaml"


@dataclass(frozen=True)
class ObjectEntry:
    """One object of a revision and the files of its SQL: create (always) and drop (None when its drop
    block is empty), relative to the revision's folder ("postgres/create/..." or an earlier revision's
    "../<rev>_<slug>/postgres/create/...")."""

    key: str
    kind: str
    name: str
    queue: Optional[str]
    create: str
    drop: Optional[str]

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "kind": self.kind, "name": self.name, "queue": self.queue, "create": self.create,
                "drop": self.drop}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ObjectEntry":
        return cls(data["key"], data["kind"], data["name"], data["queue"], data["create"], data["drop"])


@dataclass(frozen=True)
class DialectFiles:
    """A revision's files for one database: its objects, what upgrade and downgrade run (in order), and
    what the downgrade keeps and drops, in words (None in a manifest an older qgen wrote)."""

    objects: tuple[ObjectEntry, ...]
    upgrade: tuple[str, ...]
    downgrade: tuple[str, ...]
    downgrade_notes: Optional[tuple[str, ...]] = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"objects": [o.to_json() for o in self.objects], "upgrade": list(self.upgrade),
                                "downgrade": list(self.downgrade)}
        if self.downgrade_notes is not None:
            data["downgrade_notes"] = list(self.downgrade_notes)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "DialectFiles":
        notes = data.get("downgrade_notes")
        return cls(tuple(ObjectEntry.from_json(o) for o in data["objects"]), tuple(data["upgrade"]),
                   tuple(data["downgrade"]), None if notes is None else tuple(notes))


@dataclass(frozen=True)
class Manifest:
    """manifest.json: the revision, the one it follows (None: the first of its schema), its table
    changes in words, and its files per database."""

    qgen: str
    revision: str
    message: str
    spec: str
    schema: str
    follows: Optional[str]
    changes: tuple[str, ...]
    dialects: Mapping[str, DialectFiles] = field(default_factory=dict)

    def to_json(self) -> str:
        """Indented JSON, with each object and each step on a line of its own (reviewable in a diff)."""
        data = {"qgen": self.qgen, "revision": self.revision, "message": self.message, "spec": self.spec,
                "schema": self.schema, "follows": self.follows, "changes": list(self.changes),
                "dialects": {name: files.to_json() for name, files in self.dialects.items()}}
        return _dump(data, "") + "\n"

    @classmethod
    def from_json(cls, text: str) -> "Manifest":
        data = json.loads(text)
        return cls(data["qgen"], data["revision"], data["message"], data["spec"], data["schema"], data.get("follows"),
                   tuple(data.get("changes", ())),
                   {name: DialectFiles.from_json(files) for name, files in data["dialects"].items()})

    @classmethod
    def read(cls, folder: Path) -> "Manifest":
        """The manifest of the revision whose SQL is kept in folder."""
        return cls.from_json((folder / MANIFEST).read_text(encoding="utf-8"))

    def write(self, folder: Path) -> None:
        (folder / MANIFEST).write_text(self.to_json(), encoding="utf-8", newline="\n")


def _dump(value: Any, indent: str, key: Optional[str] = None) -> str:
    """A dict or a list with an item per line, indented by two; an object's entry on one line."""
    inner = indent + "  "
    if isinstance(value, dict) and value:
        items = [f"{inner}{json.dumps(k)}: {_dump(v, inner, k)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list) and value:
        lines = [json.dumps(v) if key == "objects" else _dump(v, inner) for v in value]
        return "[\n" + ",\n".join(inner + line for line in lines) + "\n" + indent + "]"
    return json.dumps(value)


# ---------------------------------------------------------------------------------------------
# The revision before: its spec and the objects it stored.


@dataclass(frozen=True)
class StoredObject:
    key: str
    kind: str
    name: str
    queue: Optional[str]
    filename: str
    create: str
    drop: str
    create_path: str        # where its SQL is kept (absolute): in that revision's folder or an earlier one's
    drop_path: Optional[str]


@dataclass(frozen=True)
class Previous:
    """The latest qgen revision of a schema below the one being made: its folder, manifest and spec."""

    revision: str
    folder: Path
    manifest: Manifest
    spec: Spec

    def objects(self, dialect: str) -> list[StoredObject]:
        found = []
        for entry in self.manifest.dialects[dialect].objects:
            # Absolute: the next revision's manifest names them relative to its own folder.
            create_path = os.path.abspath(self.folder / entry.create)
            drop_path = os.path.abspath(self.folder / entry.drop) if entry.drop else None
            create = Path(create_path).read_text(encoding="utf-8")
            drop = Path(drop_path).read_text(encoding="utf-8") if drop_path else ""
            found.append(StoredObject(entry.key, entry.kind, entry.name, entry.queue, Path(entry.create).name,
                                      create, drop, create_path, drop_path))
        return found


def _manifests(script_dir: Any) -> Any:
    """(revision, folder, manifest) of each qgen revision of an Alembic environment, head first."""
    for script in script_dir.walk_revisions():
        folder = Path(script.path).with_suffix("")
        if (folder / MANIFEST).is_file():
            yield script.revision, folder, Manifest.read(folder)


def find_previous(script_dir: Any, schema: str) -> Optional[Previous]:
    """The latest qgen revision below the head that installs the same schema, if any."""
    for revision, folder, manifest in _manifests(script_dir):
        if manifest.schema != schema:
            continue
        try:
            spec = load_spec_text((folder / SPEC_FILE).read_text(encoding="utf-8"), str(folder / SPEC_FILE))
        except SpecInvalid as exc:
            raise RevisionRefused([f"the spec kept with revision {revision} ({folder / SPEC_FILE}) no longer "
                                   f"loads with this qgen, so the change cannot be worked out:\n{exc}"]) from None
        return Previous(revision, folder, manifest, spec)
    return None


def qgen_schemas(script_dir: Any) -> set[str]:
    """The schemas the qgen revisions of an Alembic environment install. An env.py whose
    autogenerate compares more than the default schema (include_schemas=True) leaves them out, or
    autogenerate would offer to drop the queues it does not know:

        from qgen.migrate import qgen_schemas
        QUEUE_SCHEMAS = qgen_schemas(context.script)
        def include_name(name, type_, parent_names):
            return not (type_ == "schema" and name in QUEUE_SCHEMAS)
        context.configure(..., include_schemas=True, include_name=include_name)
    """
    return {manifest.schema for _, _, manifest in _manifests(script_dir)}
