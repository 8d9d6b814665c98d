"""The roles of a table's columns: the step axis, the runs, the metrics analysed by default,
and the bookkeeping left out of them (counters, clocks, throughput, schedules, system
measurements) with the reason."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..direction import is_measurement_name, split_camel
from ..errors import InputError
from .flags import FLAG_LEFT_OUT, flag_floats, is_outcome_flag
from .formats._table import printed_number
from .runs import SETTING_COLUMNS, RunKey, find_runs, normalise
from .written_nan import MISSING_TOKENS, NAN_TOKENS, column_floats, is_written

#: step axes by name, finest first (compared with ``normalise``: no case, "_" for separators)
STEP_COLUMNS = ("step", "_step", "global_step", "trainer/global_step", "current_steps", "total_timesteps",
                "time/total_timesteps", "timesteps", "timestepssofar", "num_timesteps", "env_steps",
                "steps", "frames", "training_iteration", "iteration", "iterations", "time/iterations",
                "epoch", "episode", "episodes", "time/episodes", "train/episode",
                # an agent-based simulation's or an evolutionary search's own clock
                "round", "rounds", "generation", "gen", "tick", "ticks")
TIME_COLUMNS = ("time", "timestamp", "_runtime", "t", "_timestamp", "wall_time")
RUN_COLUMNS = ("run", "seed", "run_id")
_STEP_NAMES = tuple(dict.fromkeys(normalise(c) for c in STEP_COLUMNS))
_TIME_NAMES = {normalise(c) for c in TIME_COLUMNS}
SYSTEM_MEASUREMENT = "a system measurement: time, memory or hardware use"
CONFIG_SETTING = "a setting of the run: its configuration"
#: what is left out of the default metric selection, by name (normalised), and why
_BOOKKEEPING = (
    # Ray/RLlib's work done per iteration and since a restore are counts, not outcomes (a real
    # RLlib progress.csv's episodes_this_iter and timesteps_since_restore were judged as metrics)
    # (not a duration per epoch: "AVG Time Per Epoch" is a clock)
    ("a counter", re.compile(r"(?<!per)(^|_)(n_updates|num_updates|updates|num_episodes|n_episodes|episodes?|"
                             r"steps_done|num_steps|total_steps|n_steps|total_timesteps|timesteps|"
                             # Spinning Up's TotalEnvInteracts, garage's TotalEnvSteps, rllab's NumTrajs
                             r"env_interacts|env_steps|num_trajs|"
                             r"num_input_tokens_seen|num_tokens|total_flos|iterations?)$"
                             # a step or epoch count: alone or after a counter's word, never after
                             # a metric's - Lightning names a metric logged per step and per epoch
                             # train_loss_step and train_loss_epoch (a real log's every metric was
                             # "a counter", and nothing was left to judge)
                             r"|^(step|epoch)$"  # ("steps" alone may be an episode's length)
                             # (DreamerV2's replay: train_loaded_steps, the steps it holds)
                             r"|(^|_)(global|current|cur|total|loaded|num|n|last|time|env|agent|episode|rollout|"
                             r"gradient|grad|optimizer|opt|update|learner|sgd|trainer|train|training|"
                             r"val|valid|validation|eval|evaluation|test)_(steps?|epochs?)$"
                             r"|(^|_)(episodes|timesteps|steps|samples)_this_iter$"
                             r"|(^|_)(episodes|timesteps|steps|samples|iterations)_total$"
                             r"|(^|_)num_\w*_(sampled|trained|added|evicted|stored)(_this_iter|_lifetime)?$"
                             r"|(^|_)(timesteps|iterations|episodes|steps)_since_restore$"
                             # RLlib's new API stack: counts of its own work (num_episodes_lifetime,
                             # num_grad_updates_lifetime, weights_seq_no, the connectors' summed
                             # episode lengths, training_step() calls and the learner results received)
                             r"|(^|_)num_\w+_lifetime$|(^|_)weights_seq_no$|(^|_)num_(weight_broadcasts|target_updates)$"
                             r"|(^|_)sum_episodes_length_(in|out)$|(^|_)num_training_step_calls\w*$"
                             r"|(^|_)mean_num_\w+_(received|called)$"
                             # mmdetection's iteration within the epoch (it starts again at each);
                             # the whole name only: Spinning Up's StopIter is a diagnostic
                             r"|^iters?$")),
    # (dt: the seconds a step took, as build-nanogpt prints it)
    ("a clock", re.compile(r"(^|_)(time|times|runtime|timestamp|elapsed|duration|walltime|clock|"
                           r"datetime|date|ms|secs|seconds|dt)$"
                           r"|(^|_)time_(this_iter_s|total_s|since_restore)$"  # Ray Tune's clocks
                           r"|(^|_)time_per_(epoch|iter|iteration|step|update)$"
                           # a duration per unit of work, its unit first: PyTorch's language-model
                           # example prints ms/batch; tqdm s/it
                           r"|(^|_)(ms|s|sec|secs|seconds)_(per_)?(batch|step|iter|it|iteration|update|epoch)$"
                           # the time left, as rsl_rl prints it (ETA: 00:46:40)
                           r"|^eta$"
                           # the seconds each part of a step took, as d3rlpy logs them
                           r"|(^|_)time_(sample_batch|algorithm_update|inference|environment_step|env_step)$"
                           # RLlib's new API stack: the wall time between two sample() calls and
                           # an episode's wall-clock length (episode_duration_sec_mean)
                           r"|(^|_)time_between_sampling$|(^|_)duration_(s|sec|secs|seconds|ms)(_mean|_min|_max)?$"
                           # a clock named with its unit after an underscore: eval_time_s, wall_clock_s
                           r"|(^|_)(time|clock|runtime|elapsed)_(s|sec|secs|seconds|ms|min|mins|minutes|h|hours)$"
                           # a duration named with its unit, as rlkit logs them: "time/epoch (s)"
                           r"|_\((s|ms|sec|secs|seconds|min|mins|minutes|h|hours)\)$"
                           # fairseq's seconds since the start, all and training's alone
                           r"|(^|_)(wall|train_wall)$")),
    # how far through its planned steps the run is (LLaMA-Factory's percentage, beside its
    # current_steps and total_steps): a real DPO log's read "not converged, still improving"
    ("progress through the planned run", re.compile(r"^(percentage|progress|percent_done|pct_done)$")),
    # (CleanRL writes its steps per second as charts/SPS)
    # (torchtune's tokens_per_second_per_gpu: a rate per device is a rate too)
    # (fairseq's words and updates per second: wps, ups)
    ("throughput", re.compile(r"(fps|per_second|per_sec|_per_s|throughput|(^|_)it_s|(^|_)(tok|toks|tokens)_(s|sec)|(^|_)sps"
                              r"|(^|_)wps|(^|_)ups)"
                              r"(_per_(gpu|device|rank|worker|node))?$")),
    ("a schedule: learning rate or exploration",
     # (rl_games logs its PPO clip range, scaled with the learning rate, as info/e_clip)
     # (epsilon-greedy's epsilon as hand-written loops print it: eps, ε)
     re.compile(r"(^|_)(lr|learning_rate|exploration_rate|epsilon|eps|ε|clip_range|clip_range_vf|e_clip)$|(^|_)lr_")),
    # PPO's adaptive KL weight (RLlib's cur_kl_coeff, TRL's kl_coef), SAC's entropy temperature
    # (SB3's ent_coef), fixed loss weights: set by the algorithm to steer the loss, so a KL
    # weight that doubled twice read "not converged" and failed the gate
    # (SAC's temperature is also logged as alpha: CleanRL's losses/alpha, Tianshou's loss/alpha,
    # rlkit's Alpha - and as temp by d3rlpy; its alpha_loss, like SB3's ent_coef_loss, is a
    # loss and stays a metric)
    ("a coefficient the algorithm sets: a KL, entropy or value-loss weight",
     re.compile(r"(^|_)(cur_)?(kl|kl_loss|entropy|ent|vf|vf_loss|value_loss)_(coeff?|coefficient)$"
                # (DreamerV2's actor_ent_scale: the entropy weight its schedule anneals)
                r"|(^|_)(ent|entropy)_scale$"
                # (mixed precision's loss scale: fairseq's loss_scale, grown and cut by its scaler)
                r"|(^|_)loss_scale$"
                # (and beta: DPO's and a beta-VAE's KL weight, prioritised replay's importance
                # exponent; the Greek letters as a hand-written loop prints them, "⍺: 0.5000")
                r"|^((loss|losses|train)_)?(log_)?(alpha|temp|α|⍺|beta|β)$")),
    # how full an off-policy learner's replay buffer is (a hand-written DQN loop's "Buffer: 37306",
    # growing to its capacity and held there): the learner's state, not how well it does
    ("the replay buffer's fill", re.compile(r"(^|_)(replay_)?buffer(_size|_len|_length|_fill)?$")),
    # the running mean and SD an observation normaliser keeps (baselines' HER and its many ports
    # log stats_o/mean, stats_o/std and the goals' stats_g/*, its DDPG obs_rms_mean): what the
    # inputs looked like so far, not how well the agent does - stats_g/mean read "still
    # worsening" and failed the gate beside a success rate
    ("the running statistics of the inputs' normaliser",
     re.compile(r"(^|_)stats_(o|g|u)_(mean|std)$|(^|_)(obs|ob|ret|rew|reward|return|returns)_rms_(mean|std|var)$")),
    # which process wrote the row (Ray's pid), which agent it is of (Mesa's AgentID, where a
    # file holds one agent and so no agents to split by): a number, never a measurement
    ("an identifier", re.compile(r"^(pid|ppid|node_ip|hostname|trial_id|experiment_id|agent|agent_id|agentid|unique_id)$")),
    # how many workers a distributed job had (RLlib's num_healthy_workers)
    # and nanoGPT's model FLOP utilisation (mfu, printed as a percentage)
    (SYSTEM_MEASUREMENT, re.compile(r"(^|_)num_(healthy|remote)_workers$|(^|_)num_remote_worker_restarts$|(^|_)mfu$"
                                    r"|(^|_)num_in_flight_async_\w+$"
                                    # RLlib's new API stack times each part of its work outside
                                    # timers/: env_reset_timer, rlmodule_inference_timer,
                                    # learner_connector_timer, connector_pipeline_timer ...
                                    r"|(^|_)timers?$"
                                    # memory and device use: torchtune's peak_memory_alloc, a
                                    # script's gpu_memory_allocated or max_memory_reserved_gb,
                                    # Lightning's cpu_percent, gpu_util; never a metric of the model
                                    r"|(^|_)(max_|peak_)?memory_(allocated|reserved|active|alloc|used|usage)(_\w+)?$"
                                    r"|(^|_)peak_memory(_\w+)?$|(^|_)vram(_\w+)?$"
                                    r"|(^|_)(gpu|cuda|cpu|ram|device)_(mem|memory|util|utilization|percent|usage|load)(_\w+)?$"
                                    r"|(^|_)(mem|memory)_(gb|mb|kb|bytes|gib|mib|percent)$"
                                    # mmdetection's and mmengine's "memory": the GPU's, in MB
                                    r"|^(memory|mem|gpu_mem|max_mem|max_memory)$"
                                    # fairseq's free GPU memory
                                    r"|(^|_)gb_free$")),
    # the model's size (RLlib's num_trainable_parameters; the n_parameters that DeiT, MAE,
    # ConvNeXt and DETR write in every line of their log.txt, judged "converged" as a metric)
    # and the batch it trains on (fairseq's batch, in sentences and in words: bsz, wpb - what
    # its --max-tokens makes of the data)
    (CONFIG_SETTING, re.compile(r"(^|_)num_(non_)?trainable_parameters$|(^|_)module_train_batch_size_mean$"
                                r"|(^|_)(n|num|total|model|trainable)_(params|parameters)$"
                                r"|^(params|parameters|param_count|parameter_count)$"
                                r"|(^|_)(bsz|wpb)$")),
)
#: system measurements by the names as written: RLlib's new API stack's connector pipelines
#: (timers and episode-length sums: ``env_runners/env_to_module_connector/timers/...``) and
#: ``env_runners/sample`` (the time sample() took) - a run's timers were judged "not converged"
#: and failed the gate - W&B's system metrics and Lightning's DeviceStatsMonitor
_SYSTEM_AS_WRITTEN = re.compile(r"(^|/)(env_to_module_connector|module_to_env_connector|learner_connector|connectors)/"
                           r"|(^|/)env_runners/sample$"
                           # (system.gpu.0.memory, system/cpu; DeviceStatsMonitor.on_train_batch_start/cpu_percent)
                           r"|^system[./](gpu|cpu|memory|disk|network|proc|tpu|ipu)|DeviceStatsMonitor\.")
#: a counter RLlib's new API stack breaks down by module or agent below its own name
#: (``env_runners/num_agent_steps_sampled/agent_0``)
_COUNTER_AS_WRITTEN = re.compile(r"(^|/)num_\w+_(sampled|trained|added|evicted|stored)(_this_iter|_lifetime)?/")
#: namespaces of how the machine ran, not what the model learned: verl's timing_s/,
#: timing_per_token_ms/ and perf/ (FLOP utilisation, memory, tokens), RLlib's timers/ (a real
#: verl log's timing_s/update_actor was called "not converged" and failed the gate); matched on
#: the name as written, so that a metric merely named "timing_error" stays a metric
_SYSTEM_NAMESPACE = re.compile(r"^(timing|timing_s|timing_ms|timing_per_token_ms|timers|perf)/", re.IGNORECASE)
#: BenchMARL's (and TorchRL's trainers') namespace of work counts: ``counters/iter``,
#: ``counters/total_frames`` and ``counters/current_frames`` - the frames collected per
#: iteration, constant, which a real W&B export's table judged "converged" as a metric
_COUNTER_NAMESPACE = re.compile(r"^counters/", re.IGNORECASE)
#: Ray Tune's copy of the trial's configuration in every result (``config/gamma``,
#: ``config/train_batch_size``): settings, never outcomes.  The Ray readers drop them; a
#: result.json followed line by line by ``watch`` judged forty of them "converged"
_CONFIG_NAMESPACE = re.compile(r"^config/", re.IGNORECASE)


@dataclass(frozen=True)
class Columns:
    """Which columns are steps, times, runs and metrics.

    ``metrics`` are analysed by default; ``bookkeeping`` maps the numeric columns left out
    of that default (counters, clocks, throughput, schedules) to the reason.
    """

    step: str | None
    metrics: list
    ignored: list
    bookkeeping: dict = field(default_factory=dict)
    #: columns of words that name no run (a note, a date, a score printed as "high"): not
    #: numbers, said so rather than dropped without a word
    text: list = field(default_factory=list)


def classify_columns(frame: pd.DataFrame, *, step: str | None = None,
                     group: str | None = None, runs=()) -> Columns:
    """Split columns into the step axis, metric columns, bookkeeping and the rest.

    Step, time and run columns (by name, and ``runs``) are never metrics; nor are
    non-numeric columns or an unnamed saved index.  Counters (monotone integer columns),
    clocks, throughput and learning-rate or exploration schedules are ``bookkeeping``:
    numeric, but not analysed unless named.  A True/False column is a 0/1 metric when named
    for an outcome (``is_success``), else bookkeeping (see :mod:`.flags`).

    >>> frame = pd.DataFrame({"total timesteps": [0, 8, 16, 24, 32], "fps": [90, 88, 91, 87, 90],
    ...                       "ep_rew_mean": [0.1, 0.3, 0.2, 0.5, 0.4]})
    >>> columns = classify_columns(frame)
    >>> columns.step, columns.metrics, columns.bookkeeping
    ('total timesteps', ['ep_rew_mean'], {'fps': 'throughput'})
    """
    for label, column in (("--step", step), ("--group", group)):
        if column is not None and column not in frame.columns:
            raise InputError(f"{label}: no column {column!r}; columns are {listing(frame.columns)}")
    if step is None:
        step = find_step(frame, exclude={group, *runs})
    reserved = {step, group, *runs}
    # each row's run, for the shape tests of the columns not told by their names (asked only then)
    within = functools.cache(lambda: _run_labels(frame, [c for c in (group, *runs) if c is not None]))
    metrics, ignored, bookkeeping, text = [], [], {}, []
    for column in frame.columns:
        name = normalise(column)
        if column in reserved or name in RUN_COLUMNS or str(column).startswith("Unnamed:"):
            ignored.append(column)
        elif not is_numeric_column(frame[column]):
            if flag_floats(frame[column]) is not None:
                if is_outcome_flag(column):
                    metrics.append(column)
                else:
                    bookkeeping[column] = FLAG_LEFT_OUT
            elif _only_written_nan(frame[column]):  # named with -m, it is judged (and said) as diverged
                bookkeeping[column] = "NaN in every row, as written: a run that diverged before logging a value"
            else:
                ignored.append(column)
                # (a date written as text is a clock, not a metric lost)
                if frame[column].notna().any() and name not in _TIME_NAMES and _named_kind(column, name) != "a clock":
                    text.append(column)
        elif name in _STEP_NAMES and _is_axis(frame[column]):
            bookkeeping[column] = "another step axis"
        elif name in _TIME_NAMES:
            bookkeeping[column] = "a clock"
        elif (why := _bookkeeping(name, frame[column], column, within)) is not None:
            bookkeeping[column] = why
        else:
            metrics.append(column)
    return Columns(step=step, metrics=metrics, ignored=ignored, bookkeeping=bookkeeping, text=text)


def table_roles(frame: pd.DataFrame, *, step: str | None = None,
                group: str | None = None) -> tuple[Columns, RunKey]:
    """The columns' roles and the run key together (the key's columns are never metrics;
    an explicit ``group`` column is the key)."""
    if step is not None and step not in frame.columns:
        raise InputError(f"--step: no column {step!r}; columns are {listing(frame.columns)}")
    if step is not None:
        refuse_boolean_steps(frame[step], step)
    axis = step if step is not None else find_step(frame, exclude={group})
    if axis is None and step is None:
        # runs named by a column start their axis again each: short runs start it so often
        # that it looked no axis at all (asked only then: the common log has found its axis)
        within = (frame[group].to_numpy() if group is not None
                  else find_runs(frame, exclude={group}).labels)
        if within is not None:
            axis = find_step(frame, exclude={group}, within=within)
    key = find_runs(frame, step=axis, exclude={group}) if group is None else find_runs(
        frame[[group]].rename(columns={group: "run"}))
    if step is not None and group is None and not key.columns:
        # one table whose only runs would be its axis starting again (runs told apart by a
        # column may interleave their rows)
        _refuse_backward_steps(frame[step], step)
    runs = (group,) if group is not None else key.columns
    return classify_columns(frame, step=axis, group=group, runs=runs), key


def refuse_boolean_steps(steps: pd.Series, name) -> None:
    """A column of True/False is no step axis: each False after a True read as a run starting
    again (150 "runs" of one or two points from a flag column given as --step)."""
    if pd.api.types.is_bool_dtype(steps.dtype):
        raise InputError(f"the step column {name!r} holds True/False, not steps; choose a column of "
                         "step numbers (or none: the row number is then the step)")


def _refuse_backward_steps(steps: pd.Series, name) -> None:
    """A step column named with --step that goes down more often than up is no axis running
    forward (a log written newest first, a countdown, a metric named by mistake): each drop
    would start a "run" - 300 one-point runs from a reversed log."""
    numbers = pd.to_numeric(steps, errors="coerce").to_numpy(dtype=float)
    moves = np.diff(numbers[np.isfinite(numbers)])
    drops, rises = int((moves < 0).sum()), int((moves > 0).sum())
    if drops > rises:
        raise InputError(f"--step: the column {name!r} goes down at {drops:,} of its {len(moves):,} "
                         "moves, so it is no step axis running forward (a log written newest first, "
                         "a countdown?); sort the log by it, or choose another step column")


#: the endings of a counter named for what it counts, read as the step axis where no column
#: has a step's own name (Acme's ``actor_steps``, ``learner_steps``; a ``total_env_steps``)
STEP_ENDINGS = ("timesteps", "steps", "frames")


def find_step(frame: pd.DataFrame, exclude=(), within=None) -> str | None:
    """The step axis: the finest column named like one (``total timesteps``, ``global_step``,
    ``epoch``, ``episode`` ...), compared without case or separators, and shaped like one:
    numbers that never go down except where a new run starts (a few drops).  Where none is,
    the first column whose name ends like one (:data:`STEP_ENDINGS`) and that counts
    (:func:`counter_shaped`: a constant ``n_steps`` setting is no axis): DeepMind Acme's CSV
    logs count with ``actor_steps`` (the x-axis of its plots), and were judged "per 100 steps"
    on their row numbers, each row an episode.  ``within``, each row's run where columns name the
    runs, lets a named axis start again at every run however short the runs are.

    >>> frame = pd.DataFrame({"actor_episodes": [1, 2, 3, 4, 5], "actor_steps": [210, 395, 612, 820, 1001],
    ...                       "n_steps": [2048] * 5, "episode_return": [-120.0, -95.5, -80.2, -71.0, -64.3]})
    >>> find_step(frame)
    'actor_steps'
    """
    columns = [c for c in frame.columns if c not in exclude]
    named = step_names(columns)
    found = next((column for column in named if _is_axis(frame[column], within)), None)
    if found is None:
        found = next((column for column in columns if normalise(column).endswith(STEP_ENDINGS)
                      and is_numeric_column(frame[column])
                      and counter_shaped(_present_numbers(frame[column]))), None)
    return found


def step_names(keys) -> list:
    """The keys named like a step axis, finest first (no case or separators compared).

    >>> step_names(["reward", "epoch", "Total Timesteps"])
    ['Total Timesteps', 'epoch']
    """
    by_name = {}
    for key in keys:
        by_name.setdefault(normalise(key), key)
    return [by_name[name] for name in _STEP_NAMES if name in by_name]


def stream_step(record: dict) -> str | None:
    """The step key of a record of a growing log, where a column's shape is not known yet:
    the finest key named like a step axis, else (as :func:`find_step` reads a whole table) the
    first key ending like one (:data:`STEP_ENDINGS`) that holds a number and is no counter by
    its name - Acme's ``actor_steps`` (a ``n_steps`` setting is one by name).  ``watch`` read
    an Acme CSV on its row numbers where ``check-convergence`` read it per 100 actor_steps.

    >>> stream_step({"actor_episodes": "12", "actor_steps": "10240", "episode_return": "-412.5"})
    'actor_steps'
    >>> stream_step({"n_steps": 2048, "reward": 1.0}), stream_step({"epoch": 1, "global_step": 7})
    (None, 'global_step')
    """
    named = step_names(record)
    if named:
        return named[0]
    return next((key for key, value in record.items() if normalise(key).endswith(STEP_ENDINGS)
                 and printed_number(value) is not None  # (a CSV line's cells are text)
                 and _named_kind(key, normalise(key)) is None), None)


def is_bookkeeping_name(name) -> bool:
    """Named like a step axis, a clock, a counter, throughput or a schedule: for streams,
    where a column's shape is not known yet (the table rule adds the counter shape)."""
    return bookkeeping_by_name(name) is not None


