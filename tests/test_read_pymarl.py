"""What pymarl prints (``swarmstats/io/formats/pymarl.py``): its logger's "Recent Stats" blocks,
in sacred's cout.txt or a terminal capture, read from a whole file and followed by ``watch``."""

import json
from pathlib import Path

import numpy as np
import pytest

from swarmstats import InputError
from swarmstats.io import read_log
from swarmstats.io.formats.pymarl import BlockReader, is_console_head
from swarmstats.io.written_nan import is_written
from tests.conftest import diverged_reasons, printed_in_notebook
from tests.test_cli import run

#: made up in the layout pymarl's logger prints: sacred's start, the experiment's parameters
#: (pprint), three blocks four statistics to a line, a key long enough to run into its value
#: and a loss printed as nan, each block followed by pymarl's "t_env: N / T_max" line
COUT = Path(__file__).resolve().parent / "fixtures" / "logs" / "pymarl" / "cout.txt"


def test_each_block_is_a_row_at_its_t_env_with_the_episode_count():
    wide = read_log(COUT, wide=True)
    assert wide.attrs["format"] == "pymarl-console" and wide.attrs["step_unit"] == "timesteps"
    assert wide["step"].tolist() == [40, 10001, 20002] and wide["episode"].tolist() == [1, 258, 575]
    assert wide["return_mean"].tolist() == [1.7322, 2.829, 4.9429]
    # "{:<25}{:>8}": a key of 25 characters or more runs into its value
    assert wide["test_ep_length_mean_all_maps"].tolist() == [107.4062, 131.375, 99.0208]
    # statistics logged later (the learner's) are missing in the blocks before them
    assert np.isnan(wide["grad_norm"][0]) and wide["grad_norm"].tolist()[1:] == [1.5423, 0.5521]
    # what is printed is a moving average: said, so that nobody takes it for the values logged
    assert "each value is the mean of the last 5 logged (epsilon: the last)" in wide.attrs["notes"][0]
    assert is_console_head(COUT.read_text()[:65536], "cout.txt")


def _blocks(losses) -> str:
    """pymarl's printed blocks, one per loss, 10,000 timesteps apart."""
    return "".join(f"[INFO 10:05:00] my_main Recent Stats | t_env: {10_000 * i + 40:>10} | Episode: {i:>8}\n"
                   f"{'loss:':<25}{loss:>8}\t{'return_mean:':<25}{'1.5000':>8}\t\n"
                   f"[INFO 10:05:01] my_main t_env: {10_000 * i + 79} / 2050000\n" for i, loss in enumerate(losses))


def test_a_loss_printed_as_nan_is_a_run_that_diverged(tmp_path):
    assert is_written(read_log(COUT, wide=True)["loss"].to_numpy()).tolist() == [False, False, True]
    (tmp_path / "cout.txt").write_text(_blocks(["0.0100"] * 40 + ["nan"] * 20))
    assert "diverged: from step 400040 on every value is NaN" in diverged_reasons(tmp_path / "cout.txt", "loss")


def test_a_line_still_being_written_is_left_out(tmp_path):
    text = COUT.read_text()
    cut = text[:text.index("4.9429") + 4]  # the last block's return_mean printed as far as "4.94"
    (tmp_path / "cout.txt").write_text(cut)
    wide = read_log(tmp_path / "cout.txt", wide=True)
    assert wide["return_mean"].tolist()[:2] == [1.7322, 2.829] and np.isnan(wide["return_mean"].tolist()[2])
    assert wide["battle_won_mean"].tolist() == [0.0, 0.05, 0.2]  # the block's first line was whole


def test_a_run_printed_after_another_is_a_second_run(tmp_path):
    text = COUT.read_text()
    (tmp_path / "two.txt").write_text(text + text)
    wide = read_log(tmp_path / "two.txt", wide=True)
    assert wide.groupby("run")["step"].apply(list).to_dict() == {"#1": [40, 10001, 20002], "#2": [40, 10001, 20002]}
    assert "2 runs printed one after another (t_env back to the start ends one)" in wide.attrs["notes"]


def test_blocks_printed_in_a_notebook_are_read_from_its_outputs(tmp_path):
    path = tmp_path / "train.ipynb"
    path.write_text(printed_in_notebook(COUT.read_text()))
    wide = read_log(path, wide=True)
    assert wide.attrs["format"] == "pymarl-console" and wide["step"].tolist() == [40, 10001, 20002]


def test_a_file_without_a_block_is_one_clear_error(tmp_path):
    path = tmp_path / "cout.txt"
    path.write_text("[INFO 10:00:00] pymarl Running command 'my_main'\n")
    with pytest.raises(InputError, match="no pymarl statistics found"):
        read_log(path, format="pymarl-console")


def test_the_block_reader_gives_a_block_when_the_line_after_it_arrives():
    reader = BlockReader()
    lines = COUT.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if "Recent Stats" in line)
    assert [reader.feed(line) for line in lines[start:start + 3]] == [None, None, None]
    done = reader.feed(lines[start + 3])  # pymarl's "t_env: 79 / 30000" line
    assert done == {"step": 40.0, "episode": 1.0, "battle_won_mean": 0.0, "epsilon": 1.0, "return_mean": 1.7322,
                    "test_ep_length_mean_all_maps": 107.4062, "test_return_mean": 1.9843}


def test_watch_follows_the_blocks_and_takes_the_printed_configuration_for_terminal_text():
    done = run("watch", COUT, "-m", "return_mean", "--once", "--format", "json")
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(done.stdout[done.stdout.index("\n{\n") + 1:])
    assert report["skipped_lines"] == 0  # pymarl's pprint of its parameters is no bad line
    assert report["report"]["steps"] == 3 and report["report"]["metrics"]["return_mean"]["n"] == 3
