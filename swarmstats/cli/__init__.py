"""The ``swarmstats`` command: parse, load, call the API, render.  Nothing else.

Exit codes: 0 the check passed (for ``regimes``: the analysis ran), 1 it
failed (e.g. not converged, or too little data to tell), 2 a usage or input
error (one line on stderr; --debug shows the traceback).
"""

from __future__ import annotations

import importlib
import sys
import traceback
import warnings

from .. import __version__
from ..errors import InputError, MissingDependency
from ._options import (
    COMMANDS,
    EXIT_ERROR,
    EXIT_PASS,
    Parser,
    UsageError,
    add_shared_options,
)
from ._output import flush_notes, one_line

#: build_parser(): every command's full parser
ALL = "all"


def command_module(name: str):
    """The module of command ``name``, with ``add_parser(commands)`` and ``run(args)``."""
    return importlib.import_module(f".{COMMANDS[name][0]}", __name__)


def build_parser(only: str | None = ALL):
    """The parser: every command in full (``only=ALL``), or only the command ``only`` in full
    and the others as one-line entries (``None``: all as entries - enough for ``--help``,
    ``--version`` and an unknown command, and no analysis module is imported)."""
    parser = Parser(prog="swarmstats", description="Honest statistics for noisy reward and score series.")
    parser.add_argument("--version", action="version", version=f"swarmstats {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name, (_, help) in COMMANDS.items():
        if only == ALL or only == name:
            command_module(name).add_parser(commands)
        else:
            commands.add_parser(name, help=help)
        add_shared_options(commands.choices[name])
    return parser


def _check_outputs(args) -> None:
    """Refuse, before any work, an output (``-o``, ``--plot``) that is an input or has an
    extension that would not be written."""
    from ..io.outputs import PLOT_SUFFIXES, REPORT_SUFFIXES, check_output

    inputs = [getattr(args, "file", None), *(getattr(args, "paths", None) or [])]
    if getattr(args, "output", None):
        check_output(args.output, inputs, REPORT_SUFFIXES, what="report")
    if getattr(args, "plot", None):
        check_output(args.plot, inputs, PLOT_SUFFIXES, what="plot")


#: commands that read interaction or score tables, which an MLflow server does not hold
TABLES_ONLY = ("quality-gap", "proxy")
#: where each command keeps the logs it reads
LOG_ARGUMENTS = ("file", "paths", "sets")


def _server_sources(args) -> None:
    """With ``--mlflow-uri``, each log named is read from that tracking server; and a server
    source given to a command that reads tables is refused here, in one line."""
    from ..io import mlflow_server

    uri = getattr(args, "mlflow_uri", None)
    named = [getattr(args, name) for name in LOG_ARGUMENTS if getattr(args, name, None) is not None]
    logs = [log for value in named for log in (value if isinstance(value, list) else [value])]
    if args.command in TABLES_ONLY and (uri or any(mlflow_server.is_source(log) for log in logs)):
        raise UsageError(f"swarmstats {args.command}: reads a table of records, which an MLflow server "
                         "does not hold (its metric histories are read by check-convergence, describe, "
                         "regimes, windows, watch, sweep, compare, curves and report)")
    if not uri:
        return
    for name in LOG_ARGUMENTS:
        value = getattr(args, name, None)
        if isinstance(value, list):
            setattr(args, name, [mlflow_server.with_tracking_uri(log, uri) for log in value])
        elif value is not None:
            setattr(args, name, mlflow_server.with_tracking_uri(value, uri))


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(only=_chosen(argv))
    debug = "--debug" in argv
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
        _server_sources(args)
        _check_outputs(args)
        code = command_module(args.command).run(args)
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


def _chosen(argv: list) -> str | None:
    """The command named on the command line (None: none, or not one we know)."""
    first = next((word for word in argv if not word.startswith("-")), None)
    return first if first in COMMANDS else None


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
