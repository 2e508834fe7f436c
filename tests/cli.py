"""``streamtwin`` commands run in the test's own process: ``main(argv)``, its output captured as a process's is.

A subprocess paid Python's start, the imports and the speech model's load for every command; in process
the engine loaded once serves every test of the worker (``load_engine`` caches it).  Tests keep a
subprocess where the process boundary is the point: signals, the exit without teardown, the allocator's
re-exec, stdin, a package hidden from the import path.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from dataclasses import dataclass

import pytest

from streamtwin.cli.main import main


@dataclass
class Ran:
    """A finished command: the fields of ``subprocess.CompletedProcess`` that the tests read."""

    returncode: int
    stdout: str
    stderr: str


def run_main(capfd: pytest.CaptureFixture[str], *argv: str) -> Ran:
    """``streamtwin ARGV`` in this process, as a process of its own would end: its exit status and output.

    Records logged at WARNING and above go to stderr, as ``main``'s ``logging.basicConfig`` sends them in a
    process of its own (here pytest's handlers already hold the root logger and it adds none): a logged
    traceback shows as it would.  argparse's ``SystemExit`` is the exit status it is in a process."""
    capfd.readouterr()  # what the test printed before is not the command's
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.getLogger().addHandler(handler)
    try:
        code = main(list(argv))
    except SystemExit as exit:
        code = exit.code if isinstance(exit.code, int) else 1
    finally:
        logging.getLogger().removeHandler(handler)
    out, err = capfd.readouterr()
    return Ran(code, out, err)


def assert_one_line_error(result: Ran | subprocess.CompletedProcess, *needles: str) -> None:
    """Exit status 1 and a last line ``streamtwin: error: ...`` that says every needle; no traceback."""
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("streamtwin: error: ")
    for needle in needles:
        assert needle in last
