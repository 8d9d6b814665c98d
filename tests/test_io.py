"""Reading logs: formats, comments, sparse columns, and every bad file."""

import io

import numpy as np
import pandas as pd
import pytest

from swarmstats.errors import InputError
from swarmstats.io import classify_columns, read_table, select_metric


def test_csv_with_comments_bom_and_sparse_cells(tmp_path):
    path = tmp_path / "log.csv"
    path.write_bytes("\ufeff# header comment\nstep,reward,loss\n0,0.1,\n# mid comment\n1,,2.0\n2,0.3,1.5\n".encode())
    frame = read_table(path)
    assert list(frame.columns) == ["step", "reward", "loss"]
    reward = select_metric(frame, "reward", step="step")
    assert reward.to_dict() == {0.0: 0.1, 2.0: 0.3}


def test_tsv_jsonl_and_json_list(tmp_path):
    (tmp_path / "a.tsv").write_text("step\treward\n0\t1\n1\t2\n")
    (tmp_path / "b.jsonl").write_text('{"step": 0, "reward": {"mean": 1}}\n\n{"step": 1, "reward": {"mean": 2}}\n')
    (tmp_path / "c.json").write_text('[{"step": 0, "reward": 1}, {"step": 1, "reward": null}]')
    assert read_table(tmp_path / "a.tsv")["reward"].tolist() == [1, 2]
    assert read_table(tmp_path / "b.jsonl")["reward/mean"].tolist() == [1, 2]
    frame = read_table(tmp_path / "c.json")
    assert select_metric(frame, "reward").tolist() == [1.0]


def test_sniffing_without_extension():
    assert read_table(io.BytesIO(b'{"a": 1}\n{"a": 2}\n')).attrs["format"] == "jsonl"
    assert read_table(io.BytesIO(b'[{"a": 1}]')).attrs["format"] == "json"
    assert read_table(io.BytesIO(b"a\tb\n1\t2\n")).attrs["format"] == "tsv"


def test_columns_named_like_steps_times_and_runs_are_not_metrics():
    frame = pd.DataFrame({"global_step": [1], "_runtime": [2.0], "seed": [3], "reward": [0.5],
                          "Unnamed: 0": [0], "name": ["x"]})
    columns = classify_columns(frame)
    assert columns.step == "global_step" and columns.metrics == ["reward"]


@pytest.mark.parametrize("content, match", [
    (b"", "is empty"),
    (b"step,reward\n", "header but no data"),
    (b"\x00\x01\x02binary", "binary"),
    (b"\xff\xfe\xfa not utf8", "not UTF-8"),
    (b"a,b\n1,2\n3,4,5\n", "malformed row"),
    # every row one value longer than the header: pandas took the first column as the index
    (b"step,loss\n0,0.3,1\n1,0.4,2\n", "malformed rows: the rows hold more fields than the header"),
    (b"# only\n# comments\n", "only comment"),
])
def test_bad_files_raise_one_clear_error(tmp_path, content, match):
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    with pytest.raises(InputError, match=match):
        read_table(path)


@pytest.mark.parametrize("rows", [200, 20_000], ids=["small", "big"])
def test_a_row_ending_in_a_separator_keeps_every_column_where_it_is(tmp_path, rows):
    # "0,0.3,0.9," under "step,loss,acc": pandas made 'step' the index and shifted the rest
    # left, so 'loss' read the accuracies and 'acc' was empty - a metric analysed under
    # another's name; big: past the 64 KiB head, pandas reads the file from its path
    from swarmstats.io import read_log

    path = tmp_path / "log.csv"
    path.write_text("step,loss,acc\n" + "".join(f"{i},{0.3 + i % 3 / 10},{0.9 - i % 2 / 10}," + "\n"
                                                 for i in range(rows)))
    frame = read_log(path, wide=True)
    assert frame.columns.tolist() == ["step", "loss", "acc"]
    assert frame["step"].iloc[:3].tolist() == [0, 1, 2] and frame["loss"].iloc[:3].tolist() == [0.3, 0.4, 0.5]
    assert frame["acc"].iloc[:2].tolist() == [0.9, 0.8]


def test_a_monitor_file_whose_rows_end_in_a_separator_keeps_rewards_apart_from_lengths(tmp_path):
    from swarmstats.io import read_log

    path = tmp_path / "0.monitor.csv"
    path.write_text('#{"t_start": 1600000000.0, "env_id": "CartPole-v1"}\nr,l,t\n'
                    + "".join(f"{10.5 + i},{7 + i},{0.5 * (i + 1)},\n" for i in range(30)))
    frame = read_log(path, wide=True)
    assert frame["r"].iloc[:2].tolist() == [10.5, 11.5]  # the rewards, not the lengths (7, 8)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_table(tmp_path / "missing.csv")
    with pytest.raises(InputError, match="is a directory"):
        read_table(tmp_path)