def bookkeeping_by_name(name) -> str | None:
    """Why a metric named ``name`` is bookkeeping, judged by its name alone, or None.

    >>> bookkeeping_by_name("learning_rate"), bookkeeping_by_name("epoch"), bookkeeping_by_name("loss")
    ('a schedule: learning rate or exploration', 'a step axis', None)
    >>> bookkeeping_by_name("TotalEnvInteracts"), bookkeeping_by_name("ItrTime"), bookkeeping_by_name("LossV")
    ('a counter', 'a clock', None)
    >>> bookkeeping_by_name("AVG Time Per Epoch"), bookkeeping_by_name("reward_per_epoch")
    ('a clock', None)
    >>> bookkeeping_by_name("time/epoch (s)"), bookkeeping_by_name("reward (mean)")
    ('a clock', None)
    >>> bookkeeping_by_name("counters/current_frames"), bookkeeping_by_name("collection/reward/episode_reward_mean")
    ('a counter', None)
    >>> bookkeeping_by_name("config/train_batch_size"), bookkeeping_by_name("reward_config/x")
    ('a setting of the run: its configuration', None)
    >>> bookkeeping_by_name("Buffer"), bookkeeping_by_name("replay_buffer_size"), bookkeeping_by_name("buffer_reward")
    ("the replay buffer's fill", "the replay buffer's fill", None)
    >>> bookkeeping_by_name("stats_g/mean"), bookkeeping_by_name("obs_rms_std"), bookkeeping_by_name("test/mean_Q")
    ("the running statistics of the inputs' normaliser", "the running statistics of the inputs' normaliser", None)
    """
    key = normalise(name)
    if key in _STEP_NAMES and not _SYSTEM_NAMESPACE.match(str(name)):
        return "a step axis"
    if key in _TIME_NAMES and not _SYSTEM_NAMESPACE.match(str(name)):
        return "a clock"
    return _named_kind(name, key)


