"""Compiled templates, kept so that a process does not compile them again.

Compiling the templates costs far more than rendering them (every command that loads a spec renders
it to check the names it creates: about a second of compiling, cold). So compiled templates are kept
in memory for the life of the process (an environment is made per rendering: its globals are the
spec's), and on disk between processes, in the user's own cache folder:
$QGEN_TEMPLATE_CACHE, else $XDG_CACHE_HOME/qgen/templates, else ~/.cache/qgen/templates.
QGEN_TEMPLATE_CACHE=off keeps them in memory only.

A kept template is used only while its source is the same (Jinja's bucket compares the source's
checksum, and its own and Python's version; the key holds qgen's and Jinja's versions and the
environment's options). Compiled code is executed when loaded, so the folder is
used only when it belongs to this user and nobody else may write to it; a folder that cannot be made,
read or written leaves the cache in memory, and rendering goes on as without it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Optional

import jinja2

OFF = "off"


def cache_folder() -> Optional[Path]:
    """The folder compiled templates are kept in between processes, made if missing; None when the
    cache is off, or the folder is not this user's alone or cannot be made."""
    chosen = os.environ.get("QGEN_TEMPLATE_CACHE")
    if chosen is not None and chosen.strip().lower() == OFF:
        return None
    if chosen:
        folder = Path(chosen)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        folder = Path(base) / "qgen" / "templates"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.stat()
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or (hasattr(os, "getuid") and info.st_uid != os.getuid()):
        return None
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return None
    return folder


class CompiledTemplates(jinja2.BytecodeCache):
    """In memory for the process; on disk (cache_folder) between processes when it may be."""

    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}
        self._disk: Optional[jinja2.FileSystemBytecodeCache] = None
        self._disk_checked = False

    def _on_disk(self) -> Optional[jinja2.FileSystemBytecodeCache]:
        if not self._disk_checked:  # decided at first use, not at import
            self._disk_checked = True
            folder = cache_folder()
            if folder is not None:
                self._disk = jinja2.FileSystemBytecodeCache(str(folder), "qgen-%s.cache")
        return self._disk

    def get_bucket(self, environment: jinja2.Environment, name: str, filename: Optional[str],
                   source: str) -> jinja2.bccache.Bucket:
        """Jinja's bucket, keyed also by what else shapes the compiled code: qgen's and Jinja's versions
        and the environment's options (a kept template compiled with other options is not used)."""
        key = self.get_cache_key(f"{_compiled_with(environment)}|{name}", filename)
        bucket = jinja2.bccache.Bucket(environment, key, self.get_source_checksum(source))
        self.load_bytecode(bucket)
        return bucket

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if bucket.key in self._code:
            bucket.bytecode_from_string(self._code[bucket.key])
            return
        disk = self._on_disk()
        if disk is not None:
            try:
                disk.load_bytecode(bucket)  # a stale or foreign file resets the bucket: compiled again
            except Exception:  # noqa: BLE001 (a damaged file raises what its bytes make pickle raise: MemoryError among them)
                bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = bucket.bytecode_to_string()
        self._code[bucket.key] = code
        disk = self._on_disk()
        if disk is not None:
            try:
                disk.dump_bytecode(bucket)
            except OSError:
                self._disk = None  # a folder that cannot be written: memory only from now on


def _compiled_with(environment: jinja2.Environment) -> str:
    """What besides a template's source decides its compiled code."""
    from qgen import __version__

    options = ("block_start_string", "block_end_string", "variable_start_string", "variable_end_string",
               "comment_start_string", "comment_end_string", "line_statement_prefix", "line_comment_prefix",
               "trim_blocks", "lstrip_blocks", "newline_sequence", "keep_trailing_newline", "optimized",
               "autoescape", "undefined")
    shape = [__version__, jinja2.__version__, *(repr(getattr(environment, option, None)) for option in options),
             *sorted(environment.extensions)]
    return "|".join(shape)
