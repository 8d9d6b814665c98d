"""A live MLflow tracking server as a log: every run of an experiment, or one run.

A source names the server and what to read from it:

- ``mlflow://HOST[:PORT][/PREFIX]/experiments/NAME_OR_ID`` - every active run of the experiment,
  each a run of the log (labelled by its run name), with its parameters kept;
- ``mlflow://HOST[:PORT][/PREFIX]/runs/RUN_ID`` - one run;
- ``mlflows://...`` - the same over HTTPS.

Or, with a tracking URI given apart (``read_log(..., mlflow_uri=URI)``, ``--mlflow-uri URI``),
just ``experiments/NAME`` or ``runs/RUN_ID``.

The server is read through MLflow's REST API (``/api/2.0/mlflow/...``) with the standard
library: no MLflow package is needed to read.  ``MLFLOW_TRACKING_TOKEN`` is sent as a bearer
token, ``MLFLOW_TRACKING_USERNAME`` / ``MLFLOW_TRACKING_PASSWORD`` as basic authentication, as
MLflow's own client does.  Each metric's whole history is read, page by page.
"""

from __future__ import annotations

import base64
import json
import math
import os
import urllib.parse
from dataclasses import dataclass

import pandas as pd

from ..errors import InputError
from .formats._table import LogTable, sparse_to_wide
from .written_nan import scalar

SCHEMES = {"mlflow": "http", "mlflows": "https"}
#: what a source may ask for, after the server's address
KINDS = ("experiments", "runs")
#: seconds to wait for one answer from the server
TIMEOUT = 30.0
#: the largest pages MLflow serves: runs per search, values per metric history
RUNS_PAGE, HISTORY_PAGE = 1000, 25000


@dataclass(frozen=True)
class ServerSource:
    """Where a server source points: the tracking URI, and an experiment or a run."""

    tracking_uri: str
    kind: str     # "experiments" or "runs"
    name: str     # the experiment's name or id, or the run's id

    def __str__(self) -> str:
        return f"{self.tracking_uri} {self.kind[:-1]} {self.name!r}"


def is_source(source) -> bool:
    """A string naming an MLflow server (``mlflow://`` or ``mlflows://``)."""
    return isinstance(source, str) and source.split("://", 1)[0] in SCHEMES and "://" in source


def with_tracking_uri(selector: str, tracking_uri: str) -> str:
    """``experiments/NAME`` or ``runs/ID`` on the server at ``tracking_uri``, as one source.

    >>> with_tracking_uri("experiments/ppo", "http://127.0.0.1:5000")
    'mlflow://127.0.0.1:5000/experiments/ppo'
    >>> with_tracking_uri("runs/abc", "https://mlflow.example.org/tracking/")
    'mlflows://mlflow.example.org/tracking/runs/abc'
    """
    parsed = urllib.parse.urlsplit(str(tracking_uri))
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise InputError(f"--mlflow-uri must be an http:// or https:// address of a tracking server, "
                         f"got {tracking_uri!r}")
    selector = str(selector).lstrip("/")
    if selector.split("/", 1)[0] not in KINDS:
        raise InputError(f"with an MLflow server, say what to read: experiments/NAME_OR_ID or runs/RUN_ID, "
                         f"got {selector!r}")
    scheme = "mlflows" if parsed.scheme == "https" else "mlflow"
    prefix = parsed.path.rstrip("/")
    return f"{scheme}://{parsed.netloc}{prefix}/{selector}"


def parse_source(source: str) -> ServerSource:
    """The tracking URI and what to read, from an ``mlflow://`` source.

    >>> parse_source("mlflow://localhost:5000/experiments/Default")
    ServerSource(tracking_uri='http://localhost:5000', kind='experiments', name='Default')
    >>> parse_source("mlflows://host/prefix/experiments//Users/me/exp").name   # names may hold '/'
    '/Users/me/exp'
    """
    scheme, rest = source.split("://", 1)
    netloc, _, path = rest.partition("/")
    if not netloc:
        raise InputError(f"{source}: no server address after {scheme}://")
    path = "/" + path
    found = [(path.find(f"/{kind}/"), kind) for kind in KINDS if f"/{kind}/" in path]
    if not found:
        raise InputError(f"{source}: say what to read from the server: .../experiments/NAME_OR_ID or "
                         ".../runs/RUN_ID")
    start, kind = min(found)
    name = urllib.parse.unquote(path[start + len(kind) + 2:])
    if not name:
        raise InputError(f"{source}: no {kind[:-1]} named after /{kind}/")
    return ServerSource(f"{SCHEMES[scheme]}://{netloc}{path[:start]}", kind, name)


