"""A corpus of malformed and hostile inputs, each written by a small function into a folder.

``GARBAGE`` holds inputs that carry no analysable series: every command must refuse them
(exit 2, one line on stderr).  ``ODD`` holds inputs that are strange but may hold data
(CRLF, a BOM, a quoted header, injection attempts in names): a command may analyse them
(exit 0 or 1) or refuse them (exit 2), but never crash, hang or touch the input.
"""

from __future__ import annotations

import gzip
import json
import os

import numpy as np

#: a plain, valid little log: the base the odd inputs start from
ROWS = 120


def _series(n=ROWS, seed=0):
    rng = np.random.default_rng(seed)
    return 0.5 + 0.05 * rng.standard_normal(n)


def _csv(header, rows, newline="\n"):
    return newline.join([header] + rows) + newline


def _plain_rows(n=ROWS):
    return [f"{i},{v:.4f}" for i, v in enumerate(_series(n))]


def _write(folder, name, data):
    path = os.path.join(folder, name)
    with open(path, "wb") as handle:
        handle.write(data if isinstance(data, bytes) else data.encode())
    return path


def _deep(depth, opener, closer):
    return opener * depth + closer * depth


GARBAGE = {
    "empty": lambda d: _write(d, "empty.csv", b""),
    "whitespace": lambda d: _write(d, "blank.csv", "  \n\n\t\n"),
    "header_only": lambda d: _write(d, "header.csv", "step,reward\n"),
    "only_commas": lambda d: _write(d, "commas.csv", ",,,\n,,,\n,,,\n"),
    "comments_only": lambda d: _write(d, "comments.csv", "# a\n# b\n"),
    "binary_png": lambda d: _write(d, "image.csv", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4),
    "nul_after_8k": lambda d: _write(d, "late_nul.csv", _csv("step,reward", _plain_rows(1200)).encode()
                                     + b"\x00\x01\x02garbage\n"),
    "latin1": lambda d: _write(d, "latin.csv", "step,r\xe9compense\n0,0.5\n1,0.6\n".encode("latin-1")),
    # a compressed log is read (it may hold data: ODD); cut short, or an archive, it is garbage
    "gzip_cut": lambda d: _write(d, "cut.csv.gz", gzip.compress(_csv("step,reward", _plain_rows()).encode())[:40]),
    "zip_archive": lambda d: _write(d, "logs.zip", b"PK\x03\x04" + bytes(range(256))),
    "deep_json_list": lambda d: _write(d, "deep.json", _deep(100_000, "[", "]")),
    "deep_json_object": lambda d: _write(d, "deep_obj.json", '{"a":' * 50_000 + "1" + "}" * 50_000),
    "deep_jsonl": lambda d: _write(d, "deep.jsonl", '{"step": 0, "r": ' + _deep(50_000, "[", "]") + "}\n"),
    "big_int_json": lambda d: _write(d, "bigint.json", '[{"step": 0, "reward": ' + "9" * 5000 + "}]"),
    "big_int_jsonl": lambda d: _write(d, "bigint.jsonl", "".join(
        f'{{"step": {i}, "reward": {"9" * 5000}}}\n' for i in range(30))),
    "trainer_state_text": lambda d: _write(d, "trainer_state.json", json.dumps(
        {"log_history": [{"step": "x", "loss": [1, 2]}] * 20})),
    "swarm_history_text": lambda d: _write(d, "history.json", json.dumps(
        {"epoch_snapshots": [{"epoch": i, "p": "x", "toxicity_rate": "y"} for i in range(20)]})),
    "json_scalar": lambda d: _write(d, "scalar.json", "3"),
    "json_list_of_numbers": lambda d: _write(d, "numbers.json", "[1, 2, 3]"),
    "json_truncated": lambda d: _write(d, "cut.json", '[{"step": 0, "reward": 0.5}, {"step": 1, "rew'),
    "jsonl_not_objects": lambda d: _write(d, "arrays.jsonl", "[1, 2]\n[3, 4]\n"),
    "text_step": lambda d: _write(d, "text_step.csv", _csv("step,reward",
                                                           [f"s{i},x{i}" for i in range(ROWS)])),
    "text_values": lambda d: _write(d, "words.csv", _csv("step,reward", [f"{i},high" for i in range(ROWS)])),
    "booleans": lambda d: _write(d, "flags.csv", _csv("step,ok", [f"{i},{i % 2 == 0}" for i in range(ROWS)])),
    "all_missing": lambda d: _write(d, "missing.csv", _csv("step,reward", [f"{i}," for i in range(ROWS)])),
    "ragged_rows": lambda d: _write(d, "ragged.csv", _csv("step,reward", _plain_rows(30)
                                                          + ["1,2,3,4,5"] + _plain_rows(30))),
    "unbalanced_quote": lambda d: _write(d, "quote.csv", 'step,reward\n0,"0.5\n1,0.6\n2,0.7\n'),
    "huge_cell": lambda d: _write(d, "huge.csv", "step,reward\n0," + "7" * 2_000_000 + "\n"),
    "long_line_no_newline": lambda d: _write(d, "oneline.csv", "a," * 300_000),
    "lfs_pointer": lambda d: _write(d, "pointer.csv", "version https://git-lfs.github.com/spec/v1\n"
                                    "oid sha256:" + "0" * 64 + "\nsize 1234\n"),
    "monitor_garbage": lambda d: _write(d, "monitor.csv", '#{"t_start": 0}\nr,l,t\nx,y,z\n'),
    "tfevents_garbage": lambda d: _write(d, "events.out.tfevents.123.host", b"not a record" * 10),
    "infinite_values": lambda d: _write(d, "inf.csv", _csv("step,reward", [f"{i},inf" for i in range(ROWS)])),
    "single_row": lambda d: _write(d, "one.csv", "step,reward\n0,0.5\n"),
    "two_rows": lambda d: _write(d, "two.csv", "step,reward\n0,0.5\n1,0.6\n"),
    "empty_directory": lambda d: os.makedirs(os.path.join(d, "empty_dir"), exist_ok=True) or os.path.join(
        d, "empty_dir"),
    "missing_path": lambda d: os.path.join(d, "no_such_file.csv"),
    "symlink_loop": lambda d: _symlink_loop(d),
    "fifo": lambda d: _fifo(d),
    "dangling_symlink": lambda d: _dangling(d),
    # printed logs with nothing in them: a verl job that died before its first step, a notebook
    # saved with its outputs cleared, one cut short, a Trainer table not yet logged
    "verl_preamble_only": lambda d: _write(d, "verl_demo.log", "(TaskRunner pid=7) {'actor_rollout_ref': {},\n"
                                                               "(TaskRunner pid=7)  'trainer': {}}\n"),
    "notebook_no_outputs": lambda d: _write(d, "train.ipynb", json.dumps(
        {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
            {"cell_type": "code", "metadata": {}, "source": ["trainer.train()"], "outputs": []}]})),
    "notebook_truncated": lambda d: _write(d, "cut.ipynb", '{"cells": [{"cell_type": "code", "outputs": [{"da'),
    "trainer_table_empty": lambda d: _write(d, "table.html", '<table border="1" class="dataframe"><thead><tr>'
                                                             "<th>Step</th><th>Training Loss</th></tr></thead>"
                                                             "<tbody></tbody></table>"),
    # pymarl: a block with no statistic yet, an info.json of pickled tensors only, a sacred run
    # folder that has logged nothing
    "pymarl_header_only": lambda d: _write(d, "header_only_cout.txt", "[INFO 10:00:00] my_main Recent Stats | t_env:"
                                                          "         40 | Episode:        1\n"),
    "pymarl_tensors_only": lambda d: _write(d, "info.json", json.dumps(
        {"grad_norm": [{"py/reduce": [{"py/function": "torch._utils._rebuild_tensor_v2"}]}], "grad_norm_T": [40]})),
    "sacred_run_no_metrics": lambda d: _sacred_run(d),
    "marl_eval_no_numbers": lambda d: _write(d, "marl_eval.json", json.dumps(
        {"smax": {"3m": {"ippo": {"seed_0": {"step_0": {"return": ["n/a"]}}}}}})),
    # a CSV with no header: its first row of numbers was read as the column names
    "headerless_numbers": lambda d: _write(d, "headerless.csv", "".join(
        f"{i},{v:.4f},{i % 7}\n" for i, v in enumerate(_series()))),
    # every value in an entry without a step: nothing has a place on the step axis
    "trainer_state_stepless": lambda d: _write(d, "trainer_state.json", json.dumps(
        {"log_history": [{"step": 0, "epoch": 0.0}] + [{"epoch": 1.0 + i, "predict_loss": v}
                                                         for i, v in enumerate(_series())]})),
}


