"""The ``tpb`` command of the wheel: the CLI's own code (the root crate's
``tpb::main_with_args``), run in this process by the native module, so it
behaves as the Rust binary does: same subcommands, output and exit codes."""

from __future__ import annotations

import os
import shlex
import signal
import sys
from typing import List, Optional

from . import _tpb


def main(argv: Optional[List[str]] = None) -> int:
    """Runs ``tpb`` with ``argv`` (default ``sys.argv[1:]``); as a console script, exits with its code."""
    args = ["tpb", *(sys.argv[1:] if argv is None else argv)]
    # Commands that start `tpb` again as a child (`differ --lib` runs the library
    # in one) start this interpreter on this package: the executable is Python here.
    os.environ.setdefault("TPB_SELF", shlex.join([sys.executable, "-m", "tpb"]))
    sys.stdout.flush()
    sys.stderr.flush()
    # The command runs in Rust with the interpreter released: Ctrl-C ends the
    # process as it ends the binary (Python's handler would only run after it).
    # SIGPIPE stays ignored, as in the binary: a reader that leaves is seen as EPIPE.
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_DFL)
    except ValueError:  # not the main thread: signals are not this thread's to set
        return _tpb.main(args)
    try:
        return _tpb.main(args)
    finally:
        signal.signal(signal.SIGINT, previous)


def _run() -> None:  # pragma: no cover
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    _run()
