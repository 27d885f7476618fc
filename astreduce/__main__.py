"""The ``astreduce`` command (and ``python -m astreduce``): the fork server first, then the command line.

Loading the command line takes a third of a second, and a fresh fork server
a tenth; started first, the server boots on the other core while the
commands load, and the first test finds it ready. Only the commands that
run candidates as Python start it; the others never fork a test.
"""

import sys

#: The commands whose tests may be forked by the fork server.
RUN_CANDIDATES = frozenset({"reduce", "batch", "slice", "isolate", "compare"})


def launch() -> None:
    if sys.argv[1:2] and sys.argv[1] in RUN_CANDIDATES:
        from astreduce.run.spare import start_server

        start_server()
    from astreduce.cli import main as command_line

    command_line()


if __name__ == "__main__":
    launch()