def _sacred_run(folder):
    """A sacred run folder as sacred writes it at a run's start: nothing logged yet."""
    path = os.path.join(folder, "sacred_run")
    os.mkdir(path)
    _write(path, "run.json", json.dumps({"status": "RUNNING"}))
    _write(path, "config.json", json.dumps({"seed": 1}))
    _write(path, "cout.txt", "[INFO 10:00:00] pymarl Running command 'my_main'\n")
    return path


def _symlink_loop(folder):
    a, b = os.path.join(folder, "loop_a.csv"), os.path.join(folder, "loop_b.csv")
    os.symlink(b, a)
    os.symlink(a, b)
    return a


def _fifo(folder):
    path = os.path.join(folder, "pipe.csv")
    os.mkfifo(path)
    return path


def _dangling(folder):
    path = os.path.join(folder, "dangling.csv")
    os.symlink(os.path.join(folder, "gone.csv"), path)
    return path


def _with_name(name):
    return _csv(f"step,{name}", _plain_rows())


ODD = {
    "plain": lambda d: _write(d, "plain.csv", _with_name("reward")),
    "gzip": lambda d: _write(d, "log.csv", gzip.compress(_csv("step,reward", _plain_rows()).encode())),
    "crlf": lambda d: _write(d, "crlf.csv", _csv("step,reward", _plain_rows(), newline="\r\n")),
    "bom": lambda d: _write(d, "bom.csv", b"\xef\xbb\xbf" + _with_name("reward").encode()),
    "semicolons": lambda d: _write(d, "semi.csv", _with_name("reward").replace(",", ";")),
    "mathtext_name": lambda d: _write(d, "math.csv", _with_name(r"$\undefinedcmd{x}^$")),
    "dollar_name": lambda d: _write(d, "dollars.csv", _with_name("$a$ and $b$")),
    "html_name": lambda d: _write(d, "html.csv", _with_name('"<script>alert(1)</script>"')),
    "unicode_name": lambda d: _write(d, "unicode.csv", _with_name("рейтинг \u202e🚀")),
    "repeated_header": lambda d: _write(d, "twice.csv", _csv("step,reward", _plain_rows(60) + ["step,reward"]
                                                            + _plain_rows(60))),
    "duplicate_columns": lambda d: _write(d, "dupes.csv", _csv("step,reward,reward", [
        f"{i},{v:.3f},{v:.3f}" for i, v in enumerate(_series())])),
    "constant": lambda d: _write(d, "constant.csv", _csv("step,reward", [f"{i},0.5" for i in range(ROWS)])),
    "nan_tokens": lambda d: _write(d, "nans.csv", _csv("step,reward", [
        f"{i},{'nan' if i % 3 else f'{v:.3f}'}" for i, v in enumerate(_series())])),
    "huge_values": lambda d: _write(d, "huge_values.csv", _csv("step,reward", [
        f"{i},{v:.3f}e300" for i, v in enumerate(_series())])),
    "overflow_values": lambda d: _write(d, "overflow.csv", _csv("step,reward", [
        f"{i},1e999" if i == 50 else f"{i},{v:.3f}" for i, v in enumerate(_series())])),
    # a step column holding one value (describe divided by its spread), and one running to
    # 1e304 (a slope's sum of squared steps overflowed into "the projected change is 0")
    "constant_steps": lambda d: _write(d, "flat_steps.csv", _csv("step,reward", [
        f"5,{v:.3f}" for v in _series()])),
    "huge_steps": lambda d: _write(d, "huge_steps.csv", _csv("step,reward", [
        f"{i}e302,{v:.3f}" for i, v in enumerate(_series())])),
    "backward_steps": lambda d: _write(d, "backwards.csv", _csv("step,reward", [
        f"{(i * 7919) % ROWS},{v:.3f}" for i, v in enumerate(_series())])),
    "json_nan_literals": lambda d: _write(d, "nan.jsonl", "".join(
        f'{{"step": {i}, "reward": {"NaN" if i % 4 == 0 else "Infinity" if i == 7 else v}}}\n'
        for i, v in enumerate(_series()))),
    "jsonl_mixed_types": lambda d: _write(d, "mixed.jsonl", "".join(
        json.dumps({"step": i, "reward": str(v) if i % 2 else v, "tag": [1, 2]}) + "\n"
        for i, v in enumerate(_series()))),
    "wide_table": lambda d: _write(d, "wide_table.csv", _csv(",".join(["step"] + [f"m{j}" for j in range(300)]), [
        ",".join([str(i)] + ["0.5"] * 300) for i in range(40)])),
    "quoted_newline_header": lambda d: _write(d, "quoted.csv", _csv('step,"rew\nard"', _plain_rows())),
    "jsonl_garbage_line": lambda d: _write(d, "bad.jsonl", "".join(
        "{oops\n" if i == 40 else json.dumps({"step": i, "reward": v}) + "\n" for i, v in enumerate(_series()))),
    "utf16": lambda d: _write(d, "wide.csv", _csv("step,reward", _plain_rows()).encode("utf-16")),
    "trailing_half_line": lambda d: _write(d, "half.csv", _with_name("reward") + "120,0."),
    "pymarl_half_line": lambda d: _write(d, "half_cout.txt", "".join(
        f"[INFO 10:05:00] my_main Recent Stats | t_env: {10_000 * i + 40:>10} | Episode: {i:>8}\n"
        f"{'return_mean:':<25}{v:>8.4f}\t\n[INFO 10:05:01] my_main t_env: {10_000 * i + 79} / 2050000\n"
        for i, v in enumerate(_series())) + "[INFO 10:05:00] my_main Recent Stats | t_env: 9999999 | Episode: 999\n"
        + "return_mean:               0."),
    # eval records without a step among stepped training records
    "jsonl_stepless_evals": lambda d: _write(d, "evals.jsonl", "".join(
        json.dumps({"step": i, "reward": v}) + "\n" + (json.dumps({"eval_score": v}) + "\n" if i % 10 == 0 else "")
        for i, v in enumerate(_series()))),
    "verl_half_line": lambda d: _write(d, "verl.log", "".join(
        f"(TaskRunner pid=7) step:{i} - critic/score/mean:{v:.3f}\n" for i, v in enumerate(_series()))
        + "(TaskRunner pid=7) step:120 - critic/score/mean:0."),
}

#: garbage to the batch commands, but to a follower a log with one bad line, which it skips
#: (with its line number) and reads on: ``watch`` may analyse these
BAD_LINE_ONLY = {"nul_after_8k", "ragged_rows"}

#: the names of every corpus entry, garbage first
ALL = {**GARBAGE, **ODD}