def _named_kind(raw, key: str) -> str | None:
    """The bookkeeping kind a name says by its namespace (``raw``, as written) or by the
    patterns of :data:`_BOOKKEEPING` (``key``, normalised, and ``raw``'s CamelCase words:
    rllab's ``ItrTime`` is a clock); None for neither."""
    if _SYSTEM_NAMESPACE.match(str(raw)) or _SYSTEM_AS_WRITTEN.search(str(raw)):
        return SYSTEM_MEASUREMENT
    if _COUNTER_NAMESPACE.match(str(raw)) or _COUNTER_AS_WRITTEN.search(str(raw)):
        return "a counter"
    if _CONFIG_NAMESPACE.match(str(raw)) or normalise(str(raw).rpartition("/")[2]) in SETTING_COLUMNS:
        return CONFIG_SETTING  # (a hyperparameter by its whole name: "tau", never "kendall_tau")
    keys = dict.fromkeys((key, normalise(split_camel(raw))))
    return next((why for why, pattern in _BOOKKEEPING for name in keys if pattern.search(name)), None)


def _present_numbers(column: pd.Series) -> np.ndarray:
    """The column's values as floats, cells that are not numbers left out."""
    if pd.api.types.is_numeric_dtype(column.dtype) and not pd.api.types.is_bool_dtype(column.dtype):
        values = column.to_numpy(dtype=float, na_value=np.nan)  # no conversion pass at 10^6 rows
    else:
        values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    missing = np.isnan(values)
    return values[~missing] if missing.any() else values


