"""Seeded schedules for the model-based test: a list of steps, each one session's next operation.

A schedule is a pure function of (seed, queue shape, options): the same seed gives the same list of
steps, which is what a failing run prints and what QGEN_MODEL_SCHEDULE replays. A step names its
operation and arguments abstractly ("complete the 2nd job this session holds", "claim 3 with a
1-second lease"); the runner resolves them against what the session holds at that moment. What the
database answers (which jobs, whether a lease expired, whether a step waits on a lock) may differ
between two runs of a seed (it depends on time); the steps sent never do.

Known defects are behind options, each off by default until its fix is merged (the
runner's checks catch each when it is on; tests/model/test_model.py shows which seed does):
- early_tx_lease: a lease-timing call (claim, extend, fail with retry) inside a caller's
  transaction after its first statement, so that now() is older than the call.
- tx_watermark: on a queue with a watermark, a caller's transaction that claims, fails or
  corrects the watermark (each may hold the watermark row until the caller commits).
- lowered_attempts: a job's attempts raised to max_attempts while it waits, as a revision
  that lowers max_attempts leaves it.
- constraints_immediate: a delete-mode claim in a transaction after
  SET CONSTRAINTS ALL IMMEDIATE.
"""

from __future__ import annotations

import dataclasses
import json
import random
from dataclasses import dataclass, field
from typing import Any, Optional

ISOLATIONS = ("read committed", "repeatable read", "serializable")
IMPLICIT = "implicit"  # a caller transaction in the autocommit-off mode (tests/model/sessions.ImplicitTransaction)
KNOWN_DEFECT_OPTIONS = ("early_tx_lease", "tx_watermark", "lowered_attempts", "constraints_immediate")


@dataclass(frozen=True)
class Shape:
    """What the generator needs to know of a queue."""

    name: str
    lease: bool
    watermark: bool
    job_types: tuple[str, ...] = ()
    priority: bool = False
    dedupe_keys: int = 0          # 0: no dedupe; else keys are drawn from 0..dedupe_keys-1
    dead_letter: bool = True
    expires: bool = False         # expire_after: the age arrangement makes waiting jobs old


@dataclass(frozen=True)
class Options:
    sessions: int = 4
    steps: int = 120
    prefill: int = 0              # finished jobs put behind the queue before the schedule starts
    early_tx_lease: bool = False
    tx_watermark: bool = False
    lowered_attempts: bool = False
    constraints_immediate: bool = False
    strict_levels: bool = True    # caller transactions may run at REPEATABLE READ and SERIALIZABLE too
    implicit: bool = True         # some READ COMMITTED callers are in autocommit-off mode (IMPLICIT_TRANSACTIONS ON)

    def known_defects_on(self) -> list[str]:
        return [o for o in KNOWN_DEFECT_OPTIONS if getattr(self, o)]


@dataclass(frozen=True)
class Step:
    index: int
    session: Optional[int]        # None: the scheduler itself (sleep, an admin arrangement)
    op: str
    args: dict = field(default_factory=dict)

    def line(self) -> str:
        who = "--" if self.session is None else f"s{self.session}"
        return f"{self.index:4d} {who:>3} {self.op} {json.dumps(self.args, sort_keys=True)}"

    def as_json(self) -> list:
        return [self.index, self.session, self.op, self.args]

    @staticmethod
    def from_json(item: list) -> "Step":
        return Step(int(item[0]), item[1], str(item[2]), dict(item[3]))


class _Session:
    def __init__(self) -> None:
        self.in_tx = False
        self.statements = 0   # statements run in the current transaction
        self.isolation = ""


