"""What a revision's plan for one database is made of (DialectPlan), the table changes it runs in
place (Steps: a file under change/ and its reversal under revert/), and how its own files begin."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from qgen import __version__
from qgen import dialects as dialect_registry
from qgen.migrations.manifest import ObjectEntry
from qgen.render.engine import HEADER_MARK


@dataclass
class DialectPlan:
    files: dict[str, str] = field(default_factory=dict)
    # Each object and its files: paths of this revision relative to its folder, or an earlier
    # revision's absolute (the manifest names them relative to this revision's folder).
    objects: list[ObjectEntry] = field(default_factory=list)
    upgrade: list[str] = field(default_factory=list)
    downgrade: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    same_as_previous: bool = False  # every object renders the SQL the previous revision has
    # A revision that follows another: the objects it re-creates (key -> why), adds and removes, and
    # whether it runs the grants again; what its downgrade keeps and drops, in words.
    redone: dict[str, str] = field(default_factory=dict)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    regrant: bool = False
    downgrade_notes: list[str] = field(default_factory=list)


def header(what: str, dialect: str, revision: str, label: str, session: str = "") -> str:
    """A revision's own file begins like every rendered file: the header, then the dialect's session."""
    return (f"{HEADER_MARK}{__version__}: {what}, for {dialect_registry.get(dialect).title}; "
            f"revision {revision} of {label}.\n") + session


def body(text: str) -> str:
    """What two renderings are compared by: the script without its whole-line comments (the header
    names the spec file and qgen's version; a reworded comment changes nothing in the database)."""
    return "".join(line for line in text.splitlines(keepends=True) if not line.lstrip().startswith("--"))


class Steps:
    """A revision's table changes: each one's file under change/ (upgrade runs them in the order they
    are added) and its reversal under revert/ (downgrade runs them in the opposite order)."""

    def __init__(self, dialect: str, revision: str, label: str, session: str):
        self.dialect, self.revision, self.label, self.session = dialect, revision, label, session
        self.number = itertools.count(1)  # numbers the change and revert files in the order upgrade runs them
        self.files: dict[str, str] = {}
        self.upgrade: list[str] = []
        self.downgrade: list[str] = []

    def add(self, name: str, up_title: str, up: str, down_title: str, down: str) -> None:
        stem = f"{next(self.number):02d}_{name}.sql"
        for folder, title, text in (("change", up_title, up), ("revert", down_title, down)):
            self.files[f"{self.dialect}/{folder}/{stem}"] = header(title, self.dialect, self.revision, self.label,
                                                                  self.session) + text
        self.upgrade.append(f"{self.dialect}/change/{stem}")
        self.downgrade.insert(0, f"{self.dialect}/revert/{stem}")
