"""`swarmstats watch`: follow a growing log and print verdict changes as they happen."""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sys
import time

from .._result import fmt
from ..errors import InputError
from ..io.tabular import is_bookkeeping_name, step_names
from ..live import Monitor
from ._common import EXIT_PASS, dump_json


def add_parser(commands) -> None:
    watch = commands.add_parser(
        "watch", help="follow a growing log (e.g. prime-rl metrics.jsonl) and print verdict changes",
        description="Follow a log that a running job appends to (JSON Lines or CSV) and print a line "
                    "whenever a metric's convergence verdict changes.  Ctrl-C stops it cleanly with "
                    "a summary.",
        epilog="exit codes:\n  0  stopped (Ctrl-C, --once, or --max-idle reached)\n"
               "  2  usage or input error (one line on stderr)",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    watch.add_argument("file", metavar="FILE", help="a JSON Lines or CSV log being written")
    watch.add_argument("-m", "--metric", action="append", default=None,
                       help="metric to follow (repeatable; default: every numeric key)")
    watch.add_argument("--step", help="key of the step (default: step, _step, global_step, ...)")
    watch.add_argument("--interval", type=float, default=1.0, help="seconds between polls (default 1)")
    watch.add_argument("--max-idle", type=float, help="stop after this many seconds without new lines")
    watch.add_argument("--once", action="store_true", help="read what is there, report, and stop")
    watch.add_argument("--check-every", type=int, default=None,
                       help="re-check every N values (default: whenever a metric has grown by half; "
                            "each check spends part of alpha, so fewer checks stop sooner)")
    watch.add_argument("--format", choices=("text", "json"), default="text",
                       help="json: one JSON object per verdict change, then the final report")
    watch.add_argument("--debug", action="store_true", help="show tracebacks on errors")


class Follower:
    """New complete lines of a file being appended to; a shrunk file is read again from the top
    (a logger that rewrites its file, as SB3 does when new keys appear)."""

    def __init__(self, path: str):
        if os.path.isdir(path):
            raise InputError(f"{path} is a directory; pass the log file being written")
        if not os.path.isfile(path):
            raise InputError(f"no such file: {path}")
        self.path = path
        self.offset = 0
        self.partial = b""
        self.header = None
        self.restarted = False

    def lines(self) -> list[str]:
        size = os.path.getsize(self.path)
        self.restarted = size < self.offset
        if self.restarted:
            self.offset, self.partial, self.header = 0, b"", None
        with open(self.path, "rb") as handle:
            handle.seek(self.offset)
            data = handle.read()
        self.offset += len(data)
        data = self.partial + data
        complete, _, self.partial = data.rpartition(b"\n")  # the last line may be half written
        if not complete and not _:
            return []
        return [line for line in complete.decode("utf-8-sig").split("\n") if line.strip()]

    def records(self) -> list[dict]:
        out = []
        for line in self.lines():
            stripped = line.strip()
            if stripped.startswith("#"):
                continue
            if stripped.startswith("{"):
                try:
                    record = json.loads(stripped)
                except json.JSONDecodeError as exc:
                    raise InputError(f"{self.path}: a line is not valid JSON ({exc.msg})") from None
                if isinstance(record, dict):
                    out.append(_flatten(record))
                continue
            row = next(csv.reader(io.StringIO(line)))
            if self.header is None:
                self.header = [cell.strip() for cell in row]
                continue
            out.append(dict(zip(self.header, row)))
        return out


def _flatten(record: dict, prefix: str = "") -> dict:
    flat = {}
    for key, value in record.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{prefix}{key}/"))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _numbers(record: dict, step_key: str | None) -> tuple:
    step = record.get(step_key) if step_key else None
    values = {}
    for key, raw in record.items():
        if key == step_key or is_bookkeeping_name(key):  # the same columns the other commands leave out
            continue
        if isinstance(raw, str):
            try:
                raw = float(raw) if raw.strip() else None
            except ValueError:
                continue
        if raw is None or isinstance(raw, (int, float)):
            values[key] = raw
    return step, values


def run(args) -> int:
    if args.interval <= 0:
        raise InputError(f"--interval must be positive, got {args.interval}")
    follower = Follower(args.file)
    monitor = Monitor(metrics=args.metric, check_every=args.check_every)
    verdicts: dict = {}
    idle_since = time.monotonic()
    calls = 0
    try:
        while True:
            records = follower.records()
            if follower.restarted:
                monitor = Monitor(metrics=args.metric, check_every=args.check_every)
                verdicts = {}
                _say(args, {"event": "restart", "message": "the file was rewritten; reading it again"})
            for record in records:
                step_key = args.step or next(iter(step_names(record)), None)
                step, values = _numbers(record, step_key)
                calls += 1
                monitor.log(step if step is not None else calls - 1, **values)
            if records:
                idle_since = time.monotonic()
                _report_changes(args, monitor, verdicts)
            if args.once or (args.max_idle is not None and time.monotonic() - idle_since >= args.max_idle):
                break
            time.sleep(args.interval)
    except KeyboardInterrupt:
        pass  # a clean stop: the summary below
    report = monitor.report()
    if args.format == "json":
        dump_json({"command": "watch", "source": args.file, "report": report.to_dict()})
    else:
        print(report.summary())
    return EXIT_PASS


def _report_changes(args, monitor: Monitor, verdicts: dict) -> None:
    report = monitor.report()
    for name, entry in report.metrics.items():
        if verdicts.get(name) != entry["verdict"]:
            verdicts[name] = entry["verdict"]
            _say(args, {"event": "verdict", "metric": name, "step": entry["last_step"], "n": entry["n"],
                        "verdict": entry["verdict"], "mean": entry["mean"],
                        "message": f"step {entry['last_step']}: {name} is {entry['verdict'].replace('_', ' ')} "
                                   f"(n {entry['n']}, mean {fmt(entry['mean'])})"})


def _say(args, event: dict) -> None:
    if args.format == "json":
        print(json.dumps({k: v for k, v in event.items() if k != "message"} | {"message": event["message"]}),
              flush=True)
    else:
        print(event["message"], flush=True)
    sys.stdout.flush()
