"""A Ray Tune experiment folder (``~/ray_results/<experiment>/``) read as its trials.

Tune writes one folder per trial, holding the trial's configuration (``params.json``) and its
results (``result.json``, ``progress.csv``), beside the experiment's own files
(``experiment_state-<time>.json``, ``basic-variant-state-<time>.json``, ``tuner.pkl``).  Given
the experiment folder, ``read_log`` took its one JSON file, the experiment's state, for "a run
folder holding one log" and stopped at "expected a JSON list of records".  Here each trial is a
run named after its folder, read as a trial folder is read alone (``result.json``, else
``progress.csv``), and its ``params.json`` is its configuration: trials of one configuration
(their seeds aside) are replicates, trials of different ones are never pooled.  A trial whose
results cannot be read is left out with a note, the others read.
"""

from __future__ import annotations

import os

from ...errors import InputError
from ._table import LogTable, load_runs, runs_frame
from .sacred import config_labels

#: a trial's configuration, written when it starts
PARAMS = "params.json"
#: a trial's results, in the order a trial folder alone is read
RESULTS = ("result.json", "progress.csv")


def trial_folders(path: str) -> list:
    """The folders of ``path`` that are Tune trials (a ``params.json`` and results), by name."""
    found = []
    for entry in sorted(os.listdir(path)):
        folder = os.path.join(path, entry)
        if (os.path.isdir(folder) and os.path.isfile(os.path.join(folder, PARAMS))
                and any(os.path.isfile(os.path.join(folder, results)) for results in RESULTS)):
            found.append(entry)
    return found


def read_experiment(path: str, load) -> LogTable | None:
    """The trials below ``path`` as runs (module docstring), each read with ``load(file, None)``
    (the loader of :mod:`..logs`); None for a folder holding no trial folder."""
    folders = trial_folders(path)
    if not folders:
        return None
    results = [(folder, next(os.path.join(path, folder, file) for file in RESULTS
                              if os.path.isfile(os.path.join(path, folder, file))), None) for folder in folders]
    parts, notes, failed, formats = load_runs(results, load)
    if not parts:
        raise InputError(f"{path}: a Ray Tune experiment, but no trial's results could be read ({failed[0]})")
    read = [str(part["run"].iloc[0]) for part in parts]
    notes = [f"a Ray Tune experiment: {len(read)} trial folder(s), one run each, each trial's params.json its "
             "configuration"] + failed + notes
    configs = config_labels(path, read, PARAMS)  # ({} when a trial's params.json cannot be read)
    return LogTable(runs_frame(parts), formats.pop() if len(formats) == 1 else "ray-result", path, notes,
                    run_configs=configs, configs_complete=bool(configs))
