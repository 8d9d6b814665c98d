"""Tables printed with their columns aligned by spaces (swarmstats/io/formats/printed_table.py):
fastai's training table and ``print(df)``, read where they were refused as one column of text,
and nothing else read so."""

import json

import numpy as np
import pandas as pd
import pytest

from swarmstats.errors import InputError
from swarmstats.io import read_log
from swarmstats.io.formats.printed_table import MIN_ROWS, read_table
from tests.test_cli import run


def _fastai(epochs=30, validation=True):
    """A fit as fastai prints it in a terminal (its layout, made-up numbers)."""
    out = ["epoch     train_loss  valid_loss  accuracy  time    "]
    for e in range(epochs):
        valid = f"{0.4 - e / 120:<12.6f}" if validation else f"{'#na#':<12}"
        out.append(f"{e:<10d}{0.5 - e / 100:<12.6f}{valid}{0.8 + e / 200:<10.6f}0{e // 60}:{e % 60:02d}   ")
    return "\n".join(out) + "\n"


def test_fastais_table_is_read_where_it_was_one_column_of_text(tmp_path):
    # read as a CSV, "no numeric metric column (columns: epoch     train_loss  valid_loss ...)"
    path = tmp_path / "fit.log"
    path.write_text("Using a GPU\n" + _fastai())
    wide = read_log(path, wide=True)
    assert wide.attrs["format"] == "printed-table" and wide.attrs["step_unit"] == "epochs"
    assert wide.columns.tolist() == ["step", "train_loss", "valid_loss", "accuracy", "time"]
    assert wide["step"].tolist() == list(range(30))
    assert wide["accuracy"].tolist() == pytest.approx([round(0.8 + e / 200, 6) for e in range(30)])
    assert wide["time"].tolist() == [float(e) for e in range(30)]  # mm:ss in seconds
    assert wide.attrs["notes"] == ["30 row(s) of a printed table with its columns aligned by spaces, under "
                                   "'epoch train_loss valid_loss accuracy time', step = epoch; 1 other line(s) skipped"]
    done = run("check-convergence", path, "--format", "json")
    assert {row["name"] for row in json.loads(done.stdout)["results"]} == {"train_loss", "valid_loss", "accuracy"}
    assert "time (a clock)" in done.stderr
    watched = run("watch", path, "--once")
    assert watched.returncode == 2 and "its printed table is read by the other commands" in watched.stderr


def test_fastais_missing_mark_and_a_pandas_frames_index():
    table = read_table("fit.log", _fastai(epochs=6, validation=False)).frame
    assert np.isnan(table["valid_loss"]).all() and len(table) == 6
    frame = pd.DataFrame({"reward": np.linspace(1, 2, 8), "loss": np.linspace(0.5, 0.1, 8)})
    printed = read_table("df.txt", frame.to_string()).frame  # print(df): its index first, under no name
    assert printed["step"].tolist() == list(range(8))
    assert printed["reward"].tolist() == pytest.approx(frame["reward"].tolist(), abs=1e-6)
    stepped = read_table("df.txt", frame.assign(episode=np.arange(10, 90, 10)).to_string()).frame
    assert stepped["step"].tolist() == list(range(10, 90, 10))  # a step column before the index


@pytest.mark.parametrize("text", [
    _fastai(epochs=MIN_ROWS - 1),                                              # too few rows
    "epoch train_loss\n" + "\n".join(f"{e} {0.5 - e / 10} extra" for e in range(10)),  # a word in every row
    "The run went well and the loss fell\n" * 10,                              # prose
    "epoch loss\n\n" + "\n".join(f"{e} {e / 10}" for e in range(10)),         # rows not right under it
])
def test_what_is_no_aligned_table_is_refused(text):
    with pytest.raises(InputError, match="heads 5 printed rows"):
        read_table("not.log", text)
