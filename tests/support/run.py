"""This test run's own token, for every name a test makes on a server other runs may share.

Databases belong to one run already (tests/support/pg.py names them with the pid and a random
part), but roles belong to the whole PostgreSQL cluster, and a bench's roles are named after its
schema: two runs of the suite against one server (two developers, CI and a developer) must not
create, grant or drop each other's. Every role an installed spec creates, every bench schema and
every fixed database name carries TOKEN.
"""

from __future__ import annotations

import os
import secrets

from qgen.spec.model import Spec, role_name

# Short (names stay within PostgreSQL's 63 characters), lowercase (no quoting needed), per process.
TOKEN = f"r{os.getpid() % 100000:05d}{secrets.token_hex(2)}"


def named(base: str) -> str:
    """A name of this run: base with the run's token."""
    return f"{base}_{TOKEN}"


def run_spec(spec: Spec) -> Spec:
    """The spec with roles of this run's own: <role>_<token> for producer, consumer and admin (when
    grants are on) and for the owner role, which PostgreSQL installs make whatever grants say."""
    roles = ("producer", "consumer", "admin", "owner") if spec.grants.enabled else ("owner",)
    grants = spec.grants.model_copy(update={r: named(role_name(spec, r)) for r in roles})
    return spec.model_copy(update={"grants": grants})
