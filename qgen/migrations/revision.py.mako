<%doc>
    The module of a revision `qgen revision` writes (qgen/migrations/writer.py renders it, whatever the
    environment's own script.py.mako says). The SQL it runs is kept in the folder of the same name.
</%doc>"""${message}

Revision ID: ${up_revision}
Revises:${" " + comma(down_revision) if down_revision else "" | n}
Create Date: ${create_date}

Written by `qgen revision` from ${qgen["spec"]} (schema ${qgen["schema"]}, for ${", ".join(qgen["dialects"])}).
${qgen["summary"]}
The SQL it runs was rendered when it was made and is kept in the folder of the same name next to
this file: manifest.json lists, per database and direction, the files in the order they run.
"""
from typing import Sequence, Union

from qgen.migrate import run_revision

# revision identifiers, used by Alembic.
revision: str = ${repr(up_revision)}
down_revision: Union[str, Sequence[str], None] = ${repr(down_revision)}
branch_labels: Union[str, Sequence[str], None] = ${repr(branch_labels)}
depends_on: Union[str, Sequence[str], None] = ${repr(depends_on)}


def upgrade() -> None:
    """${qgen["upgrade"]}"""
    run_revision(__file__, "upgrade")


def downgrade() -> None:
    """${qgen["downgrade"]}"""
    run_revision(__file__, "downgrade")
