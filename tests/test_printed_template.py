"""Printed lines of one form in no known format (swarmstats/io/formats/printed_template.py):
what each number is called, which lines make a log, and that nothing a format reads, and no
file refused for good reason, is read this way instead."""

import json

import pytest

from swarmstats.errors import InputError
from swarmstats.io import read_log
from swarmstats.io.formats.printed_template import (
    MAX_NUMBERS,
    MIN_RECORDS,
    FormFollower,
    read_template,
    slot_name,
)
from tests.test_cli import run


@pytest.mark.parametrize("before, name", [
    ("running reward: ", "running reward"),                   # Keras' actor-critic example
    (" at episode ", "episode"),
    ("Episode * ", "Episode"),                                 # Keras' DDPG example
    (" * Avg Reward is ==> ", "Avg Reward"),
    (" Epoch: ", "Epoch"),                                     # Keras' PPO example
    (". Mean Return: ", "Mean Return"),
    (", frame count ", "frame count"),                         # Keras' DQN example
    ("2024-05-01 10:01:00,123 INFO running reward: ", "running reward"),  # a logger's prefix
    ("INFO:root:loss = ", "loss"),
    ("[Iter ", "Iter"),
    (" loss -> ", "loss"),
    ("/", None),                                               # the total of "Epoch 3/10"
    (" - epoch 0: {'accuracy': ", "accuracy"),                  # Accelerate's examples: a printed dict
    ("📊 Epoch ", "Epoch"),                                    # a mark before the name is no part of it
    (", 'f1': ", "f1"),
    ("", None),
    (" over ", None),                                          # "mean reward 30.5 over 5 runs"
    ("the mean of the rewards of all the agents in the last evaluation round was ", "last evaluation round"),
])
def test_a_number_is_named_by_the_words_before_it(before, name):
    assert slot_name(before) == name


def lines(form: str, rows) -> str:
    return "\n".join(form.format(*row) for row in rows) + "\n"


def test_a_loop_printing_the_step_last_is_read_on_it():
    text = lines("running reward: {} at episode {}", [(8.82, 10), (23.04, 20), (28.41, 30), (53.59, 40),
                                                      (53.71, 50), (77.35, 60)]) + "Solved at episode 62!\n"
    table = read_template("run.log", text)
    frame = table.frame
    assert frame.columns.tolist() == ["step", "running reward"]
    assert frame["step"].tolist() == [10, 20, 30, 40, 50, 60]
    assert frame["running reward"].tolist() == [8.82, 23.04, 28.41, 53.59, 53.71, 77.35]
    assert table.step_unit == "episodes" and table.format == "printed-template"
    assert table.notes == [("6 printed line(s) like 'running reward: 8.82 at episode 10' read as 'running reward' "
                            "by 'episode' (in no format swarmstats knows: each number named by the words printed "
                            "before it); 1 other line(s) skipped")]


