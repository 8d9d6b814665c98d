"""The printed training output ``watch`` follows line by line (``swarmstats/io/follow/printed.py``):
each format opens on its first line, takes every later line, and reads what ``read_log`` reads."""

from pathlib import Path

import pytest

from swarmstats.io import read_log
from swarmstats.io.follow import Follower
from swarmstats.io.follow.printed import open_printed

LOGS = Path(__file__).resolve().parent / "fixtures" / "logs"

#: (a printed fixture, what opens on it)
PRINTED = [("keras/fit.log", "_Blocks"), ("mlagents/3dball-0.x.txt", "_Lines"), ("mlagents/soccer.log", "_Lines"),
           ("printed-pairs/train.log", "_Pairs"), ("pymarl/cout.txt", "_Blocks"), ("rsl-rl/train.log", "_Blocks"),
           ("tianshou/train.log", "_Lines"), ("verl/console.log", "VerlLines"), ("acme/terminal.log", "_AcmeLines"),
           ("metric-logger/train.log", "_SteppedLines"),
           ("mappo/train.log", "_SteppedLines"),
           ("dreamer/train.log", "_Lines"),
           ("sample-factory/sf_log.txt", "_SteppedLines"),
           ("mmengine/20230610_195844.log", "_SteppedLines"),
           ("fairseq/train.log", "_Lines"),
           ("lightning-console/train.log", "_RedrawnLines"),
           ("ray-console/train.log", "_Blocks")]


@pytest.mark.parametrize("log, kind", PRINTED)
def test_a_followed_printed_log_reads_the_steps_and_unit_read_log_gives_it(log, kind):
    follower = Follower(str(LOGS / log))
    try:
        records = follower.records()
        assert type(follower._output).__name__ == kind and follower.skipped == 0
        table = read_log(LOGS / log, wide=True)
        followed = {record["step"] for record in records}
        # every step read_log reads, but a last block the follower holds until a line follows it
        assert followed <= set(table["step"].tolist()) and len(followed) >= len(set(table["step"])) - 1
        assert follower.step_unit("step") == table.attrs.get("step_unit", "step")
    finally:
        follower.close()


def test_once_one_printed_format_is_open_a_line_of_another_does_not_open_a_second(tmp_path):
    # a Tianshou log whose script also prints a line holding pymarl's phrase: the first format seen
    # keeps the file (pymarl's test ran first and took it over, its block never completed)
    log = tmp_path / "train.log"
    log.write_text("Epoch #1: test_reward: 1.000000 ± 0.5, best_reward: 1.0 in #1\n"
                   "[INFO] Recent Stats | t_env: 100 | Episode: 3\n"
                   "Epoch #2: test_reward: 2.000000 ± 0.5, best_reward: 2.0 in #2\n")
    follower = Follower(str(log))
    try:
        records = follower.records()
        assert [record["step"] for record in records] == [1, 2] and follower.step_unit(None) == "epochs"
    finally:
        follower.close()


@pytest.mark.parametrize("line", ["Using cuda device", "step,reward", "{'loss': 0.5, 'epoch': 1.0}",
                                  '{"step": 1, "data": {"loss": 0.5}}', "Epoch 1 of 3 done"])
def test_a_line_of_no_printed_format_opens_none(line):
    assert open_printed(line) is None


def test_verl_lines_mark_a_step_printed_after_the_process_passed_it_as_late():
    line = "(TaskRunner pid=7) step:{} - val-core/acc:0.{} - actor/loss:0.1"
    printed = open_printed(line.format(1, 1))
    records = [printed.feed(line.format(step, step)) for step in (1, 2, 3, 2)]
    assert [record["step"] for record in records] == [1, 2, 3, 2]
    assert [bool(record.get("\x00late")) for record in records] == [False, False, False, True]


def test_a_preamble_behind_loggings_time_is_not_taken_for_a_csv_header(tmp_path):
    # '2024-05-01 10:00:00,001 INFO ...': the comma before the milliseconds made the first line a
    # header and the records "2 fields where the header has 3" (read_log read them)
    log = tmp_path / "train.log"
    log.write_text("2024-05-01 10:00:00,001 INFO train.py:10 - starting, config loaded\n"
                   "2024-05-01 10:00:00,002 INFO train.py:11 - device cuda, 2 gpus\n"
                   + "".join(f"2024-05-01 10:00:{k:02d},123 INFO train.py:88 - step={100 * k} loss={2 - 0.01 * k:.3f}\n"
                             for k in range(1, 30)))
    follower = Follower(str(log))
    try:
        records = follower.records()
        assert [record["step"] for record in records] == [100 * k for k in range(1, 30)] and follower.skipped == 0
    finally:
        follower.close()
    # a CSV whose header is a real one is still read as a CSV after such a held line
    log.write_text("2024-05-01 10:00:00,001 starting\nstep,reward\n1,0.5\n2,0.6\n")
    follower = Follower(str(log))
    try:
        assert [float(record["reward"]) for record in follower.records()] == [0.5, 0.6]
    finally:
        follower.close()