def generate(seed: int, shape: Shape, options: Options) -> list[Step]:
    """The schedule of one seed: options.steps steps over options.sessions sessions."""
    rng = random.Random(f"{seed}:{shape.name}")
    sessions = [_Session() for _ in range(options.sessions)]
    steps: list[Step] = []
    n = [0]

    def add(session: Optional[int], op: str, **args: Any) -> None:
        steps.append(Step(len(steps), session, op, args))

    def job_args() -> dict:
        n[0] += 1
        args: dict = {"n": n[0]}
        if shape.job_types:
            args["job_type"] = rng.choice(shape.job_types)
        if shape.priority:
            args["priority"] = rng.choice((0, 0, 1, 5))
        if shape.dedupe_keys:
            args["k"] = rng.randrange(shape.dedupe_keys)
        return args

    # Work to start with, so that the first claims find some.
    for _ in range(rng.randint(3, 6)):
        add(rng.randrange(options.sessions), "enqueue", **job_args())

    while len(steps) < options.steps:
        s = rng.randrange(options.sessions)
        session = sessions[s]
        roll = rng.random()
        if roll < 0.04:
            add(None, "sleep", seconds=rng.choice((0.3, 0.6, 1.1, 2.2)))
            continue
        if options.lowered_attempts and shape.lease and roll < 0.06:
            add(None, "lower_attempts", pick=rng.randrange(1000))
            continue
        if shape.expires and 0.06 <= roll < 0.1:
            add(None, "age", pick=rng.randrange(1000))
            continue
        if session.in_tx:
            ops = _tx_ops(shape, options, session)
        else:
            ops = _autocommit_ops(shape)
        op = _weighted(rng, ops)
        args: dict = {}
        if op in ("enqueue", "enqueue_rollback"):
            args = job_args()
        elif op == "enqueue_many":
            args = {"jobs": [job_args() for _ in range(rng.randint(2, 4))]}
        elif op in ("claim", "claim_at_most_once"):
            args = {"batch": rng.choice((1, 1, 2, 3, 5))}
            if shape.lease:
                args["lease_seconds"] = rng.choice((1, 2, 2, 30))
            if shape.job_types and rng.random() < 0.3:
                args["job_type"] = rng.choice(shape.job_types)
        elif op in ("complete", "extend", "fenced_complete", "fenced_fail", "release"):
            args = {"pick": rng.randrange(1000)}
            if op == "extend":
                args["lease_seconds"] = rng.choice((1, 2, 30))
        elif op == "fail":
            args = {"pick": rng.randrange(1000), "retry": rng.random() < 0.8}
        elif op == "cancel":
            args = {"pick": rng.randrange(1000), "count": rng.choice((1, 1, 2, 3))}
        elif op == "purge":
            args = {"older_than_seconds": rng.choice((0, 1, 3))}
        elif op == "redrive":
            args = {"all": rng.random() < 0.4, "pick": rng.randrange(1000)}
        elif op == "begin":
            session.isolation = rng.choice(ISOLATIONS if options.strict_levels else ISOLATIONS[:1])
            # A third of READ COMMITTED callers are in autocommit-off mode: SQL Server's
            # IMPLICIT_TRANSACTIONS ON, where the transaction begins at the first call's first data
            # statement; psycopg with autocommit off. Drawn apart from rng, so each seed's steps stay
            # as they were but for this word.
            if (options.implicit and session.isolation == "read committed"
                    and random.Random(f"{seed}:{shape.name}:implicit:{len(steps)}").random() < 1 / 3):
                session.isolation = IMPLICIT
            early = rng.random() < 0.6
            args = {"isolation": session.isolation, "early": early}
            session.in_tx, session.statements = True, int(early)
        elif op in ("commit", "rollback"):
            session.in_tx = False
        if session.in_tx and op not in ("begin", "commit", "rollback"):
            session.statements += 1
        add(s, op, **args)

    # The end: every open transaction commits or rolls back.
    for s, session in enumerate(sessions):
        if session.in_tx:
            add(s, rng.choice(("commit", "rollback")))
            session.in_tx = False
    return steps


def _autocommit_ops(shape: Shape) -> dict[str, float]:
    ops = {"enqueue": 3.0, "enqueue_many": 0.7, "enqueue_rollback": 0.6, "begin": 1.2, "metrics": 0.6}
    ops.update(pause=0.15, resume=0.3)  # an operator holds the claims a while (issue 29)
    ops["cancel"] = 0.3  # and takes jobs out, waiting or leased (issue 29)
    if shape.lease:
        ops.update(claim=3.0, complete=2.5, fail=1.2, extend=0.6, fenced_complete=0.8, fenced_fail=0.5,
                   reap=0.4, maintain=0.4, purge=0.3)
        ops["release"] = 0.5  # a stopping worker's hand-back
        if shape.dead_letter:
            ops["redrive"] = 0.4
        if shape.watermark:
            ops["watermark_correct"] = 0.4
    else:
        ops.update(claim_at_most_once=1.0, purge=0.3, maintain=0.3)
    return ops


def _tx_ops(shape: Shape, options: Options, session: _Session) -> dict[str, float]:
    ops = {"enqueue": 1.5, "commit": 1.2, "rollback": 0.7, "metrics": 0.2}
    if not shape.lease:
        ops["claim"] = 2.5
        if options.constraints_immediate:
            ops["set_constraints_immediate"] = 1.0
        return ops
    # Lease timing (claim, extend, fail's backoff) is taken from now(): inside a transaction only
    # as its first statement, unless early_tx_lease.
    timing_ok = options.early_tx_lease or session.statements == 0
    # On a watermark queue a claim or a fail can hold the watermark row until the caller ends
    # only with tx_watermark.
    watermark_ok = options.tx_watermark or not shape.watermark
    ops["complete"] = 1.5
    if timing_ok:
        ops["extend"] = 0.5
    if timing_ok and watermark_ok:
        ops.update(claim=2.0, fail=0.8, release=0.4)
    if shape.watermark and options.tx_watermark:
        ops["watermark_correct"] = 1.0
    return ops


def _weighted(rng: random.Random, ops: dict[str, float]) -> str:
    names = sorted(ops)
    return rng.choices(names, weights=[ops[o] for o in names])[0]


def dump(steps: list[Step]) -> str:
    return json.dumps([s.as_json() for s in steps])


def load(text: str) -> list[Step]:
    return [Step.from_json(item) for item in json.loads(text)]


def options_from(text: str) -> Options:
    """Options from 'sessions=4,steps=200,early_tx_lease=1' (QGEN_MODEL_OPTIONS)."""
    values: dict[str, Any] = {}
    kinds = {f.name: f.type for f in dataclasses.fields(Options)}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, _, value = part.partition("=")
        if key not in kinds:
            raise ValueError(f"QGEN_MODEL_OPTIONS: unknown option {key!r}; accepted: {', '.join(kinds)}")
        values[key] = value.lower() in ("1", "true", "yes", "on") if kinds[key] in (bool, "bool") else int(value)
    return Options(**values)
