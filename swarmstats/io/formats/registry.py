"""Every log format as one object - how to recognise it, how to read it - in the order they are tried.

A format has a *layout*, which says what its ``sniff`` and ``read`` are given:

* ``"text"`` - the first 64 KiB of the file as text (and its base name); ``read(name, data)``
  gets every byte.  SB3's ``monitor.csv`` (a JSON comment line, then ``r,l,t``), an MLflow
  metric file, the tables SB3's logger prints, the dicts a Hugging Face Trainer prints (a
  saved terminal or notebook), the table a Trainer draws in a notebook and the step lines
  verl prints.
* ``"json"`` - one parsed JSON document; ``read(payload, name)``.  A Hugging Face
  ``trainer_state.json``, a SWARM history, pymarl's ``info.json``, sacred's ``metrics.json``.
* ``"table"`` - the header of a CSV or JSON Lines table (the column names in order, and the
  base name); ``read(frame, name)`` converts the parsed table.  ``parse_as`` is how a file named
  with ``--input-format`` is parsed.
* ``"path"`` - a path (a file or a directory): TensorBoard event files.

Adding a format is adding one entry here (and a fixture in ``tests/fixtures/logs``); the
loader in :mod:`..logs` never names a format.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable

from ...errors import InputError
from . import (
    acme,
    console,
    d3rlpy,
    dreamer,
    fairseq,
    keras,
    lightning_bar,
    llamafactory,
    mappo,
    marl_eval,
    mesa,
    metric_logger,
    mlagents,
    mlflow,
    mmengine,
    nanogpt,
    netlogo,
    notebooks,
    optuna,
    printed_dicts,
    printed_pairs,
    printed_table,
    printed_template,
    pymarl,
    ray_console,
    rsl_rl,
    sacred,
    sample_factory,
    sb3,
    spinup,
    swarm_logs,
    tensorboard,
    tensorboard_csv,
    tensorboardx_json,
    tianshou,
    torchrl,
    trainers,
    verl,
    wandb,
)
from ._table import LogTable

__all__ = ["LogFormat", "REGISTRY", "get", "of_layout", "names"]


@dataclass(frozen=True)
class LogFormat:
    """One log format (see the module docstring)."""

    name: str
    layout: str
    sniff: Callable[..., bool]
    read: Callable[..., LogTable]
    parse_as: str = "csv"
    step_unit: str | None = None  # what one step is, for "per 100 <unit>" (None: steps)
    offered: bool = True  # a choice of --input-format (False: only recognised, to refuse it)
    #: for a reader that keeps the numeric columns only, as floats: the same reader given
    #: ``(columns, rows, name)``, the columns a dict of name -> floats, for a file of plain
    #: numbers read without a DataFrame (:mod:`..plain_csv`)
    read_numbers: Callable[[dict, int, str], LogTable] | None = None
    #: asked only where no other format read the file (``read_log`` would refuse it), or when named
    last_resort: bool = False


def _monitor_head(head: str, base: str) -> bool:
    lines = head.split("\n", 2)
    return head.startswith("#{") and len(lines) > 1 and lines[1].strip().startswith("r,l,t")


def _text(reader):
    """A text-layout reader from one taking the decoded text."""
    from ..tabular import decode_text

    return lambda name, data: reader(name, decode_text(name, data))


#: tried in this order; the first whose ``sniff`` says yes reads the log
REGISTRY = (
    # -- text: recognised from the file's first lines ------------------------------------------
    LogFormat("monitor", "text", _monitor_head,
              lambda name, data: sb3.read_monitor([(name, data)], name), step_unit="episodes"),
    LogFormat("mlflow", "text", lambda head, base: mlflow.is_metric_file(head),
              _text(mlflow.read_metric_file)),
    LogFormat("netlogo-table", "text", netlogo.is_table_head, netlogo.read_table),
    LogFormat("sb3-console", "text", console.is_console_head, _text(console.read_console)),
    LogFormat("hf-printed", "text", printed_dicts.is_printed_dicts_head, _text(printed_dicts.read_printed_dicts)),
    LogFormat("hf-notebook", "text", notebooks.is_trainer_table_head, _text(notebooks.read_trainer_tables)),
    LogFormat("verl-console", "text", verl.is_console_head, _text(verl.read_console)),
    LogFormat("nanogpt-console", "text", nanogpt.is_printed_head, _text(nanogpt.read_printed),
              step_unit="iterations"),
    LogFormat("pymarl-console", "text", pymarl.is_console_head, _text(pymarl.read_console),
              step_unit="timesteps"),
    LogFormat("mlagents-console", "text", mlagents.is_printed_head, _text(mlagents.read_printed)),
    LogFormat("rsl-rl-console", "text", rsl_rl.is_printed_head, _text(rsl_rl.read_printed),
              step_unit="iterations"),
    LogFormat("tianshou-console", "text", tianshou.is_printed_head, _text(tianshou.read_printed),
              step_unit="epochs"),
    LogFormat("keras-console", "text", keras.is_printed_head, _text(keras.read_printed), step_unit="epochs"),
    LogFormat("acme-console", "text", acme.is_printed_head, _text(acme.read_printed)),
    LogFormat("fairseq-console", "text", fairseq.is_printed_head, _text(fairseq.read_printed), step_unit="updates"),
    LogFormat("ray-console", "text", ray_console.is_printed_head, _text(ray_console.read_printed),
              step_unit="iterations"),
    LogFormat("dreamer-console", "text", dreamer.is_printed_head, _text(dreamer.read_printed), step_unit="steps"),
    LogFormat("mappo-console", "text", mappo.is_printed_head, _text(mappo.read_printed), step_unit="timesteps"),
    LogFormat("sample-factory-console", "text", sample_factory.is_printed_head, _text(sample_factory.read_printed),
              step_unit="frames"),
    LogFormat("mmengine-console", "text", mmengine.is_printed_head, _text(mmengine.read_printed),
              step_unit="iterations"),
    LogFormat("metric-logger-console", "text", metric_logger.is_printed_head, _text(metric_logger.read_printed),
              step_unit="iterations"),
    LogFormat("lightning-console", "text", lightning_bar.is_printed_head, _text(lightning_bar.read_printed),
              step_unit="batches"),
    LogFormat("torchrl-csv", "text", torchrl.is_scalar_head, _text(torchrl.read_scalar_file)),
    LogFormat("d3rlpy-csv", "text", d3rlpy.is_metric_head, _text(d3rlpy.read_metric_file)),
    LogFormat("printed-pairs", "text", printed_pairs.is_printed_head, _text(printed_pairs.read_printed)),
    LogFormat("printed-table", "text", printed_table.is_table_text, _text(printed_table.read_table),
              last_resort=True),
    LogFormat("printed-template", "text", printed_template.is_template_text, _text(printed_template.read_template),
              last_resort=True),
    # -- one JSON document -----------------------------------------------------------------------
    LogFormat("trainer-state", "json",
              lambda payload, base: base == "trainer_state.json" or (
                  isinstance(payload, dict) and "log_history" in payload),
              trainers.read_trainer_state),
    LogFormat("notebook", "json",  # a notebook in which no text format above found a log: refused
              lambda payload, base: isinstance(payload, dict) and "nbformat" in payload and "cells" in payload,
              lambda payload, name: notebooks.refuse(name), offered=False),
    LogFormat("swarm-history", "json",
              lambda payload, base: isinstance(payload, dict) and bool(swarm_logs.epoch_snapshots(payload)),
              swarm_logs.read_history, step_unit="epochs"),
    LogFormat("pymarl-info", "json", lambda payload, base: sacred.is_info(payload), sacred.read_info,
              step_unit="timesteps"),
    LogFormat("sacred-metrics", "json", lambda payload, base: sacred.is_metrics(payload), sacred.read_metrics),
    LogFormat("tensorboardx-json", "json", lambda payload, base: tensorboardx_json.is_export(payload),
              tensorboardx_json.read_export),
    LogFormat("marl-eval", "json", lambda payload, base: marl_eval.is_marl_eval(payload), marl_eval.read,
              step_unit="timesteps"),
    # -- tables: recognised from their header ----------------------------------------------------
    LogFormat("wandb-runs", "table", lambda names, base: wandb.is_runs_table(names),
              lambda frame, name: wandb.refuse_runs_table(name),  # one row per run: refused
              offered=False),
    LogFormat("mlflow-runs", "table", lambda names, base: mlflow.is_runs_table(names), mlflow.read_runs_table),
    LogFormat("optuna-trials", "table", lambda names, base: optuna.is_trials_table(names), optuna.read_trials,
              step_unit="trials"),
    LogFormat("wandb-chart", "table", lambda names, base: wandb.is_chart(names), wandb.read_chart),
    LogFormat("tensorboard-csv", "table", lambda names, base: tensorboard_csv.is_export(names),
              tensorboard_csv.read),
    LogFormat("wandb-history", "table", lambda names, base: "_step" in names, wandb.read_history),
    LogFormat("swarm-events", "table",
              lambda names, base: "event_type" in names and any(c.startswith("payload/") for c in names),
              swarm_logs.read_events, parse_as="jsonl", step_unit="interactions"),
    LogFormat("swarm-sweep", "table", lambda names, base: swarm_logs.is_sweep(names), swarm_logs.read_sweep),
    LogFormat("swarm-epochs", "table", lambda names, base: swarm_logs.is_epochs(names),
              swarm_logs.read_epochs, step_unit="epochs"),
    LogFormat("mesa-batch", "table", lambda names, base: mesa.is_batch_run(names), mesa.read_batch_run,
              read_numbers=mesa.read_batch_numbers),
    LogFormat("ray-result", "table",
              lambda names, base: "training_iteration" in names and base.endswith((".json", ".jsonl")),
              lambda frame, name: trainers.read_ray(frame, name, "ray-result"), parse_as="jsonl",
              step_unit="iterations"),
    LogFormat("ray-progress", "table", lambda names, base: "training_iteration" in names,
              lambda frame, name: trainers.read_ray(frame, name, "ray-progress"), step_unit="iterations"),
    LogFormat("verifiers", "table",
              lambda names, base: ("example_id" in names or "id" in names) and "reward" in names and (
                  "completion" in names or "prompt" in names or base.startswith("results")),
              trainers.read_verifiers, parse_as="jsonl", step_unit="rollouts"),
    LogFormat("sb3-progress", "table",
              lambda names, base: sb3.is_sb3_progress(names) and sb3.SB3_STEP in names,
              lambda frame, name: sb3.read_progress(frame, name, "sb3-progress"), step_unit="timesteps",
              read_numbers=lambda columns, rows, name: sb3.progress_table(columns, rows, name, "sb3-progress")),
    LogFormat("baselines-progress", "table", lambda names, base: sb3.is_baselines_progress(names),
              lambda frame, name: sb3.read_progress(frame, name, "baselines-progress"),
              read_numbers=lambda columns, rows, name: sb3.progress_table(columns, rows, name, "baselines-progress")),
    LogFormat("spinup-progress", "table", spinup.is_progress, spinup.read_progress, parse_as="tsv",
              step_unit="epochs"),
    LogFormat("lightning-csv", "table", lambda names, base: base == "metrics.csv" and {"step", "epoch"} <= set(names),
              trainers.read_lightning, read_numbers=lambda columns, rows, name: trainers.lightning_table(columns, name)),
    LogFormat("verl-file", "table", lambda names, base: verl.is_file_log(names), verl.read_file_log,
              parse_as="jsonl"),
    LogFormat("llamafactory", "table", lambda names, base: llamafactory.is_trainer_log(names),
              llamafactory.read_trainer_log, parse_as="jsonl"),
    LogFormat("prime-rl", "table",
              lambda names, base: base.startswith("metrics") and base.endswith(".jsonl") and "step" in names,
              trainers.read_prime_rl, parse_as="jsonl"),
    # -- paths -------------------------------------------------------------------------------------
    LogFormat("tensorboard", "path",
              lambda path: os.path.basename(path).startswith(tensorboard.PREFIX), tensorboard.read),
    LogFormat("sb3-evaluations", "path", sb3.is_evaluations, sb3.read_evaluations, step_unit="timesteps"),
)

_BY_NAME = {fmt.name: fmt for fmt in REGISTRY}
#: each layout's formats, in order (every read asks for three or four: ~5 us each to filter)
_BY_LAYOUT = {layout: tuple(fmt for fmt in REGISTRY if fmt.layout == layout)
              for layout in dict.fromkeys(fmt.layout for fmt in REGISTRY)}


def get(name: str) -> LogFormat:
    """The format called ``name`` (InputError when there is none)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise InputError(f"no log format {name!r}; the formats are {', '.join(names())}") from None


def of_layout(layout: str) -> tuple:
    """The formats of one layout, in the order they are tried."""
    return _BY_LAYOUT.get(layout, ())


def names() -> tuple:
    """The formats ``--input-format`` offers (besides the generic tables)."""
    return tuple(fmt.name for fmt in REGISTRY if fmt.offered)


def refuse_one_row_per_run(columns, name: str) -> None:
    """The InputError for a runs table (W&B's, ``mlflow.search_runs()``'s: one row per run, each
    metric's last value), for a reader that sees the header alone (``watch``, which followed such
    a table as runs of one point each); nothing for any other header."""
    found = sniff_table(columns, os.path.basename(name))
    if found is not None and found.name == "wandb-runs":
        wandb.refuse_runs_table(name)
    if found is not None and found.name == "mlflow-runs":
        mlflow.refuse_runs_table(name)


def sniff_table(columns, base: str) -> LogFormat | None:
    """The first table format whose header test passes (None: a generic table)."""
    # (a pandas index listed first: iterating its Arrow strings costs ~0.6 us a name)
    found = [str(column) for column in (columns.tolist() if hasattr(columns, "tolist") else columns)]
    return next((fmt for fmt in of_layout("table") if fmt.sniff(found, base)), None)
