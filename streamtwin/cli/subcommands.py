"""The subcommands that live in modules of their own (``ask``, ``mcp``): their parsers, and which runs each."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable

from streamtwin.config import Config

# name -> (module, its command function); each module's add_<name>_parser builds the parser.
COMMANDS = {"ask": ("streamtwin.cli.ask", "ask_command"), "mcp": ("streamtwin.cli.mcp", "mcp_command")}


def add_parsers(
    commands: argparse._SubParsersAction, add_llm_flags: Callable[[argparse.ArgumentParser], None],
    csv: Callable[[str], list[str]],
) -> None:
    from streamtwin.cli.ask import add_ask_parser
    from streamtwin.cli.mcp import add_mcp_parser

    add_ask_parser(commands, add_llm_flags)
    add_mcp_parser(commands, add_llm_flags, csv)


def run_subcommand(name: str, config: Config, args: argparse.Namespace) -> int | None:
    """The exit status of subcommand ``name``, or None when it is not one of these."""
    if name not in COMMANDS:
        return None
    module, function = COMMANDS[name]
    return getattr(importlib.import_module(module), function)(config, args)
