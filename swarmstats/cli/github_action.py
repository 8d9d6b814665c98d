"""The GitHub Action's check step (``action.yml`` at the repository root).

Runs ``swarmstats check-convergence`` on a log and turns its JSON into what a GitHub job shows:

* one **annotation** per metric on the log file - an error for ``not_converged``, a warning for
  ``insufficient_data``, a notice for ``converged`` - with the verdict's first reason;
* a **job summary** table (metric, verdict, mean with its interval, reason) appended to
  ``$GITHUB_STEP_SUMMARY``;
* the overall verdict as the step output ``verdict`` (``$GITHUB_OUTPUT``).

It exits as the command does (0 every metric converged, 1 not, 2 an input error), or 0 for
a verdict other than an error when ``--fail false``.  Outside GitHub (no such variables) it
prints the annotations and the summary to stdout, so the steps can be run and tested locally.

    python -m swarmstats.cli.github_action LOG [--metrics "reward loss"] [--args "--alpha 0.01"] [--fail true]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys

from .._result import fmt
from ..convergence.improvement import (
    BELOW_BEST,
    NO_IMPROVEMENT,
    no_improvement_note,
    worse_than_best_note,
)

LEVELS = {"not_converged": "error", "insufficient_data": "warning", "converged": "notice"}


def escape_data(text: str) -> str:
    """A workflow command's message, escaped as GitHub's runner expects.

    >>> escape_data("50% done\\nnext")
    '50%25 done%0Anext'
    """
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value (``file=``, ``title=``): also ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(level: str, file: str, title: str, message: str) -> str:
    return f"::{level} file={escape_property(file)},title={escape_property(title)}::{escape_data(message)}"


def summary_table(log: str, payload: dict) -> str:
    """The job summary: a Markdown table of the verdicts."""
    lines = [f"### swarmstats check-convergence: `{log}`", "",
             f"**{'every metric converged' if payload.get('passed') else 'not every metric converged'}**"
             f" ({len(payload['results'])} checked)", "",
             "| metric | verdict | mean [95% CI] | reason |", "|---|---|---|---|"]
    for result in payload["results"]:
        ci = result.get("ci") or [None, None]
        mean = f"{fmt(result.get('mean'))} [{fmt(ci[0])}, {fmt(ci[1])}]"
        reason = (result.get("reasons") or [""])[0].replace("|", "\\|")
        lines.append(f"| {result.get('name')} | {result['verdict'].replace('_', ' ')} | {mean} | {reason} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m swarmstats.cli.github_action")
    parser.add_argument("log")
    parser.add_argument("--metrics", default="", help="space-separated metric names (default: all)")
    parser.add_argument("--args", default="", help="more check-convergence options, as one string")
    parser.add_argument("--fail", default="true", choices=("true", "false"),
                        help="exit 1 when a metric has not converged (default true)")
    options = parser.parse_args(argv)
    command = [sys.executable, "-m", "swarmstats.cli", "check-convergence", options.log,
               *[part for metric in options.metrics.split() for part in ("-m", metric)],
               *shlex.split(options.args), "--format", "json"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        message = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "check-convergence failed"
        print(annotation("error", options.log, "swarmstats", message))
        _output("verdict", "error")
        return 2
    payload = json.loads(done.stdout)
    for result in payload["results"]:
        verdict = result["verdict"]
        reason = (result.get("reasons") or [verdict])[0]
        held = no_improvement_note(result.get("reasons")) if verdict == "converged" else None
        if held is not None:  # flat, but nothing learned in this log: worth a look, not a failure
            print(annotation("warning", options.log, f"{result.get('name')}: converged, {NO_IMPROVEMENT}", held))
            continue
        worse = worse_than_best_note(result.get("reasons")) if verdict == "converged" else None
        if worse is not None:  # flat, but below where it had been: a checkpoint question, not a failure
            print(annotation("warning", options.log, f"{result.get('name')}: converged, {BELOW_BEST}", worse))
            continue
        print(annotation(LEVELS.get(verdict, "warning"), options.log,
                         f"{result.get('name')}: {verdict.replace('_', ' ')}", reason))
    summary = summary_table(options.log, payload)
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if target:
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(summary)
    else:
        print(summary)
    _output("verdict", payload.get("verdict", "error"))
    if done.returncode == 1 and options.fail == "false":
        return 0
    return done.returncode


def _output(name: str, value: str) -> None:
    target = os.environ.get("GITHUB_OUTPUT")
    if target:
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(f"{name}={value}\n")


if __name__ == "__main__":
    sys.exit(main())
