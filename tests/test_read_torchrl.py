"""TorchRL's CSV logger (``swarmstats/io/formats/torchrl.py``), which BenchMARL logs through:
``scalars/<name>.csv`` files of ``step,value`` lines with no header; and a headerless CSV of
any other width, refused rather than read with its first row as the column names."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarmstats import InputError
from swarmstats.io import read_log
from swarmstats.io.written_nan import is_written
from tests.test_cli import run

#: made up as TorchRL's CSVLogger lays out two BenchMARL runs (MAPPO on VMAS balance, seeds 0
#: and 1): <log_dir>/<experiment>/scalars/<name>.csv, BenchMARL's "/" replaced by "_", and one
#: name kept with its "/" (TorchRL then makes a subfolder: scalars/eval/success.csv)
LOGS = Path(__file__).resolve().parent / "fixtures" / "logs" / "torchrl" / "csv_logs"
SEED0 = LOGS / "mappo_balance_mlp__seed0"
REWARD = "collection_reward_episode_reward_mean"


def test_a_scalar_file_is_one_metric_named_after_it_at_the_steps_it_logged():
    path = SEED0 / "scalars" / f"{REWARD}.csv"
    wide = read_log(path, wide=True)
    assert wide.attrs["format"] == "torchrl-csv" and wide.columns.tolist() == ["step", REWARD]
    first = path.read_text().splitlines()[0].split(",")
    assert wide["step"].tolist() == list(range(30)) and wide[REWARD][0] == float(first[1])
    # read as a plain CSV its first line named the columns and the steps were left out: the
    # slope was quoted per row; per logged step it is the same here only because steps are 0, 1, ...
    done = run("check-convergence", path, "--format", "json")
    assert [row["name"] for row in json.loads(done.stdout)["results"]] == [REWARD]


def test_an_experiment_folder_reads_every_scalar_file_and_a_slash_is_a_subfolder():
    for path in (SEED0, SEED0 / "scalars"):
        wide = read_log(path, wide=True)
        assert wide.attrs["format"] == "torchrl-csv"
        assert sorted(wide.columns) == sorted(["step", REWARD, "eval/success", "eval_reward_episode_reward_mean",
                                               "train_agents_loss_objective"])
        assert wide.set_index("step")["eval/success"].dropna().tolist() == [0.0, 0.0, 0.2, 0.4, 0.6, 0.8]


def test_a_log_dir_of_experiments_is_one_run_each():
    wide = read_log(LOGS, wide=True)
    assert wide["run"].unique().tolist() == ["mappo_balance_mlp__seed0", "mappo_balance_mlp__seed1"]
    assert wide.attrs["notes"][0].startswith("2 TorchRL experiment folders, one run each")
    done = run("check-convergence", LOGS, "-m", REWARD)
    assert "holds 2 runs" in done.stderr and "over 2 runs" in done.stdout  # two seeds of one setting


def test_a_run_resumed_into_its_file_replaces_the_values_past_the_resume(tmp_path):
    lines = [f"{s},{float(s)}" for s in range(10)] + [f"{s},{100.0 + s}" for s in range(6, 12)]
    (tmp_path / "reward.csv").write_text("\n".join(lines) + "\n")
    wide = read_log(tmp_path / "reward.csv", wide=True)
    assert wide["step"].tolist() == list(range(12))
    assert wide["reward"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 106.0, 107.0, 108.0, 109.0, 110.0, 111.0]
    assert wide.attrs["notes"][0].endswith("replaced by the resumed run's: reward (4)")
    # the resumed run has not reached the step the first one stopped at: nothing past it is kept
    lines = [f"{s},{float(s)}" for s in range(10)] + [f"{s},{100.0 + s}" for s in range(6, 8)]
    (tmp_path / "short.csv").write_text("\n".join(lines) + "\n")
    wide = read_log(tmp_path / "short.csv", wide=True)
    assert wide["short"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 106.0, 107.0]


def test_a_run_appended_from_its_start_is_a_second_run(tmp_path):
    lines = [f"{s},{float(s)}" for s in range(10)] * 2
    (tmp_path / "reward.csv").write_text("\n".join(lines) + "\n")
    wide = read_log(tmp_path / "reward.csv", wide=True)
    assert wide.groupby("run")["step"].count().to_dict() == {"#1": 10, "#2": 10}


def test_nan_is_written_a_cut_last_line_and_bad_lines_are_left_out_and_said(tmp_path):
    good = "".join(f"{s},0.{9 - s}\n" for s in range(5))  # (the format is told by its first lines)
    (tmp_path / "loss.csv").write_text(good + "5,nan\nnot a line\n6,0.3,7\n7,0.2\n8,0.1")
    wide = read_log(tmp_path / "loss.csv", wide=True)
    assert wide["step"].tolist() == [0, 1, 2, 3, 4, 5, 7]
    assert is_written(wide["loss"].to_numpy()).tolist() == [False] * 5 + [True, False]
    assert wide.attrs["notes"] == ["a last line still being written left out (loss)",
                                   "2 line(s) that are not 'step,value' left out"]


def test_a_csv_whose_first_line_is_numbers_is_refused_not_read_with_a_number_for_a_header(tmp_path):
    (tmp_path / "runs.csv").write_text("0,0.5,3\n1,0.6,4\n2,0.7,5\n")
    with pytest.raises(InputError, match=r"its first line is numbers \(0, 0.5, 3\), not column names"):
        read_log(tmp_path / "runs.csv")
    done = run("describe", tmp_path / "runs.csv")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    # pandas' default labels are a header: a frame saved with to_csv(index=False)
    rng = np.random.default_rng(0)
    for width in (2, 3):
        pd.DataFrame(rng.random((30, width))).to_csv(tmp_path / f"frame{width}.csv", index=False)
        wide = read_log(tmp_path / f"frame{width}.csv", wide=True)
        assert wide.attrs["format"] == "csv" and wide.columns.tolist() == [str(i) for i in range(width)]
        assert len(wide) == 30


def test_a_folder_of_other_csv_files_is_not_a_torchrl_experiment(tmp_path):
    (tmp_path / "scalars").mkdir()
    (tmp_path / "scalars" / "table.csv").write_text("step,reward\n0,1.5\n1,2.5\n")
    with pytest.raises(InputError, match="is a directory with no log swarmstats recognises"):
        read_log(tmp_path)
    # beside TorchRL's files, such a table is left out and named
    (tmp_path / "scalars" / "reward.csv").write_text("0,1.5\n1,2.5\n")
    wide = read_log(tmp_path, wide=True)
    assert wide.columns.tolist() == ["step", "reward"]
    assert wide.attrs["notes"] == ["left out table.csv: not TorchRL's step,value lines"]


def test_watch_follows_a_scalar_file_from_its_first_line_and_refuses_a_headless_table(tmp_path):
    done = run("watch", SEED0 / "scalars" / f"{REWARD}.csv", "--once", "--format", "json")
    report = json.loads(done.stdout[done.stdout.index("\n{\n") + 1:])
    assert report["skipped_lines"] == 0 and report["report"]["metrics"][REWARD]["n"] == 30
    (tmp_path / "runs.csv").write_text("0,0.5,3\n1,0.6,4\n2,0.7,5\n")
    refused = run("watch", tmp_path / "runs.csv", "--once")
    assert refused.returncode == 2 and "numbers, not column names" in refused.stderr


def _series_texts():
    """Metric files of every shape the whole-table parse must read as the line-by-line one does,
    or leave to it: written NaN, infinities, exponents, Windows and old-Mac line ends, a cut last
    line (one holding a form feed too), blank and spaced lines, a NaN step, a resume, a second
    run, repeated steps, and a file past numpy's size (pandas parses it)."""
    rng = np.random.default_rng(3)
    plain = "".join(f"{s},{float(v)!r}\n" for s, v in enumerate(rng.normal(size=40)))
    big = "".join(f"{s},{1000 * s},{float(v)!r}\n" for s, v in enumerate(rng.normal(size=800)))
    return {
        "plain": (plain, 2), "nan and inf": ("0,nan\n1,-inf\n2,1e-05\n3,-NaN\n", 2),
        "crlf": (plain.replace("\n", "\r\n"), 2), "cr": (plain.replace("\n", "\r"), 2),
        "cut": (plain + "40,0.4", 2), "cut with a form feed": (plain + "40,0.4\x0c41,0.5", 2),
        "blank line": ("0,1.0\n\n1,2.0\n", 2), "spaced": ("0, 1.0\n1,2.0\n", 2),
        "empty cell": ("0,\n1,2.0\n", 2), "word": ("0,1.0\nstep,value\n1,2.0\n", 2),
        "nan step": ("0,1.0\nnan,2.0\n2,3.0\n", 2), "ragged": ("0,1.0\n1,2.0,3\n2\n", 2),
        "resumed": ("0,1.0\n1,2.0\n2,3.0\n1,2.5\n2,3.5\n", 2), "second run": ("0,1.0\n1,2.0\n0,5.0\n", 2),
        "repeated step": ("0,1.0\n1,2.0\n1,2.5\n2,3.0\n", 2), "big d3rlpy": (big, 3),
        "d3rlpy nan epoch": ("1,1000,0.5\nnan,2000,0.6\n", 3),
    }