class _Client:
    """The few REST calls a log needs, with the errors said in one line."""

    def __init__(self, tracking_uri: str):
        self.base = tracking_uri.rstrip("/") + "/api/2.0/mlflow/"
        self.headers = {"Content-Type": "application/json", "User-Agent": "swarmstats"}
        token = os.environ.get("MLFLOW_TRACKING_TOKEN")
        user, password = os.environ.get("MLFLOW_TRACKING_USERNAME"), os.environ.get("MLFLOW_TRACKING_PASSWORD")
        if token:
            self.headers["Authorization"] = f"Bearer {token}"
        elif user and password:
            pair = base64.b64encode(f"{user}:{password}".encode()).decode()
            self.headers["Authorization"] = f"Basic {pair}"
        self.tracking_uri = tracking_uri

    def call(self, endpoint: str, *, query: dict | None = None, body: dict | None = None) -> dict:
        url = self.base + endpoint
        if query:
            url += "?" + urllib.parse.urlencode(query)
        # urllib.request brings http.client, ssl and email (~9 ms): loaded only when a server is asked
        from urllib.error import HTTPError, URLError
        from urllib.request import Request, urlopen

        data = None if body is None else json.dumps(body).encode()
        request = Request(url, data=data, headers=self.headers,
                          method="GET" if body is None else "POST")
        try:
            with urlopen(request, timeout=TIMEOUT) as response:
                return json.loads(response.read().decode("utf-8") or "{}")
        except HTTPError as exc:
            raise _ServerError(exc.code, _error_message(exc)) from None
        except (URLError, TimeoutError, ConnectionError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise InputError(f"could not reach the MLflow server at {self.tracking_uri}: {reason}") from None
        except (ValueError, UnicodeDecodeError):
            raise InputError(f"{self.tracking_uri} did not answer like an MLflow tracking server "
                             f"(no JSON from {endpoint})") from None


class _ServerError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def _error_message(exc) -> str:
    """The server's own message in an HTTP error's JSON body, else the HTTP reason."""
    try:
        payload = json.loads(exc.read().decode("utf-8"))
        return str(payload.get("message") or payload.get("error_code") or exc.reason)
    except (ValueError, UnicodeDecodeError, AttributeError):
        return str(exc.reason)


def read(source: str) -> LogTable:
    """The runs behind an ``mlflow://`` source as one wide log: ``run`` (for an experiment),
    ``step``, ``wall_time`` and one column per metric.  ``frame.attrs["run_params"]`` maps each
    run's label to its parameters (numbers as floats)."""
    where = parse_source(source)
    client = _Client(where.tracking_uri)
    try:
        if where.kind == "runs":
            runs, label = [_run(client, where.name)], None
        else:
            experiment = _experiment(client, where.name)
            runs, label = _search(client, experiment["experiment_id"]), experiment.get("name", where.name)
    except _ServerError as exc:
        raise InputError(f"{where}: the server says {exc}") from None
    if not runs:
        raise InputError(f"{where}: the experiment has no active runs")
    labels = _labels(runs)
    parts, params = [], {}
    for run, name in zip(runs, labels):
        tidy = _history(client, run, where)
        if where.kind == "experiments":
            tidy.insert(0, "run", name)
        parts.append(tidy)
        params[name] = {entry["key"]: _param(entry.get("value", "")) for entry in run.get("data", {}).get("params", [])}
    tidy = pd.concat(parts, ignore_index=True)
    if tidy.empty:
        raise InputError(f"{where}: no metric values logged")
    frame = _wide(tidy)
    frame.attrs["run_params"] = params
    notes = ([f"{len(runs)} run(s) of experiment {label!r} on {where.tracking_uri}, one run each"]
             if where.kind == "experiments" else [f"run {labels[0]!r} on {where.tracking_uri}"])
    return LogTable(frame, "mlflow", source, notes)


def _get(client: _Client, endpoint: str, query: dict, field: str, missing: str | None) -> dict:
    """One object from the server; a 404 is the error ``missing`` (None: raised on as it is)."""
    try:
        return client.call(endpoint, query=query)[field]
    except _ServerError as exc:
        if exc.status == 404 and missing is not None:
            raise InputError(f"{client.tracking_uri}: {missing}") from None
        raise


def _experiment(client: _Client, name: str) -> dict:
    # a number that names no experiment is taken as an experiment's id
    by_name = None if name.isdigit() else f"no experiment named {name!r}"
    try:
        return _get(client, "experiments/get-by-name", {"experiment_name": name}, "experiment", by_name)
    except _ServerError as exc:
        if exc.status != 404:
            raise
    return _get(client, "experiments/get", {"experiment_id": name}, "experiment",
                f"no experiment named or numbered {name!r}")


def _run(client: _Client, run_id: str) -> dict:
    return _get(client, "runs/get", {"run_id": run_id}, "run", f"no run {run_id!r}")


def _search(client: _Client, experiment_id: str) -> list:
    runs, token = [], None
    while True:
        body = {"experiment_ids": [experiment_id], "max_results": RUNS_PAGE, "run_view_type": "ACTIVE_ONLY",
                "order_by": ["attributes.start_time ASC"]}
        if token:
            body["page_token"] = token
        answer = client.call("runs/search", body=body)
        runs += answer.get("runs", [])
        token = answer.get("next_page_token")
        if not token:
            return runs


def _labels(runs: list) -> list:
    """Each run's name, made unique with the start of its id where names repeat."""
    names = [run["info"].get("run_name") or run["info"]["run_id"] for run in runs]
    repeated = {name for name in names if names.count(name) > 1}
    return [f"{name} ({run['info']['run_id'][:8]})" if name in repeated else name
            for name, run in zip(names, runs)]


def _history(client: _Client, run: dict, where: ServerSource) -> pd.DataFrame:
    """Every logged value of every metric of ``run``: (step, metric, value, wall_time)."""
    run_id = run["info"]["run_id"]
    keys = sorted({entry["key"] for entry in run.get("data", {}).get("metrics", [])})
    rows = []
    for key in keys:
        token = None
        while True:
            query = {"run_id": run_id, "metric_key": key, "max_results": HISTORY_PAGE}
            if token:
                query["page_token"] = token
            try:
                answer = client.call("metrics/get-history", query=query)
            except _ServerError as exc:
                raise InputError(f"{where}: the server says {exc} (metric {key!r} of run {run_id})") from None
            for point in answer.get("metrics", []):
                rows.append((float(point.get("step", 0)), key, _number(point.get("value")),
                             float(point.get("timestamp", 0)) / 1000.0))
            token = answer.get("next_page_token")
            if not token:
                break
    return pd.DataFrame(rows, columns=["step", "metric", "value", "wall_time"])


def _number(value) -> float:
    """A metric value as MLflow's JSON carries it (a number, or "NaN" / "Infinity" as text: a
    NaN there was logged, see .written_nan)."""
    try:
        return scalar(float(value))
    except (TypeError, ValueError):
        return math.nan


def _param(text: str):
    try:
        return float(text)
    except ValueError:
        return text


def _wide(tidy: pd.DataFrame) -> pd.DataFrame:
    """One row per (run, step): metrics as columns, the latest wall time of the step."""
    wide = sparse_to_wide(tidy.drop(columns="wall_time"))
    index = [c for c in ("run", "step") if c in tidy.columns]
    times = tidy.groupby(index, sort=True)["wall_time"].max().reset_index()
    wide = wide.merge(times, on=index, how="left")
    ordered = index + ["wall_time"] + [c for c in wide.columns if c not in index and c != "wall_time"]
    return wide[ordered]


class RunPoller:
    """One run on a server, read again at each :meth:`new_points`: the values logged since the
    last call, per metric in step order.  Metrics are appended to, never rewritten; if a
    metric's history is shorter than already seen (the run was deleted and recreated), every
    value is new again and ``restarted`` says so."""

    def __init__(self, source: str):
        self.where = parse_source(source)
        if self.where.kind != "runs":
            raise InputError(f"{source}: a watch follows one run; name it as .../runs/RUN_ID "
                             "(the experiment's runs are listed in the MLflow UI)")
        self._client = _Client(self.where.tracking_uri)
        self._seen: dict = {}
        self.restarted = False
        self._fetch()  # an unknown run or an unreachable server is an input error at once

    def _fetch(self) -> pd.DataFrame:
        try:
            run = _run(self._client, self.where.name)
        except _ServerError as exc:
            raise InputError(f"{self.where}: the server says {exc}") from None
        return _history(self._client, run, self.where)

    def new_points(self) -> pd.DataFrame:
        """(step, metric, value, wall_time) of each value logged since the last call."""
        history = self._fetch().sort_values(["metric", "step", "wall_time"], kind="stable")
        counts = history.groupby("metric", sort=False).size().to_dict()
        self.restarted = any(counts.get(metric, 0) < seen for metric, seen in self._seen.items())
        if self.restarted:
            self._seen = {}
        fresh = [points.iloc[self._seen.get(metric, 0):]
                 for metric, points in history.groupby("metric", sort=False)]
        self._seen = counts
        if not fresh:
            return history
        return pd.concat(fresh).sort_values(["step", "wall_time"], kind="stable")
