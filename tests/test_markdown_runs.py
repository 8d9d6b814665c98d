"""Runs pasted into a Markdown file, each in code blocks under what it was
(:mod:`swarmstats.io.markdown_runs`).

The pattern is a public GPT-2 reproduction's ``log.md`` (14 runs of a nanoGPT-style train.py,
each under a sentence: "Improving model with weight sharing", "Switched to cuda and trained the
model with bf16 precision"), which read as 14 runs "#1" to "#14" of one setting, pooled: "the
runs disagree, R-hat = 2.58".  Its repository has no licence, so the text here is made up in
its shape."""

import json

import numpy as np
import pytest

from swarmstats.io import read_log
from swarmstats.io.markdown_runs import fenced_blocks, titled_labels
from tests.test_cli import run


def printed(start: int, stop: int, level: float, seed: int) -> str:
    rng = np.random.default_rng(seed)
    return "".join(f"step {i}, loss: {level + 3 * np.exp(-i / 8) + rng.normal(0, 0.05):.6f}, "
                   f"time: {100 + rng.normal(0, 2):.2f} ms\n" for i in range(start, stop))


def block(text: str) -> str:
    return f"```\nUsing device: cuda\n{text}```\n"


@pytest.fixture
def results(tmp_path):
    path = tmp_path / "log.md"
    path.write_text(
        "# GPT-2 from scratch\n\nOverfit a single batch of data\n\n" + block(printed(0, 40, 0.5, 1))
        + "\n**Improving model with weight sharing:**\n" + block(printed(0, 30, 6.0, 2))
        + "the same run, continued after a restart of the notebook\n\n" + block(printed(30, 60, 6.0, 3))
        + "\n## bf16\n```python\n# autocast\nwith torch.autocast('cuda'):\n    loss = model(x)\n```\n"
        + block(printed(0, 40, 5.5, 4))
        + "\nImproving model with weight sharing\n\n" + block(printed(0, 40, 6.0, 5)))
    return path


def test_each_run_is_named_by_the_text_above_it_and_runs_of_one_text_are_one_setting(results):
    wide = read_log(results, wide=True)
    names = ["GPT-2 from scratch - Overfit a single batch of data", "Improving model with weight sharing", "bf16",
             "Improving model with weight sharing (2)"]
    assert list(dict.fromkeys(wide["run"])) == names
    assert wide.groupby("run", sort=False).size().tolist() == [40, 60, 40, 40]  # the continued block joins its run
    assert wide.attrs["run_configs"] == {**{name: name for name in names[:3]}, names[3]: names[1]}
    assert wide.attrs["run_configs_complete"]
    # each run holds what its blocks printed, in order
    continued = wide[wide["run"] == names[1]]
    assert continued["step"].tolist() == list(range(60))
    text = results.read_text()
    loss = [float(line.split("loss: ")[1].split(",")[0]) for line in text.splitlines() if line.startswith("step ")]
    assert wide["loss"].tolist() == loss
    assert any("4 runs in the Markdown's code blocks" in note for note in wide.attrs["notes"])
    # the runs of one text are pooled as replicates, the others never
    done = run("check-convergence", results, "-m", "loss", "--format", "json")
    payload = json.loads(done.stdout)["results"]
    pooled = [r for r in payload if "runs" in r]
    assert [r["name"] for r in pooled] == ["loss [Improving model with weight sharing]"]
    assert len(pooled[0]["runs"]) == 2 and "3 configuration(s)" in done.stderr


def test_a_file_better_read_whole_is_read_as_before(tmp_path):
    path = tmp_path / "log.md"
    # one block: one run
    path.write_text("Overfit\n\n" + block(printed(0, 40, 0.5, 1)))
    assert "run" not in read_log(path, wide=True).columns
    # two runs under one text: nothing tells them apart but the step starting again
    path.write_text("Two seeds\n\n" + block(printed(0, 40, 0.5, 1)) + block(printed(0, 40, 0.5, 2)))
    assert "run" not in read_log(path, wide=True).columns
    # a block holding two runs (its step starts again): the restarts tell the runs apart
    path.write_text("A\n\n" + block(printed(0, 30, 1, 1) + printed(0, 30, 1, 2)) + "B\n\n" + block(printed(0, 30, 1, 3)))
    wide = read_log(path, wide=True)
    assert "run" not in wide.columns and len(wide) == 90
    # the same text as a plain text file: no Markdown, one text
    (tmp_path / "log.txt").write_text("A\n\n" + block(printed(0, 30, 1, 1)) + "B\n\n" + block(printed(0, 30, 1, 3)))
    assert "run" not in read_log(tmp_path / "log.txt", wide=True).columns