#: the files read whole; the rest go line by line
_WHOLE = {"plain", "nan and inf", "crlf", "cut", "resumed", "second run", "repeated step", "big d3rlpy"}


@pytest.mark.parametrize("case", list(_series_texts()))
def test_the_whole_table_parse_reads_every_file_as_the_line_by_line_parse(case, monkeypatch):
    # the fast path (plain_csv.filled_rows) is only a shortcut: every column, NaN bits included,
    # and every count must be what the line-by-line parse gives
    from swarmstats.io.formats import scalar_files
    from swarmstats.io.formats._table import sparse_to_wide
    from swarmstats.io.formats.scalar_files import (
        ScalarSeries,
        _printed_columns,
        _tidy,
        _wide,
    )

    text, width = _series_texts()[case]
    axes = ("step",) if width == 2 else ("epoch", "step")
    by_line = []
    monkeypatch.setattr(scalar_files, "_printed_columns", lambda *a: by_line.append(a) or _printed_columns(*a))
    series = ScalarSeries("m.csv", text, axes)
    assert bool(by_line) == (case not in _WHOLE)
    columns, malformed = _printed_columns(text, width)
    assert series.malformed == malformed
    assert series.unfinished == (bool(text) and not text.endswith(("\n", "\r")))
    if not series.replaced and series.runs[-1] == 1:  # (else steps were dropped after the parse)
        for got, expected in zip([*series.axes.values(), series.values], columns):
            assert got.tobytes() == expected.tobytes()
    other = ScalarSeries("n.csv", "".join(f"{s},{s / 10}\n" for s in range(0, 60, 3)), ("step",))
    for files in ([("m", series)], [("m", series), ("n", other)]):
        if width == 3 and len(files) == 2:
            continue
        wide, reference = _wide(files), sparse_to_wide(_tidy(files))
        if wide is not None:
            assert list(wide) == reference.columns.tolist()
            for name in wide:
                assert wide[name].tobytes() == reference[name].to_numpy().tobytes(), name
        else:  # only a file with a resume, a second run or a repeated step goes the long way
            assert series.replaced or series.runs[-1] > 1 or case == "repeated step"


def test_a_d3rlpy_or_torchrl_file_of_plain_numbers_skips_the_line_by_line_parse(monkeypatch):
    from swarmstats.io.formats import scalar_files

    def refuse(*args):
        raise AssertionError("parsed line by line")

    monkeypatch.setattr(scalar_files, "_printed_columns", refuse)
    wide = read_log(SEED0 / "scalars" / f"{REWARD}.csv", wide=True)
    assert wide["step"].tolist() == list(range(30))