def test_lines_of_two_forms_at_one_step_share_a_row_and_a_clock_is_left_out_and_said():
    train = lines("[10:{:02d}:{:02d}] total reward {} after episode {} (epsilon {})",
                  [(k // 60, k % 60, 10.0 * k, k, 1 - k / 10) for k in range(1, 7)])
    evaluation = lines("[10:{:02d}:{:02d}] evaluation: mean reward {} over 5 runs after episode {}",
                       [(k // 60, k % 60 + 1, 11.0 * k, k) for k in range(1, 7)])
    text = "".join(a + b for a, b in zip(train.splitlines(True), evaluation.splitlines(True)))
    table = read_template("dqn.log", text)
    frame = table.frame
    assert frame.columns.tolist() == ["step", "total reward", "epsilon", "mean reward"]
    assert frame["step"].tolist() == [1, 2, 3, 4, 5, 6]
    assert frame["mean reward"].tolist() == pytest.approx([11, 22, 33, 44, 55, 66])
    # the seconds vary; the hour is the same on every line, and "5 runs" is named by no word
    assert table.notes[1] == "left out: 1 number(s) on each line with no words before them, which vary from line to line"


def test_the_most_precise_step_key_is_the_axis_and_a_total_is_no_value():
    text = lines("Epoch {}/3, Step {}/200: loss {}", [(e, s, 1 / (e * s)) for e in (1, 2) for s in (50, 100, 150)])
    frame = read_template("train.txt", text).frame
    assert frame["step"].tolist() == [50, 100, 150, 50, 100, 150]  # the step starting again: the loader's rules
    assert frame.columns.tolist() == ["step", "Epoch", "loss"]


def test_too_few_lines_no_step_key_or_no_named_metric_is_no_log():
    with pytest.raises(InputError, match="no 5 printed lines of one form hold a step key"):
        read_template("short.log", lines("reward {} at episode {}", [(1.0, k) for k in range(MIN_RECORDS - 1)]))
    with pytest.raises(InputError, match="no 5 printed lines"):
        read_template("nostep.log", lines("loss {} accuracy {}", [(1.0 / k, k / 10) for k in range(1, 9)]))
    with pytest.raises(InputError, match="no 5 printed lines"):  # a table of numbers: nothing names them
        read_template("numbers.log", lines("{} {} {}", [(k, k * 2, k * 3) for k in range(1, 9)]))
    with pytest.raises(InputError, match="no 5 printed lines"):  # numbers inside words are no numbers
        read_template("names.log", "".join(f"episode v{k} of gpt2 run-{k}\n" for k in range(9)))


def test_a_step_that_is_no_number_is_left_out_and_said_and_an_array_is_no_record():
    text = lines("reward {} at episode {}", [(1.5, 1), (2.5, 2), (3.0, "nan"), (4.0, 4), (4.5, 5), (5.0, 6)])
    table = read_template("run.log", text)
    assert table.frame["step"].tolist() == [1, 2, 4, 5, 6]
    assert table.notes[-1] == "1 line(s) whose 'episode' is not a number left out"
    array = " ".join(["0.5"] * (MAX_NUMBERS + 1))
    with pytest.raises(InputError, match="no 5 printed lines"):
        read_template("arrays.log", "".join(f"episode {k} obs {array}\n" for k in range(9)))


def test_read_log_tries_it_last_where_it_would_refuse_the_file(tmp_path):
    text = lines(" Epoch: {}. Mean Return: {}. Mean Length: {}", [(k, 18.0 + k, 18.0 + k) for k in range(1, 9)])
    for name in ("ppo.txt", "ppo.log", "ppo.csv"):  # read as a table, it was one column of text
        (tmp_path / name).write_text(text)
        wide = read_log(tmp_path / name, wide=True)
        assert wide.attrs["format"] == "printed-template"
        assert wide.columns.tolist() == ["step", "Mean Return", "Mean Length"]
    page = tmp_path / "results.md"
    page.write_text("# PPO on CartPole\n\nWhat it printed:\n\n```\n" + text + "```\n")
    assert read_log(page, wide=True)["Mean Return"].iloc[-1] == 26.0
    notebook = tmp_path / "ppo.ipynb"
    notebook.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "source": ["train()"], "metadata": {}, "execution_count": 1,
         "outputs": [{"output_type": "stream", "name": "stdout", "text": text.splitlines(True)}]}]}))
    assert read_log(notebook, wide=True)["step"].tolist() == list(range(1, 9))
    # named, it is read whatever else the file could be
    assert read_log(tmp_path / "ppo.txt", format="printed-template", wide=True).shape == (8, 3)


def test_a_file_a_format_reads_or_a_table_of_numbers_is_never_read_as_a_form(tmp_path):
    pairs = tmp_path / "pairs.log"  # printed-pairs' own: it keeps reading it
    pairs.write_text(lines("episode={}, return={}", [(k, 1.5 * k) for k in range(1, 9)]))
    assert read_log(pairs).attrs["format"] == "printed-pairs"
    table = tmp_path / "log.csv"  # a table with text cells and a number column stays a table
    table.write_text("step,reward,comment\n" + lines("{},{},run {} at epoch {}", [(k, k / 2, k, k) for k in range(1, 9)]))
    assert read_log(table).attrs["format"] == "csv"


def test_what_has_no_form_is_refused_as_before(tmp_path):
    page = tmp_path / "notes.md"
    page.write_text("# Notes\n\nWe trained for 3 days on 8 GPUs.\n\n```python\nmodel.fit(x, epochs=10)\n```\n")
    result = run("check-convergence", page)
    assert result.returncode == 2 and "no training log found in this Markdown file" in result.stderr
    prose = tmp_path / "prose.txt"
    prose.write_text("".join(f"Chapter {k}: the {k}th day was warm\n" for k in range(1, 9)))
    result = run("describe", prose)
    assert result.returncode == 2 and "no numeric metric column" in result.stderr


def test_the_cli_reads_it_and_watch_follows_it_as_it_is_written(tmp_path):
    path = tmp_path / "a2c.log"
    rising = [(round(10 + 3 * k + (k % 3), 2), 10 * k) for k in range(1, 41)]
    path.write_text("starting\n" + lines("running reward: {} at episode {}", rising))
    result = run("check-convergence", path, "--format", "json")
    assert result.returncode == 1 and "40 printed line(s) like 'running reward: 14 at episode 10'" in result.stderr
    (row,) = json.loads(result.stdout)["results"]
    assert row["name"] == "running reward" and row["verdict"] == "not_converged" and row["n"] == 40
    out = run("watch", path, "--once", "--format", "json").stdout
    followed = json.loads(out[out.index('{\n  "schema_version"'):])["report"]["metrics"]["running reward"]
    assert followed["n"] == 40 and followed["verdict"] == "not_converged"


def test_the_follower_opens_at_the_fifth_line_of_a_form_and_reads_another_form_from_its_fifth():
    follower = FormFollower()
    train = [f"[10:00:{k:02d}] total reward {10.0 * k} after episode {k}" for k in range(1, 9)]
    evaluation = [f"eval: mean reward {11.0 * k} over 5 runs after episode {k}" for k in range(1, 9)]
    given = [follower.feed(line) for pair in zip(train, evaluation) for line in pair]
    assert given[:8] == [[]] * 8  # four lines of each: no form has made a log yet
    assert given[8] == [(k, {"total reward": 10.0 * k}) for k in range(1, 6)]  # the training lines held
    assert given[9] == [(5, {"mean reward": 55.0})]  # the evaluations from their fifth on
    assert given[10:] == [[(6, {"total reward": 60.0})], [(6, {"mean reward": 66.0})],
                          [(7, {"total reward": 70.0})], [(7, {"mean reward": 77.0})],
                          [(8, {"total reward": 80.0})], [(8, {"mean reward": 88.0})]]
    assert follower.axis == "episode" and follower.feed("no number here") == []
    other = FormFollower()  # a form with another step key does not join the log
    for k in range(1, 6):
        other.feed(f"running reward: {k} at episode {10 * k}")
    assert [other.feed(f"loss {0.1 * k} at step {k}") for k in range(1, 6)] == [[]] * 5


def test_watch_says_what_it_cannot_follow_that_the_other_commands_read(tmp_path):
    # a Keras epoch line opens Keras' follower, which reads none of the loop's own lines
    path = tmp_path / "mixed.log"
    path.write_text("model.fit(x, y, epochs=10) prints Epoch 1/10 and a bar\nEpoch 1/10\nthen our own loop:\n"
                    + lines("Episode * {} * Avg Reward is ==> {}", [(k, -1000 + 20 * k) for k in range(40)]))
    assert read_log(path, wide=True)["Avg Reward"].tolist() == [-1000 + 20 * k for k in range(40)]
    watched = run("watch", path, "--once")
    assert watched.returncode == 2
    assert ("no numeric metric values were read; its lines of one form in no format swarmstats knows are read by the "
            "other commands, which read the file whole (40 printed line(s) like 'Episode * 0 * Avg Reward is ==> "
            "-1000' read as 'Avg Reward' by 'Episode'), but not followed as they arrive") in watched.stderr


def _language_model_log(total=983, epochs=3, first_epoch=1, interval=200):
    """What PyTorch's word-language-model example (and the nn.Transformer tutorial built on it)
    prints, in its own layout, with made-up numbers: a line every ``interval`` batches, then the
    validation at each epoch's end, then the test."""
    out = ["| Model: Transformer"]
    for epoch in range(first_epoch, first_epoch + epochs):
        for batch in range(interval, total, interval):
            loss = 7.0 - 0.5 * epoch - 0.3 * batch / total
            out.append(f"| epoch {epoch:3d} | {batch:5d}/{total:5d} batches | lr 20.00 | ms/batch 45.{batch % 7}0 "
                       f"| loss {loss:5.2f} | ppl {2.718 ** loss:8.2f}")
        out.append("-" * 89)
        out.append(f"| end of epoch {epoch:3d} | time: 15{epoch}.30s | valid loss {6.6 - 0.4 * epoch:5.2f} | "
                   f"valid ppl {2.718 ** (6.6 - 0.4 * epoch):8.2f}")
        out.append("-" * 89)
    out += ["=" * 89, "| End of training | test loss  4.98 | test ppl   145.91", "=" * 89]
    return "\n".join(out) + "\n"


def test_a_count_within_the_epoch_makes_the_step_and_the_epochs_end_holds_its_validation(tmp_path):
    # read by the epoch alone, every line of an epoch shared one row: 12 training lines were 3
    # rows, each the epoch's last; and printed-pairs took the file for its 3 "| end of epoch"
    # lines, a table of their time alone
    path = tmp_path / "lm.log"
    path.write_text(_language_model_log())
    wide = read_log(path, wide=True)
    assert wide.attrs["format"] == "printed-template" and wide.attrs["step_unit"] == "steps"
    assert wide.columns.tolist() == ["step", "lr", "ms/batch", "loss", "ppl", "time", "valid loss", "valid ppl"]
    training = wide.dropna(subset=["loss"])
    assert training["step"].tolist() == [983 * (e - 1) + b for e in (1, 2, 3) for b in (200, 400, 600, 800)]
    assert training["loss"].tolist() == pytest.approx([round(7.0 - 0.5 * e - 0.3 * b / 983, 2)
                                                       for e in (1, 2, 3) for b in (200, 400, 600, 800)])
    validation = wide.dropna(subset=["valid loss"])
    assert validation["step"].tolist() == [983, 1966, 2949]  # each epoch's end
    assert validation["valid loss"].tolist() == pytest.approx([6.2, 5.8, 5.4])
    assert wide.attrs["notes"][1] == (
        "'epoch' repeats on lines of the form '| epoch   1 |   200/  983 batches | lr 20.00 | ms/batch 45.40 | "
        "loss  6.44 | ppl   625.34': read with the count before '/ total' as step (epoch - 1) x total + count "
        "(the count starts again each epoch), and the other lines at the end of their epoch, epoch x total")
    assert not any("left out" in note for note in wide.attrs["notes"])  # the count and total are read
    done = run("check-convergence", path, "--format", "json")
    checked = {row["name"]: row for row in json.loads(done.stdout)["results"]}
    assert checked["loss"]["n"] == 12 and checked["valid loss"]["n"] == 3
    assert "ms/batch" not in checked and "time" not in checked  # clocks: bookkeeping
    assert "ms/batch, time (a clock)" in done.stderr


def test_epochs_counted_from_zero_and_runs_of_other_totals():
    one = read_template("lm.log", _language_model_log(first_epoch=0, epochs=2)).frame
    assert one.dropna(subset=["loss"])["step"].tolist() == [983 * e + b for e in (0, 1) for b in (200, 400, 600, 800)]
    assert one.dropna(subset=["valid loss"])["step"].tolist() == [983, 1966]
    # two trainings in one capture (three tokenizers, each its own batches per epoch): the second
    # starts again, a run of its own by the loader's rules, on its own total
    text = _language_model_log(total=983, epochs=2) + _language_model_log(total=455, epochs=2)
    table = read_template("two.log", text).frame
    assert table.dropna(subset=["valid loss"])["step"].tolist() == [983, 1966, 455, 910]


def test_watch_follows_the_counted_steps_as_read_log_reads_them(tmp_path):
    follower = FormFollower()
    records = [record for line in _language_model_log(epochs=3).splitlines() for record in follower.feed(line)]
    table = read_template("lm.log", _language_model_log(epochs=3)).frame
    training = [(step, values["loss"]) for step, values in records if "loss" in values]
    assert training == list(zip(table.dropna(subset=["loss"])["step"], table.dropna(subset=["loss"])["loss"]))
    # the validation form is followed from its second line (its first came before later steps)
    assert [step for step, values in records if "valid loss" in values] == [1966, 2949]


def test_lines_repeating_a_step_with_no_count_say_what_was_replaced():
    text = "\n".join(f"epoch {1 + i // 4} loss is {1 - i / 100} and acc at {i / 100}" for i in range(20))
    table = read_template("rep.log", text)
    assert table.frame["step"].tolist() == [1, 2, 3, 4, 5]
    assert table.frame["loss"].tolist() == pytest.approx([0.97, 0.93, 0.89, 0.85, 0.81])  # each epoch's last
    assert table.notes[1] == ("15 line(s) at the epoch of the line before, naming the same, replaced it (the last "
                              "printed is kept): no count within the epoch was found on them")


def _transfer_learning_log(epochs=25, first_epoch=0):
    """What the PyTorch transfer-learning tutorial's ``train_model`` prints (copied into countless
    projects), in its layout with made-up numbers: a header per epoch, counted from 0, then a
    line per phase."""
    out = []
    for epoch in range(epochs):
        out += [f"Epoch {epoch + first_epoch}/{epochs - 1 + first_epoch}", "-" * 10,
                f"train Loss: {0.6 - epoch / 100:.4f} Acc: {0.7 + epoch / 200:.4f}",
                f"val Loss: {0.3 - epoch / 200:.4f} Acc: {0.9 + epoch / 500:.4f}", ""]
    return "\n".join(out + ["Training complete in 1m 7s", "Best val Acc: 0.954248"]) + "\n"


def _quickstart_log(epochs=10):
    """What the PyTorch quickstart tutorial prints, in its layout with made-up numbers: a header
    per epoch counted from 1, the loss every 100 batches with the samples seen out of 60,000,
    then the test."""
    out = ["Using cuda device"]
    for epoch in range(1, epochs + 1):
        out += [f"Epoch {epoch}", "-" * 31]
        out += [f"loss: {2.3 - epoch * 0.1 - batch / 5000:>7f}  [{batch * 64 + 64:>5d}/60000]" for batch in range(0, 938, 100)]
        out += ["Test Error: ", f" Accuracy: {37 + epoch * 3:>0.1f}%, Avg loss: {2.25 - epoch * 0.1:>8f} ", ""]
    return "\n".join(out + ["Done!"]) + "\n"


def test_lines_after_a_header_printing_the_epoch_alone_are_read_at_it(tmp_path):
    # read as a CSV, "no numeric metric column (columns: Epoch 0/24)": no line holds its own step
    path = tmp_path / "transfer.log"
    path.write_text(_transfer_learning_log())
    wide = read_log(path, wide=True)
    assert wide.attrs["format"] == "printed-template" and wide.attrs["step_unit"] == "epochs"
    assert wide.columns.tolist() == ["step", "train Loss", "train Acc", "val Loss", "val Acc"]  # each phase's own
    assert wide["step"].tolist() == list(range(25))
    assert wide["val Acc"].tolist() == pytest.approx([round(0.9 + e / 500, 4) for e in range(25)])
    assert wide.attrs["notes"][1] == ("no line holds its own 'Epoch': each line read at the Epoch of the line before "
                                      "it that prints one alone ('Epoch 0/24' ...)")
    assert wide.attrs["notes"][0].endswith("; 27 other line(s) skipped")  # the dashes and the closing two
    done = run("check-convergence", path, "--format", "json")
    assert {row["name"] for row in json.loads(done.stdout)["results"]} == {"train Loss", "train Acc", "val Loss", "val Acc"}
    out = run("watch", path, "--once", "--format", "json").stdout  # followed line by line alike
    followed = json.loads(out[out.index('{\n  "schema_version"'):])["report"]["metrics"]
    assert {name: row["n"] for name, row in followed.items()} == {name: 25 for name in wide.columns[1:]}
    # headed "Epoch 1/25" from 1, as Keras heads its epochs: watch opens Keras' reader on the
    # first header, and says that it follows none of these lines (the other commands read them)
    path.write_text(_transfer_learning_log(first_epoch=1))
    assert read_log(path, wide=True)["step"].tolist() == list(range(1, 26))
    watched = run("watch", path, "--once")
    assert watched.returncode == 2 and "but not followed as they arrive" in watched.stderr


def test_a_header_led_block_with_a_count_within_the_epoch_and_a_test_at_its_end():
    table = read_template("quickstart.log", _quickstart_log())
    frame = table.frame
    training = frame.dropna(subset=["loss"])
    assert training["step"].tolist() == [60000 * (e - 1) + 64 * b + 64 for e in range(1, 11) for b in range(0, 938, 100)]
    tests = frame.dropna(subset=["Accuracy"])
    assert tests["step"].tolist() == [60000 * e for e in range(1, 11)]  # each epoch's end
    assert tests["Accuracy"].tolist() == pytest.approx([40.0 + 3 * k for k in range(10)])
    assert tests["Avg loss"].tolist() == pytest.approx([2.15 - 0.1 * k for k in range(10)])
    follower = FormFollower()  # watch follows it as read_log reads it
    followed = [record for line in _quickstart_log().splitlines() for record in follower.feed(line)]
    assert [(step, values["loss"]) for step, values in followed if "loss" in values] == list(
        zip(training["step"], training["loss"]))
    assert [step for step, values in followed if "Accuracy" in values] == [60000 * e for e in range(1, 11)]
    assert follower.counted and follower.axis == "Epoch"


@pytest.mark.parametrize("text", [
    _transfer_learning_log(epochs=MIN_RECORDS - 1),                              # too few headers
    "\n".join(f"Epoch {e}" for e in range(30)) + "\n",                             # headers, nothing under them
    "\n".join(f"Epoch {e}\nsaved the model" for e in range(30)) + "\n",            # no number under them
])
def test_too_few_headers_or_nothing_numbered_under_them_is_no_log(text):
    with pytest.raises(InputError, match="no 5 printed lines of one form"):
        read_template("short.log", text)


def test_boosting_rounds_printed_in_brackets_are_the_step(tmp_path):
    # XGBoost's evaluation lines begin with "[": read as JSON, "not valid JSON (line 1: Extra data)"
    xgboost = tmp_path / "xgb.log"
    xgboost.write_text("".join(f"[{i}]\tvalidation_0-logloss:{0.6 - i / 200:.5f}\tvalidation_1-logloss:"
                               f"{0.61 - i / 250:.5f}\n" for i in range(50)))
    wide = read_log(xgboost, wide=True)
    assert wide.attrs["format"] == "printed-template" and wide.attrs["step_unit"] == "rounds"
    assert wide.columns.tolist() == ["step", "validation_0-logloss", "validation_1-logloss"]
    assert wide["step"].tolist() == list(range(50))
    done = run("check-convergence", xgboost, "--format", "json")
    assert {row["name"] for row in json.loads(done.stdout)["results"]} == {"validation_0-logloss", "validation_1-logloss"}
    # LightGBM's, after early stopping, print the best round again: a summary, not a second run
    lightgbm = tmp_path / "lgb.log"
    lightgbm.write_text("Training until validation scores don't improve for 10 rounds\n"
                        + "".join(f"[{i}]\tvalid_0's l2: {0.5 - i / 100:.6f}\n" for i in range(1, 56))
                        + "Early stopping, best iteration is:\n[45]\tvalid_0's l2: 0.050000\n")
    tidy = read_log(lightgbm)
    assert "run" not in tidy.columns and len(tidy) == 55
    assert tidy.attrs["notes"][1] == ("1 line(s) printing again a record read before, at an earlier round (a summary "
                                      "of the best, as LightGBM's early stopping prints it), left out")


def test_a_header_may_begin_with_a_word():
    # NEAT-Python's reporter heads each generation " ****** Running generation 5 ****** "
    out = []
    for g in range(8):
        out += [f" ****** Running generation {g} ****** ", "",
                f"Population's average fitness: {0.98 + g / 30:.5f} stdev: {0.67 - g / 100:.5f}",
                f"Best fitness: {2.96 + g / 20:.5f} - size: (1, 2) - species 1 - id {44 + 7 * g}",
                f"Generation time: 0.0{20 + g % 9} sec", ""]
    table = read_template("neat.log", "\n".join(out))
    assert table.step_unit == "generations" and table.frame["step"].tolist() == list(range(8))
    assert table.frame["Population's average fitness"].tolist() == pytest.approx([0.98 + g / 30 for g in range(8)],
                                                                                abs=1e-5)


def test_a_number_printing_the_step_again_is_no_metric_and_a_line_naming_its_phases_keeps_its_names():
    # the transfer-learning loop as many copy it, with "==> best model saved - 5 / 95.8" after a
    # new best: its 5 is the epoch again (a "best model saved" column of epoch numbers before)
    out = []
    best = 0.0
    for e in range(8):
        accuracy = 80 + 2 * e - (3 if e in (3, 6) else 0)
        out += [f"    Epoch {e}/29", "    ----------", f"    train Loss: {1.9 - e / 5:.4f} Acc: {50 + 5 * e:.4f}",
                f"    val Loss: {0.75 - e / 20:.4f} Acc: {accuracy:.4f}"]
        if accuracy > best:
            best = accuracy
            out.append(f"    ==> best model saved - {e} / {accuracy:.1f}")
    table = read_template("nb.md", "\n".join(out))
    assert table.frame.columns.tolist() == ["step", "train Loss", "train Acc", "val Loss", "val Acc"]
    follower = FormFollower()
    followed = {name for line in out for _, values in follower.feed(line) for name in values}
    assert followed == {"train Loss", "train Acc", "val Loss", "val Acc"}
    # a line that names each number with its own phase is not put under the first one's
    piped = "\n".join(f"Epoch {e}/100\n  Train Loss: {0.25 - e / 1000:.4f} | Val Loss: {0.21 - e / 1200:.4f} | "
                      f"MAPE: {3.2 - e / 50:.1f}%" for e in range(1, 9))
    assert read_template("fit.log", piped).frame.columns.tolist() == ["step", "Train Loss", "Val Loss", "MAPE"]
