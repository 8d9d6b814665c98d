"""`swarmstats agents`: the multi-agent estimators that apply to the files given, one line each.

- a SWARM event log: contagion between the agents' reputations;
- a table with an agent column (``--agent``, ``--value``): contagion between the agents' series,
  or, when the values are actions or strategies (text, or ``--actions``), their agreement;
- a table with team sizes and outcomes: the synergy gap;
- two or more runs: the equilibria they reached (``--metric``).
"""

from __future__ import annotations

from ..errors import InputError
from ..io import LOG_FORMATS
from ._options import (
    EXIT_PASS,
    add_command,
    add_input_format_option,
    add_output_options,
    at_least,
)

#: metrics tried, in order, for the equilibria of several SWARM runs when --metric is not given
_SWARM_METRICS = ("toxicity_rate", "total_welfare", "avg_payoff", "p", "accepted")


def add_parser(commands) -> None:
    parser = add_command(
        commands, "agents",
        description="Run the multi-agent estimators that apply and print one line each with its evidence: "
                    "contagion between agents (a SWARM event log's reputations, or a table with --agent and "
                    "--value columns), their agreement (a table whose --value column holds actions), the synergy gap (a table with --team-size and --outcome columns), and, "
                    "given two or more runs, how many equilibria they reached (--metric).",
        exits={0: "the analyses ran (read the lines: this command reports, it does not gate)"})
    parser.add_argument("files", metavar="FILE", nargs="+", help="SWARM event logs, or tables; two or more for equilibria")
    parser.add_argument("--agent", default="agent", metavar="COL", help="the agent column of a table (default agent)")
    parser.add_argument("--value", metavar="COL", help="the behaviour column of a table with an agent column")
    parser.add_argument("--actions", action="store_true",
                        help="the --value column holds actions or strategies (categories): measure the agents' "
                             "agreement (text values are taken as actions anyway)")
    parser.add_argument("--step", default="step", metavar="COL", help="the step column of a table (default step)")
    parser.add_argument("--team-size", default="team_size", metavar="COL",
                        help="the team-size column of a synergy table (default team_size)")
    parser.add_argument("--outcome", default="outcome", metavar="COL",
                        help="the team outcome column of a synergy table (default outcome)")
    parser.add_argument("--unit", default="unit", metavar="COL",
                        help="the seed/task column of a synergy table (default unit)")
    parser.add_argument("-m", "--metric", action="append", metavar="NAME",
                        help="a metric for the equilibria of several runs (repeatable; default: SWARM's "
                             "toxicity_rate, total_welfare, avg_payoff, p or accepted, those every run has)")
    parser.add_argument("--max-lag", type=at_least(1, " (steps)"), default=5, help="contagion: lags tried (default 5)")
    add_input_format_option(parser, LOG_FORMATS)
    add_output_options(parser, formats=("text", "json"), plot="one panel per analysis")


def run(args) -> int:
    from ._output import plot_results, render

    results, labels = [], []
    for path in args.files:
        for label, result in _per_file(path, args):
            results.append(result)
            labels.append(label)
    if len(args.files) >= 2:
        label, result = _equilibria(args)
        results.append(result)
        labels.append(label)
    if not results:
        raise InputError("nothing to analyse: give a SWARM event log, a table with an agent column (--agent, "
                         "--value) or team sizes (--team-size, --outcome), or two or more runs")
    render(args, "agents", results,
           text=lambda: print("\n".join(f"{label}: {result.summary().splitlines()[0]}"
                                         for label, result in zip(labels, results))),
           payload=lambda: {"results": [{"analysis": label, **result.to_dict()} for label, result in zip(labels, results)]})
    if args.plot:
        plot_results(results, args.plot, (8, 4))
    return EXIT_PASS


def _only_value(table, args) -> str:
    others = [c for c in table.columns if c not in (args.agent, args.step)]
    if len(others) != 1:
        raise InputError(f"a table with an agent column needs --value (one of {', '.join(map(str, others))})")
    return others[0]


def _per_file(path, args):
    import pandas as pd

    from ..agents import agreement, contagion, synergy_gap
    from ..agents.swarm_export import agent_reputations
    from ..io import read_table

    table = read_table(path, format=args.input_format)
    found = []
    if "event_type" in table.columns and (table["event_type"].astype(str) == "reputation_updated").any():
        reputations = agent_reputations(table)
        found.append((f"{path} ({reputations.shape[1]} agents' reputations)",
                      contagion(reputations, max_lag=args.max_lag)))
    elif args.agent in table.columns:
        value = args.value or _only_value(table, args)
        if args.actions or not pd.api.types.is_numeric_dtype(table[value]):
            found.append((f"{path} (agents' {value} as actions)",
                          agreement(table, agent=args.agent, step=args.step, value=value)))
        else:
            found.append((f"{path} (agents' {value})",
                          contagion(table, agent=args.agent, step=args.step, value=value, max_lag=args.max_lag)))
    if {args.team_size, args.outcome} <= set(table.columns):
        found.append((f"{path} (teams)", synergy_gap(table, outcome=args.outcome, size=args.team_size,
                                                          unit=args.unit)))
    return found


def _equilibria(args):
    from ..agents import equilibria
    from ..io import read_log
    from ..io.formats._sweep import require_series

    runs = {}
    for path in args.files:
        frame = require_series(read_log(path, format=args.input_format, wide=True), path)
        if "run" in frame.columns and frame["run"].nunique() > 1:
            raise InputError(f"{path}: the log holds {frame['run'].nunique()} runs; give one run per file")
        runs[str(path)] = frame
    metrics = args.metric
    if not metrics:
        common = set.intersection(*(set(frame.columns) for frame in runs.values()))
        metrics = [m for m in _SWARM_METRICS if m in common]
        if not metrics:
            raise InputError("the equilibria of several runs need --metric (no SWARM metric is in every run)")
    for path, frame in runs.items():
        missing = [m for m in metrics if m not in frame.columns]
        if missing:
            raise InputError(f"{path}: no column {missing[0]!r}")
        runs[path] = frame[metrics].dropna()
    return f"{len(runs)} runs ({', '.join(metrics)})", equilibria(runs, metrics=metrics)
