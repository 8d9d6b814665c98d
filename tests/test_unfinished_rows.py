"""A log still being written: its last row, cut off mid-row, is left out with a note - never read
as a number it does not hold (a monitor file cut in ``-61.0,62,...`` read as an episode of
reward -6; ``3,0.`` of ``3,0.75`` as 0.0)."""

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarmstats import InputError, read_log
from swarmstats.io import read_table
from swarmstats.io.tabular import HEAD_BYTES
from tests.test_cli import run

REAL = Path(__file__).parent / "fixtures" / "real"


def _cut(source: Path, target: Path, size: int) -> bytes:
    data = source.read_bytes()[:size]
    assert not data.endswith(b"\n")  # cut inside a row
    target.write_bytes(data)
    return data


def test_a_real_monitor_file_cut_mid_row_reads_its_finished_episodes(tmp_path):
    source = REAL / "sb3" / "dqn-Acrobot-v1.monitor.csv"
    data = _cut(source, tmp_path / "0.monitor.csv", 20_000)
    finished = data.count(b"\n") - 2  # the JSON header and the column names
    whole = read_log(source, wide=True)
    wide = read_log(tmp_path / "0.monitor.csv", wide=True)
    assert len(wide) == finished == 939
    np.testing.assert_array_equal(wide["r"], whole["r"][:finished])  # no "-6" for the cut episode
    assert "ends mid-row" in wide.attrs["notes"][0] and "'-6'" in wide.attrs["notes"][0]
    result = run("check-convergence", tmp_path / "0.monitor.csv", "-m", "r", "--format", "json")
    assert result.returncode in (0, 1), result.stderr
    assert "ends mid-row" in result.stderr and json.loads(result.stdout)["results"][0]["n"] == 939


def test_a_worker_file_cut_mid_row_in_a_run_folder_loses_only_that_row(tmp_path):
    # the monitor files of a vectorised run are read together, not one by one through the
    # generic reader: a worker still writing was read as an episode of its cut reward
    source = REAL / "sb3" / "ppo-Pendulum-v1"
    for worker in source.iterdir():
        (tmp_path / worker.name).write_bytes(worker.read_bytes())
    data = (source / "2.monitor.csv").read_bytes()
    (tmp_path / "2.monitor.csv").write_bytes(data[: data.rstrip(b"\n").rfind(b"\n") + 4])
    wide = read_log(tmp_path, wide=True)
    assert len(wide) == len(read_log(source, wide=True)) - 1
    assert any("2.monitor.csv" in note and "ends mid-row" in note for note in wide.attrs["notes"])


def test_a_real_progress_file_cut_mid_row_loses_only_that_row(tmp_path):
    source = REAL / "sb3-progress" / "progress.csv"
    _cut(source, tmp_path / "progress.csv", source.stat().st_size - 120)
    wide = read_log(tmp_path / "progress.csv", wide=True)
    assert len(wide) == len(read_log(source, wide=True)) - 1 == 24
    assert any("ends mid-row" in note for note in wide.attrs["notes"])


@pytest.mark.parametrize("text, values", [
    ('{"step": 0, "reward": 0.5}\n{"step": 1, "reward": 0.6}\n{"step": 2, "rew', [0.5, 0.6]),  # JSON Lines
    ("step\treward\n0\t0.5\n1\t0.6\n2", [0.5, 0.6]),  # TSV: one field of two
    ("step;reward\n0;0.5\n1;0.6\n2", [0.5, 0.6]),  # a European-locale CSV
])
def test_each_line_format_leaves_out_a_cut_last_row(tmp_path, text, values):
    path = tmp_path / ("log.jsonl" if text.startswith("{") else "log.csv" if ";" in text else "log.tsv")
    path.write_text(text)
    wide = read_log(path, wide=True)
    assert wide["reward"].tolist() == values and "ends mid-row" in wide.attrs["notes"][0]
    frame = read_table(path)
    assert frame["reward"].tolist() == values and "ends mid-row" in frame.attrs["notes"][0]


