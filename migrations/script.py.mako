<%
    # `qgen revision` passes qgen=<what the revision installs>; a plain `alembic revision` does not.
    qgen = context.get("qgen")
%>"""${message}

Revision ID: ${up_revision}
Revises: ${down_revision | comma,n}
Create Date: ${create_date}
% if qgen:

Written by `qgen revision` from ${qgen["spec"]} (schema ${qgen["schema"]}, for ${", ".join(qgen["dialects"])}).
${qgen["summary"]}
The SQL it runs was rendered when it was made and is kept in the folder of the same name next to
this file: manifest.json lists, per database and direction, the files in the order they run.
% endif
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa
% if qgen:

from qgen.migrate import run_revision
% endif
${imports if imports else ""}

# revision identifiers, used by Alembic.
revision: str = ${repr(up_revision)}
down_revision: Union[str, Sequence[str], None] = ${repr(down_revision)}
branch_labels: Union[str, Sequence[str], None] = ${repr(branch_labels)}
depends_on: Union[str, Sequence[str], None] = ${repr(depends_on)}
% if qgen:


def upgrade() -> None:
    """${qgen["upgrade"]}"""
    run_revision(__file__, "upgrade")


def downgrade() -> None:
    """${qgen["downgrade"]}"""
    run_revision(__file__, "downgrade")
% else:


def upgrade() -> None:
    """Upgrade schema."""
    ${upgrades if upgrades else "pass"}


def downgrade() -> None:
    """Downgrade schema."""
    ${downgrades if downgrades else "pass"}
% endif