def test_blocks_and_their_titles():
    text = ("# Title #\nsome prose\nover two lines\n\n```\na\n```\n~~~\nb\n~~~\n"
            "*[Comments: a very long sentence that goes on and on well past the sixty characters a name may take]*\n"
            "```\nc\n```\n```\nd")
    long = "Comments: a very long sentence that goes on and on well past the sixty characters a name may take"
    assert fenced_blocks(text) == [("Title - some prose", ["a"]), ("Title - some prose", ["b"]),
                                   (long, ["c"]), (long, ["d"])]  # (the last not closed yet)
    assert fenced_blocks("no blocks here\n") == []
    # a long title is cut for the label, unless two settings would then read alike
    cut = "Comments: a very long sentence that goes on and on well ..."
    assert titled_labels([long, "PPO", long]) == {cut: cut, "PPO": "PPO", f"{cut} (2)": cut}
    other = long.replace("take", "have")
    assert titled_labels([long, other]) == {long: long, other: other}


def test_rows_outside_the_blocks_or_a_listing_read_as_a_run_keep_the_whole_text(tmp_path):
    path = tmp_path / "log.md"
    # a run's lines printed outside any block: read as one text, so none is left out
    path.write_text("A\n\n" + block(printed(0, 30, 1, 1)) + "B\n\n" + block(printed(0, 30, 1, 2))
                    + printed(0, 10, 1, 3))
    wide = read_log(path, wide=True)
    assert "run" not in wide.columns and len(wide) == 70
    # a block of two lines the format reads (a listing) is no run of its own
    path.write_text("A\n\n" + block(printed(0, 30, 1, 1)) + "B\n\n" + block(printed(0, 2, 1, 2)))
    assert "run" not in read_log(path, wide=True).columns


def test_a_markdown_file_without_a_printed_log_is_one_clear_error(tmp_path):
    # read as a table, its first line was the header: "no numeric metric column (columns: ```)"
    path = tmp_path / "notes.md"
    path.write_text("# Results\n```python\nx = 1\n```\n\n| lr | reward |\n|---|---|\n| 0.1 | 2 |\n")
    done = run("check-convergence", path)
    assert done.returncode == 2 and "no training log found in this Markdown file" in done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1


def test_a_notebooks_training_cells_are_named_by_the_markdown_cells_above_them(tmp_path):
    """What a printed format reads in a notebook (here SB3's tables) is read cell by cell the
    same way: each training cell's run named by the Markdown cell above it.  Read as one text
    they were runs "#1", "#2" of one setting."""
    import json
    from pathlib import Path

    sb3 = (Path(__file__).resolve().parent / "fixtures" / "logs" / "sb3-console" / "ppo-cartpole.txt").read_text()

    def code(text):
        return {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": ["train()"],
                "outputs": [{"output_type": "stream", "name": "stdout", "text": text.splitlines(keepends=True)}]}

    def markdown(text):
        return {"cell_type": "markdown", "metadata": {}, "source": [text]}

    cells = [markdown("# Sweep"), {"cell_type": "code", "metadata": {}, "source": ["import torch"], "outputs": []},
             markdown("## Baseline"), code(sb3), markdown("## With weight sharing"), code(sb3)]
    path = tmp_path / "sweep.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    wide = read_log(path, wide=True)
    assert list(dict.fromkeys(wide["run"])) == ["Baseline", "With weight sharing"]
    assert wide.groupby("run", sort=False).size().tolist() == [36, 36]
    assert wide.attrs["format"] == "sb3-console"
    assert set(wide.attrs["run_configs"].values()) == {"Baseline", "With weight sharing"}
    # one Markdown cell above both: one text for the whole notebook tells no setting apart, and
    # the notebook is read as one text, as before
    path.write_text(json.dumps({"cells": [markdown("# Sweep"), cells[3], cells[5]], "metadata": {},
                                "nbformat": 4, "nbformat_minor": 5}))
    assert "run" not in read_log(path, wide=True).columns


def test_a_page_ending_in_its_closing_fence_without_a_newline_has_no_row_cut_short(tmp_path):
    # the check for a log still being written took the fence for a row cut mid-write
    page = tmp_path / "results.md"
    page.write_text("# Run\n```\n" + printed(0, 12, 2.0, seed=3) + "```")
    table = read_log(page, wide=True)
    assert len(table) == 12 and not any("mid-row" in note for note in table.attrs["notes"])
