"""Every command's -h says what each argument is (once `check -h` and
`render --dialect` said nothing)."""

from __future__ import annotations

import argparse

from qgen.cli import build_parser


def commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def test_every_argument_of_every_command_has_help():
    missing = [f"{name} {action.dest}" for name, command in commands().items() for action in command._actions
               if not isinstance(action, argparse._HelpAction) and not action.help]
    assert not missing, missing


def test_check_help_says_what_check_does():
    text = commands()["check"].format_help()
    assert "the spec file (YAML)" in text and "file:line:col" in text


def test_every_command_has_a_description_in_its_help():
    """`qgen schema -h`, `init -h`, `revision -h`, `maintain -h`, `status -h`, `redrive -h` (and bench)
    said what their arguments are but not what the command does."""
    bare = [name for name, command in commands().items() if not (command.description or "").strip()]
    assert not bare, bare
    for name, command in commands().items():
        assert command.description.strip() in " ".join(command.format_help().split()) or \
            command.description.split()[0] in command.format_help(), name