def test_bad_jsonl_names_the_line(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"a": 1}\n{"a": \n')
    with pytest.raises(InputError, match="line 2"):
        read_table(path)


def test_non_numeric_cells_and_infinities_are_errors_not_dropped():
    frame = read_table(io.BytesIO(b"reward\n0.1\nabc\n0.3\n"))
    with pytest.raises(InputError, match="non-numeric value 'abc'"):
        select_metric(frame, "reward")
    frame = read_table(io.BytesIO(b"reward\n0.1\ninf\n"))
    with pytest.raises(InputError, match="infinite"):
        select_metric(frame, "reward")
    frame = read_table(io.BytesIO(b"reward,x\n,1\n,2\n"))
    with pytest.raises(InputError, match="no values"):
        select_metric(frame, "reward")


def test_files_are_only_read(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text("step,reward\n0,1\n1,2\n")
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    read_table(path)
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.csv"]


def test_semicolon_separated_csv_is_read():
    frame = read_table(io.BytesIO(b"step;reward\n0;0.5\n1;0.6\n"))
    assert list(frame.columns) == ["step", "reward"]


def test_a_nul_byte_past_the_head_of_a_big_file_is_found_once(tmp_path, monkeypatch):
    # pandas parses a big file from its path, so the head's NUL check is not enough: the whole
    # file is searched - once, though read_log hands the path on to read_table
    import swarmstats.io.logs as logs
    import swarmstats.io.tabular as tabular
    from swarmstats.io import read_log

    body = ("step,reward\n" + "".join(f"{i},{i / 7:.6f}\n" for i in range(20_000))).encode()
    assert len(body) > tabular.HEAD_BYTES
    path = tmp_path / "big.csv"
    path.write_bytes(body[:-50] + b"\x00" + body[-49:])
    for read in (read_table, lambda p: read_log(p, wide=True)):
        with pytest.raises(InputError, match=f"NUL byte at offset {len(body) - 50:,}"):
            read(path)
    searched = []
    search = tabular.refuse_binary_file
    spy = lambda where: searched.append(where) or search(where)  # noqa: E731
    monkeypatch.setattr(tabular, "refuse_binary_file", spy)
    monkeypatch.setattr(logs, "refuse_binary_file", spy)
    path.write_bytes(body)
    assert len(read_log(path, wide=True)) == 20_000 and searched == [str(path)]
    assert len(read_table(path)) == 20_000 and len(searched) == 2  # read alone, it searches itself


def test_a_flag_is_no_step_axis():
    frame = pd.DataFrame({"done": [False, True, False, True], "reward": [0.1, 0.2, 0.3, 0.4]})
    with pytest.raises(InputError, match="'done' holds True/False, not steps"):
        select_metric(frame, "reward", step="done")
    assert select_metric(frame, "reward").tolist() == [0.1, 0.2, 0.3, 0.4]


@pytest.mark.parametrize("name,why", [
    ("episodes_this_iter", "a counter"), ("num_episodes_this_iter", "a counter"),
    ("timesteps_since_restore", "a counter"), ("num_env_steps_sampled_this_iter", "a counter"),
    ("num_agent_steps_trained_lifetime", "a counter"), ("timesteps_total", "a counter"),
    ("episodes_total", "a counter"), ("reward_total", None), ("num_tokens", "a counter"),
    ("time_this_iter_s", "a clock"), ("time_total_s", "a clock"), ("time_since_restore", "a clock"),
    ("pid", "an identifier"), ("pid_error", None),
    ("info/learner/default_policy/cur_kl_coeff", "a coefficient"), ("objective/kl_coef", "a coefficient"),
    ("train/ent_coef", "a coefficient"), ("entropy_coeff", "a coefficient"),
    ("num_healthy_workers", "a system measurement"), ("num_remote_worker_restarts", "a system measurement"),
    ("train/ent_coef_loss", None), ("gini_coefficient", None), ("info/learner/default_policy/kl", None),
    ("episode_reward_mean", None), ("num_workers_busy", None), ("coefficient_of_variation", None),
    # Lightning's on_step / on_epoch names are metrics; a count of steps or epochs is not
    ("train_loss_step", None), ("train_loss_epoch", None), ("val_acc_epoch", None), ("loss_step", None),
    ("n_steps", "a counter"), ("current_epoch", "a counter"), ("gradient_steps", "a counter"),
    # (these values hold fractions: a time_step of them is d3rlpy's seconds per step, a clock;
    # one of whole numbers stays a counter - tests/test_read_d3rlpy.py)
    ("time_step", "a clock"),
    ("config/gamma", "a setting of the run"), ("reward_config/x", None),
    # what nanoGPT-style scripts print beside the loss
    ("dt", "a clock"), ("tok/sec", "throughput"), ("mfu", "a system measurement"), ("norm", None),
    # CleanRL's steps per second, in every one of its scripts' TensorBoard logs
    ("charts/SPS", "throughput"), ("sps", "throughput"), ("gaps", None), ("charts/episodic_length", None),
    # memory and device use (torchtune, Lightning's DeviceStatsMonitor, W&B's system metrics,
    # a script's own), and clocks named with their unit
    ("peak_memory_alloc", "a system measurement"), ("gpu_memory_allocated", "a system measurement"),
    ("max_memory_reserved_gb", "a system measurement"), ("mem_gb", "a system measurement"),
    ("cpu_percent", "a system measurement"), ("gpu_util", "a system measurement"),
    ("system/gpu.0.memory", "a system measurement"), ("system.cpu", "a system measurement"),
    ("DeviceStatsMonitor.on_train_batch_start/cpu_vm_percent", "a system measurement"),
    ("memory_accuracy", None), ("working_memory_score", None), ("system_reward", None),
    ("system/welfare", None),
    # SAC's entropy temperature as CleanRL, Tianshou and rlkit log it; its loss is a loss
    ("losses/alpha", "a coefficient"), ("loss/alpha", "a coefficient"), ("Alpha", "a coefficient"),
    ("losses/alpha_loss", None), ("alpha_rank", None), ("info/e_clip", "a schedule"),
    ("Coefficient / Entropy coefficient", "a coefficient"),  # skrl's SAC temperature
    # hyperparameters a sweep's export copies into every row, by their whole name
    ("gamma", "a setting of the run"), ("train/batch_size", "a setting of the run"), ("tau", None),
    ("kendall_tau", None), ("gamma_error", None),
    # mmdetection's JSON log: the iteration within the epoch, the GPU's memory in MB
    ("iter", "a counter"), ("memory", "a system measurement"), ("memory_recall", None), ("iteration_loss", None),
    ("StopIter", None),
    ("eval_time_s", "a clock"), ("wall_clock_s", "a clock"), ("time_to_goal", None),
])
def test_work_counts_coefficients_and_worker_counts_are_bookkeeping_by_name(name, why):
    """RLlib's per-iteration counts, a KL or entropy weight the algorithm sets, a job's worker
    count and Ray Tune's copy of the configuration are left out by name (a real RLlib trial's
    were judged as metrics); a metric Lightning logs per step or per epoch is not a count."""
    from swarmstats.io.columns import is_bookkeeping_name

    frame = pd.DataFrame({"step": range(30), name: np.linspace(0.2, 0.4, 30) ** 2})
    found = classify_columns(frame).bookkeeping.get(name)
    assert found is None if why is None else found.startswith(why)
    assert is_bookkeeping_name(name) is (why is not None)


def test_the_layout_sniff_reads_the_first_lines_as_splitlines_gives_them():
    """sniff_layout finds a text's first lines one at a time (splitting a 64 KiB head whole cost
    more than the sniff): on texts of every line break ``str.splitlines`` knows, blank and
    comment lines, tabs and the JSON openers, it decides as the lines splitlines gives decide."""
    from swarmstats.io.tabular import _EXTENSIONS, sniff_layout

    def by_splitlines(name, text):
        lines = (line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#"))
        if name.endswith(".json"):
            head = [line for _, line in zip(range(2), lines)]
            return "jsonl" if len(head) == 2 and all(s.startswith("{") and s.endswith("}") for s in head) else "json"
        if name.endswith(tuple(_EXTENSIONS)):
            return _EXTENSIONS[name[name.rindex("."):]]
        first = next(lines, "")
        return ("json" if first.startswith("[") else "jsonl" if first.startswith("{")
                else "tsv" if "\t" in first and "," not in first else "csv")

    pieces = ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", " ", "\t", "#", "{", "}", "[", "a", ",", "\x1f"]
    rng = np.random.default_rng(0)
    for _ in range(3000):
        text = "".join(rng.choice(pieces, size=rng.integers(0, 14)))
        for name in ("log", "log.json", "log.csv"):
            assert sniff_layout(name, text) == by_splitlines(name, text), (name, text)