def _is_axis(column: pd.Series, within=None) -> bool:
    """Numbers that never go down but at a few places (:func:`_few_drops`); with ``within``
    (each row's run), never down within a run: ten seeds of 20 epochs start again nine times, 4.5%
    of their rows, and their epoch column was no axis (each run judged on its row numbers)."""
    values = _present_numbers(column)
    if len(values) < 2:
        return len(values) == len(column)
    if within is None:
        return _few_drops(values)
    present, same_run = _present_in_runs(column, within)
    drops = (np.diff(present) < 0) & same_run
    return bool(drops.sum() <= max(1, 0.02 * len(values)))


def _present_in_runs(column: pd.Series, within, finite: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(the column's values that are numbers - finite ones only with ``finite`` -, and for each
    step between two of them whether both lie in one run, ``within`` giving each row's run;
    one run when it is None)."""
    numbers = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    present = np.isfinite(numbers) if finite else ~np.isnan(numbers)
    if within is None:
        return numbers[present], np.ones(max(int(present.sum()) - 1, 0), dtype=bool)
    runs = np.asarray(within, dtype=object)[present]
    return numbers[present], runs[1:] == runs[:-1]


def _few_drops(values: np.ndarray) -> bool:
    """Numbers that never go down except at a few places (2%: where a new run starts), or
    runs appended one after another, each starting again from where the one before started
    (or lower) and at least 3 rows long on average: four 15-row runs in one CSV start again
    3 times, 5% of their rows, and their step column was "a counter", the runs merged.

    >>> _few_drops(np.tile(np.arange(1.0, 16.0), 4)), _few_drops(np.array([1.0, 3, 2, 4, 3, 5, 4, 6]))
    (True, False)
    """
    drops = np.flatnonzero(np.diff(values) < 0)
    if len(drops) <= max(1, 0.02 * len(values)):
        return True
    starts = np.concatenate(([0], drops + 1))  # each run's first row
    return bool(len(values) >= 3 * len(starts) and np.all(values[drops + 1] <= values[starts[:-1]]))


def _run_labels(frame: pd.DataFrame, runs: list) -> np.ndarray | None:
    """Each row's run (a number per distinct key of the ``runs`` columns), or None for none."""
    if not runs:
        return None
    if len(runs) == 1:
        return pd.factorize(frame[runs[0]])[0]
    return frame.groupby(runs, sort=False, dropna=False).ngroup().to_numpy()


def _bookkeeping(name: str, column: pd.Series, raw, within=lambda: None) -> str | None:
    """The bookkeeping kind of a table's column: by its name (``name`` normalised, ``raw`` as
    written), else a counter or a running best by its shape (within each run, ``within()``
    giving each row's); None for a metric."""
    why = timed_or_counted(_named_kind(raw, name), name, lambda: _is_counter(column, within()))
    if why is not None:
        return why
    if not is_measurement_name(raw) and _is_counter(column, within()):
        return "a counter"
    return RUNNING_BEST if _is_running_best(raw, column, within) else None


#: why a best-so-far column is left out of the default metrics
RUNNING_BEST = "a running best: the best value so far, which never goes back by construction"
#: a name that says "best" as a word of its own (``BestAvg``, ``best_reward``; not ``bestiary``)
_BEST_WORD = re.compile(r"(^|_)best(_|$)")


def _is_running_best(raw, column: pd.Series, within=lambda: None) -> bool:
    """Is the column named ``raw`` a best so far: "best" among its words, and its values never
    going down (or never up: a best loss) within a run?  A hand-written loop prints its best
    average beside the average (``Avg: 13.0  BestAvg: 13.5``); judged as a metric it read "still
    improving" at every new best and could never settle below one.

    >>> _is_running_best("BestAvg", pd.Series([-109.5, -60.0, 8.6, 8.6, 166.6]))
    True
    >>> _is_running_best("BestAvg", pd.Series([-109.5, -60.0, -70.0, 8.6, 166.6]))  # it went back
    False
    >>> _is_running_best("best_loss", pd.Series([0.9, 0.7, 0.7, 0.5, 0.41]))
    True
    """
    if _BEST_WORD.search(normalise(split_camel(raw))) is None:
        return False
    # (finite values only: a best that starts at -inf, from its first finite value on)
    values, same_run = _present_in_runs(column, within(), finite=True)
    if len(values) < 5 or np.ptp(values) == 0:
        return False
    changes = np.diff(values)[same_run]
    return bool(len(changes) and ((changes >= 0).all() or (changes <= 0).all()))


def timed_or_counted(why: str | None, key: str, counts) -> str | None:
    """``why``, the kind a name says, unless it says "a counter" with a time's word first and
    ``counts()`` (asked only then) says its values count nothing: d3rlpy's ``time_step`` holds
    the seconds a step took, a clock.

    >>> timed_or_counted("a counter", "time_step", lambda: False), timed_or_counted("a counter", "time_step", lambda: True)
    ('a clock', 'a counter')
    """
    return "a clock" if why == "a counter" and key.startswith("time_") and not counts() else why


def _is_counter(column: pd.Series, within=None) -> bool:
    """Integer values that go up at (nearly) every row: a count of something done so far,
    shaped like a step axis (a few drops where a new run starts; with ``within``, each row's
    run, going down only where one run ends and the next begins: three runs of 15 rows start
    again twice, more than 2% of their rows, and a total-steps count was judged as a metric)."""
    if within is None:
        return counter_shaped(_present_numbers(column))
    return counter_shaped(*_present_in_runs(column, within))


def counter_shaped(values: np.ndarray, same_run=None) -> bool:
    """Whether ``values`` (at least 5, no missing ones) are a counter's: integers that go up
    at 90% of steps or more, dropping at most where a new run starts (2%; with ``same_run``,
    whether each step between two values stays in one run, never within a run, and the share
    going up counted within runs).

    >>> counter_shaped(np.arange(1.0, 27.0)), counter_shaped(np.array([1.0, 2, 3, 3.5, 4, 5]))
    (True, False)
    >>> runs = np.repeat([0, 1, 2], 3)
    >>> counter_shaped(np.tile([10.0, 20, 30], 3)), counter_shaped(np.tile([10.0, 20, 30], 3), runs[1:] == runs[:-1])
    (False, True)
    """
    if len(values) < 5 or not np.all(values[:1000] == np.round(values[:1000])):
        return False  # most metrics show a fraction in their first rows: no pass over them all
    if not np.all(values == np.round(values)):
        return False
    if same_run is None:
        return bool(np.mean(np.diff(values) > 0) >= 0.9 and _few_drops(values))
    changes = np.diff(values)[same_run]
    return bool(len(changes) >= 4 and np.mean(changes > 0) >= 0.9 and not (changes < 0).any())


def _only_written_nan(column: pd.Series) -> bool:
    """Is every value of this column that holds no number a NaN the log wrote (and one at least)?"""
    floats = column_floats(column)
    if floats is not None:
        return bool(is_written(floats).any())
    words = column.dropna().astype(str).str.strip().str.lower()
    return bool(words.isin(NAN_TOKENS).any())


def is_numeric_column(column: pd.Series) -> bool:
    """Numbers in most of the cells that hold anything (not a flag: see :mod:`.flags`)."""
    if pd.api.types.is_bool_dtype(column):
        return False
    if pd.api.types.is_numeric_dtype(column):
        return bool(column.notna().any())
    present = column.dropna().astype(str).str.strip()
    present = present[~present.str.lower().isin(MISSING_TOKENS)]
    if present.empty:
        return False
    converted = pd.to_numeric(present, errors="coerce")
    return bool(converted.notna().mean() > 0.5)


#: names shown per reason in :func:`left_out_text`; a Ray result carries ~80 config/ settings
SHOWN_PER_REASON = 12


def left_out_text(reasons: dict) -> str:
    """Names left out of the analysis, grouped by why (``reasons``: name -> why), at most
    :data:`SHOWN_PER_REASON` of each group named.

    >>> left_out_text({"lr": "a schedule", "fps": "throughput", "epsilon": "a schedule"})
    'lr, epsilon (a schedule); fps (throughput)'
    >>> left_out_text({f"config/k{i}": "a setting" for i in range(14)})
    'config/k0, config/k1, config/k2, config/k3, config/k4, config/k5, config/k6, config/k7, config/k8, config/k9, config/k10, config/k11 and 2 more (a setting)'
    """
    grouped: dict = {}
    for name, why in reasons.items():
        grouped.setdefault(why, []).append(str(name))
    return "; ".join(", ".join(names[:SHOWN_PER_REASON])
                     + (f" and {len(names) - SHOWN_PER_REASON} more" if len(names) > SHOWN_PER_REASON else "")
                     + f" ({why})" for why, names in grouped.items())


def listing(columns) -> str:
    """The first 20 column names, for a message ('(none)' when there are none)."""
    columns = list(columns)
    return ", ".join(map(str, columns[:20])) + (" ..." if len(columns) > 20 else "") or "(none)"