def test_a_big_file_cut_mid_row_is_read_whole_without_its_last_row(tmp_path):
    rows = 8_000
    text = "step,reward\n" + "".join(f"{k},{k / rows:.6f}\n" for k in range(rows))
    path = tmp_path / "big.csv"
    path.write_text(text + "80")  # a last row "8000,1.000000" cut in its step
    assert path.stat().st_size > HEAD_BYTES
    for frame in (read_log(path, wide=True), read_table(path)):
        assert len(frame) == rows and frame["reward"].iloc[-1] == pytest.approx((rows - 1) / rows)
        assert "ends mid-row" in frame.attrs["notes"][0]
    path.write_text(text + "8000\n")  # finished rows, one with an empty cell: kept, no note
    assert len(read_log(path, wide=True)) == rows + 1


@pytest.mark.parametrize("text", [
    "step,reward\n0,0.5\n1,0.6",  # every field, no final newline ("\n".join(rows)): kept
    'step,note,reward\n0,"a,b",0.5\n1,x,0.6',  # a quoted comma in the row before is one field
    "step\treward\n0\t0.5\n1\t",  # a tab that ends the row: an empty last field
    "reward\n0.5\n0.6",  # one column: nothing to compare
])
def test_a_complete_last_row_without_a_newline_is_kept(tmp_path, text):
    path = tmp_path / ("log.tsv" if "\t" in text else "log.csv")
    path.write_text(text)
    frame = read_table(path)
    assert len(frame) == 2 and "notes" not in frame.attrs
    assert not read_log(path, wide=True).attrs["notes"]


def test_a_json_document_is_never_cut_and_a_header_alone_is_an_error(tmp_path):
    # the line before the last holds a comma inside a string: a document is parsed whole
    path = tmp_path / "trainer_state.json"
    path.write_text('{"log_history": [{"step": 1, "loss": 0.5}, {"step": 2, "loss": 0.4}],\n'
                    '"best_model_checkpoint": "out/a,b"\n}')
    assert read_log(path, wide=True)["loss"].tolist() == [0.5, 0.4]
    (tmp_path / "log.csv").write_text("step,reward\n0")
    with pytest.raises(InputError, match="no data rows"):
        read_log(tmp_path / "log.csv")
    # from a stream too
    wide = read_log(io.StringIO("step,reward\n0,0.5\n1,0.6\n2"), wide=True)
    assert wide["reward"].tolist() == [0.5, 0.6]
    assert pd.api.types.is_float_dtype(wide["reward"])



def test_a_row_cut_inside_quotes_or_a_json_line_cut_before_its_brace_is_left_out(tmp_path):
    # '2,"0.' has its two fields but an open quote (pandas: "EOF inside string"); '[1,2' after
    # JSON lines is no JSON (read: "line 3: not valid JSON")
    (tmp_path / "log.csv").write_text('step,reward\n0,0.5\n1,0.6\n2,"0.')
    (tmp_path / "log.jsonl").write_text('{"step": 0, "r": 1}\n{"step": 1, "r": 2}\n[1,2')
    assert read_log(tmp_path / "log.csv", wide=True)["reward"].tolist() == [0.5, 0.6]
    assert read_log(tmp_path / "log.jsonl", wide=True)["r"].tolist() == [1, 2]


def test_a_big_log_that_grows_while_it_is_read_is_cut_where_its_row_was_unfinished(tmp_path, monkeypatch):
    # the tail is read, then the trainer appends: the rows read end where the unfinished row began
    # then, never at an offset counted from the grown file's end
    from swarmstats.io import unfinished
    rows = 8_000
    text = "step,reward\n" + "".join(f"{k},{k / rows:.6f}\n" for k in range(rows))
    path = tmp_path / "big.csv"
    path.write_text(text + "80")
    head = path.read_bytes()[:HEAD_BYTES]
    seen = unfinished._tail(str(path))
    with open(path, "a") as handle:
        handle.write("00,1.000000\n8001,1.000125\n8002,1.0")  # the row finished, more written
    monkeypatch.setattr(unfinished, "_tail", lambda _: seen)
    data, note = unfinished.without_unfinished_row(head, str(path))
    assert data == text.encode() and "ends mid-row" in note
