"""The ``swarmstats`` command: parse, load, call the API, render.  Nothing else.

Exit codes: 0 the check passed (for ``regimes``: the analysis ran), 1 it
failed (e.g. not converged, or too little data to tell), 2 a usage or input
error (one line on stderr; --debug shows the traceback).
"""

from __future__ import annotations

import sys
import traceback
import warnings

from .. import __version__
from ..errors import InputError, MissingDependency
from ..io.outputs import PLOT_SUFFIXES, REPORT_SUFFIXES, check_output
from . import (
    convergence,
    describe,
    proxy,
    quality,
    regimes,
    report,
    sweep,
    watch,
    windows,
)
from ._common import (
    EXIT_ERROR,
    EXIT_PASS,
    Parser,
    UsageError,
    add_shared_options,
    flush_notes,
    one_line,
)

#: command name -> module with add_parser(commands) and run(args)
COMMANDS = {"check-convergence": convergence, "regimes": regimes, "quality-gap": quality,
            "describe": describe, "proxy": proxy, "windows": windows, "watch": watch,
            "sweep": sweep, "report": report}


def build_parser():
    parser = Parser(prog="swarmstats", description="Honest statistics for noisy reward and score series.")
    parser.add_argument("--version", action="version", version=f"swarmstats {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name, module in COMMANDS.items():
        module.add_parser(commands)
        add_shared_options(commands.choices[name])
    return parser


def _check_outputs(args) -> None:
    """Refuse, before any work, an output (``-o``, ``--plot``) that is an input or has an
    extension that would not be written."""
    inputs = [getattr(args, "file", None), *(getattr(args, "paths", None) or [])]
    if getattr(args, "output", None):
        check_output(args.output, inputs, REPORT_SUFFIXES, what="report")
    if getattr(args, "plot", None):
        check_output(args.plot, inputs, PLOT_SUFFIXES, what="plot")


def main(argv=None) -> int:
    parser = build_parser()
    debug = "--debug" in (sys.argv[1:] if argv is None else argv)
    with warnings.catch_warnings():
        if not debug:  # library warnings (numpy on inf, statsmodels' tables) are not for the shell
            warnings.simplefilter("ignore")
        return _main(parser, argv, debug)


def _main(parser, argv, debug: bool) -> int:
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help(sys.stderr)
            return EXIT_ERROR
        _check_outputs(args)
        code = COMMANDS[args.command].run(args)
        flush_notes()
        return code
    except (UsageError, InputError, MissingDependency) as exc:
        flush_notes(keep=False)
        if debug:
            traceback.print_exc()
        message = str(exc) if isinstance(exc, UsageError) else f"swarmstats: error: {exc}"
        print(one_line(message), file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. piped into head
        return EXIT_PASS
    finally:
        flush_notes(keep=False)  # whatever happened, the next call starts with no notes


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
