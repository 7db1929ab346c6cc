"""manifest.json as data (qgen/migrations/manifest.py). Users commit it with their revisions, so what
Manifest.to_json writes stays what qgen has always written, byte for byte, and every manifest an earlier
qgen wrote still loads."""

from __future__ import annotations

import json
import shutil

from alembic import util as alembic_util

from qgen.cli import main as qgen_main
from qgen.migrations.manifest import Manifest
from qgen.migrations.writer import make_revision
from tests.conftest import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "revisions_before_split"

# As the first qgen with revisions wrote it: no downgrade_notes yet.
OLDEST = """\
{
  "qgen": "0.1.0",
  "revision": "0a1b2c3d4e5f",
  "message": "init",
  "spec": "queue.yaml",
  "schema": "shop",
  "follows": null,
  "changes": [],
  "dialects": {
    "postgres": {
      "objects": [
        {"key": "schema", "kind": "schema", "name": "shop", "queue": null, "create": "postgres/create/00_schema.sql", "drop": "postgres/drop/00_schema.sql"},
        {"key": "mail.table", "kind": "table", "name": "mail", "queue": "mail", "create": "postgres/create/02_mail_table.sql", "drop": null}
      ],
      "upgrade": [
        "postgres/create/00_schema.sql",
        "postgres/create/02_mail_table.sql"
      ],
      "downgrade": [
        "postgres/drop/00_schema.sql"
      ]
    }
  }
}
"""


def test_manifests_qgen_wrote_before_load_and_are_written_back_byte_for_byte():
    texts = [path.read_text(encoding="utf-8") for path in sorted(FIXTURE.glob("*/manifest.json"))] + [OLDEST]
    assert len(texts) == 3
    for text in texts:
        assert Manifest.from_json(text).to_json() == text


def test_an_older_manifest_has_no_downgrade_notes_and_reads_as_data():
    manifest = Manifest.from_json(OLDEST)
    files = manifest.dialects["postgres"]
    assert files.downgrade_notes is None and manifest.follows is None
    assert [entry.key for entry in files.objects] == ["schema", "mail.table"]
    assert files.objects[1].drop is None and files.upgrade[-1] == "postgres/create/02_mail_table.sql"


def test_a_revision_made_now_writes_the_manifest_as_before(tmp_path, monkeypatch):
    """The fixture's first revision, made again by this qgen under its revision id: the same manifest
    (the objects and files may change with the templates; its keys, their order and its layout not)."""
    assert qgen_main(["init", str(tmp_path / "project"), "--no-spec"]) == 0
    before = next(FIXTURE.glob("*_v1"))
    shutil.copyfile(before / "spec.yaml", tmp_path / "queue.yaml")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(alembic_util, "rev_id", lambda: before.name.split("_")[0])
    made = make_revision("queue.yaml", "v1", tmp_path / "project" / "alembic.ini")
    text = (made.folder / "manifest.json").read_text(encoding="utf-8")
    old = (before / "manifest.json").read_text(encoding="utf-8")
    assert Manifest.from_json(text).to_json() == text
    now, then = json.loads(text), json.loads(old)
    assert list(now) == list(then) and [list(d) for d in now["dialects"].values()] == [list(d) for d in then["dialects"].values()]
    same = [k for k in now if k not in ("qgen", "dialects")]
    assert [now[k] for k in same] == [then[k] for k in same]
    assert [len(line) - len(line.lstrip()) for line in text.splitlines()][:12] == \
        [len(line) - len(line.lstrip()) for line in old.splitlines()][:12]
