"""The progress line of a long command (`qgen redrive`, `qgen purge`), in the way `qgen bench` shows its
progress bar (qgen/bench/fleet.py): on stderr only, so stdout stays what a script reads; on a terminal
one line redrawn in place (at most five times a second), elsewhere (a pipe, a log, CI) a plain line at
most every five seconds; the last state is always written, and ends its line before anything else is
said. `--quiet` gives it no stream: nothing is written."""

from __future__ import annotations

import math
import time
from typing import Optional, TextIO


class ProgressLine:
    """update(text) says where a command is (the elapsed time is added); finish() writes the last
    state if it was not written yet and ends the line. `every` overrides the interval between lines."""

    def __init__(self, stream: Optional[TextIO], every: Optional[float] = None):
        self.stream = stream
        self.tty = stream is not None and stream.isatty()
        self.every = every if every is not None else (0.2 if self.tty else 5.0)
        self.started = time.monotonic()
        self.last = -math.inf
        self.latest: Optional[str] = None   # the last state given
        self.written: Optional[str] = None  # the last state written
        self.width = 0                      # of the line on the terminal, to blank what a longer one left

    def update(self, text: str) -> None:
        self.latest = text
        now = time.monotonic()
        if now - self.last >= self.every:
            self.last = now
            self._write(text, now)

    def finish(self) -> None:
        if self.stream is None:
            return
        if self.latest is not None and self.latest != self.written:
            self._write(self.latest, time.monotonic())
        if self.tty and self.written is not None:
            self.stream.write("\n")
            self.stream.flush()
        self.latest = self.written = None

    def _write(self, text: str, now: float) -> None:
        if self.stream is None:
            return
        line = f"{text}, {now - self.started:.1f}s"
        if self.tty:
            self.stream.write("\r" + line.ljust(self.width))
            self.width = len(line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()
        self.written = text


def plural(count: int, noun: str) -> str:
    """'1 batch', '3 batches', '1,200 dead jobs'."""
    return f"{count:,} {noun}" + ("" if count == 1 else ("es" if noun.endswith(("s", "ch")) else "s"))
