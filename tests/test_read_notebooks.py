"""The table a Hugging Face Trainer draws in a notebook (``swarmstats/io/formats/notebooks.py``):
read from the notebook's outputs, or from a Markdown or HTML export of it."""

import json
from pathlib import Path

import numpy as np
import pytest

from swarmstats import InputError
from swarmstats.io import read_log
from swarmstats.io.formats.notebooks import is_trainer_table_head, outputs
from tests.test_cli import run

FOLDER = Path(__file__).resolve().parent / "fixtures" / "logs" / "hf-notebook"
#: made up as transformers' NotebookProgressCallback draws its table: two training cells, the
#: first evaluating every 25 steps (its first row before any training log: "No log")
NOTEBOOK = FOLDER / "train.ipynb"
#: a notebook exported to Markdown (nbconvert keeps the HTML): a run evaluated once per epoch
EXPORT = FOLDER / "export.md"


def test_each_training_cells_table_is_a_run_with_its_columns_as_displayed():
    wide = read_log(NOTEBOOK, wide=True)
    assert wide.attrs["format"] == "hf-notebook"
    assert wide.groupby("run")["step"].agg(["min", "max", "count"]).values.tolist() == [[25, 150, 6], [10, 80, 8]]
    first = wide[wide["run"] == "cell 3"]
    assert np.isnan(first["Training Loss"].iloc[0])  # "No log": not logged yet, missing
    assert first["Training Loss"].tolist()[1:] == [0.6931, 0.6628, 0.6315, 0.6047, 0.5982]
    assert first["Accuracy"].tolist() == [0.54, 0.585, 0.625, 0.65, 0.665, 0.67]
    assert wide[wide["run"] == "cell 4"]["Validation Loss"].isna().all()  # a column the run did not have
    notes = " ".join(wide.attrs["notes"])
    assert "6 decimals" in notes and "2 runs: cell 3, cell 4" in notes


def test_a_markdown_export_of_a_run_evaluated_per_epoch_counts_epochs():
    wide = read_log(EXPORT, wide=True)
    assert wide.attrs["format"] == "hf-notebook" and wide.attrs["step_unit"] == "epochs"
    assert wide["step"].tolist() == [1, 2, 3, 4, 5]
    assert wide["Matthews Correlation"].tolist() == [0.432712, 0.49149, 0.495476, 0.515403, 0.512811]
    done = run("check-convergence", EXPORT, "-m", "Validation Loss")
    assert done.returncode == 1 and "only 5 point(s)" in done.stdout  # five epochs judge nothing


def test_a_table_after_64_kib_of_other_output_is_still_found(tmp_path):
    notebook = json.loads(NOTEBOOK.read_text())
    install = notebook["cells"][1]["outputs"][0]
    install["text"] = [f"Collecting package-{k} (from -r requirements.txt (line {k}))\n" for k in range(2000)]
    (tmp_path / "big.ipynb").write_text(json.dumps(notebook))
    assert (tmp_path / "big.ipynb").stat().st_size > 65536
    wide = read_log(tmp_path / "big.ipynb", wide=True)
    assert wide.attrs["format"] == "hf-notebook" and len(wide) == 14


def test_tables_counting_steps_and_epochs_are_refused_together(tmp_path):
    notebook = json.loads(NOTEBOOK.read_text())
    html = notebook["cells"][3]["outputs"][0]["data"]["text/html"]
    notebook["cells"][3]["outputs"][0]["data"]["text/html"] = [line.replace("<th>Step</th>", "<th>Epoch</th>")
                                                               for line in html]
    (tmp_path / "mixed.ipynb").write_text(json.dumps(notebook))
    with pytest.raises(InputError, match="different axes"):
        read_log(tmp_path / "mixed.ipynb")


def test_a_table_with_no_logged_row_yet_is_one_clear_error(tmp_path):
    notebook = json.loads(NOTEBOOK.read_text())
    del notebook["cells"][2:]
    notebook["cells"].append({"cell_type": "code", "metadata": {}, "execution_count": 2, "source": [],
                              "outputs": [{"output_type": "display_data", "metadata": {}, "data": {"text/html": [
                                  "<table border=\"1\" class=\"dataframe\">\n<thead>\n<tr>\n<th>Step</th>\n",
                                  "<th>Training Loss</th>\n</tr>\n</thead>\n<tbody>\n</tbody>\n</table><p>"]}}]})
    (tmp_path / "started.ipynb").write_text(json.dumps(notebook))
    done = run("check-convergence", tmp_path / "started.ipynb")
    assert done.returncode == 2 and "no Trainer table with a logged row" in done.stderr
    assert "Traceback" not in done.stderr


def test_other_tables_are_not_taken_for_the_trainers():
    assert not is_trainer_table_head("<table><tr><th>Step</th><th>Reward</th></tr></table>", "x.html")
    assert not is_trainer_table_head("step,Training Loss\n1,0.5\n", "log.csv")
    assert is_trainer_table_head(NOTEBOOK.read_text(), "train.ipynb")


def test_a_notebooks_outputs_cell_by_cell():
    found = outputs("train.ipynb", NOTEBOOK.read_text())
    assert [(cell, kind) for cell, kind, _ in found] == [(2, "text"), (3, "html"), (3, "text"), (4, "html")]
    assert found[2][2].startswith("TrainOutput(global_step=150")


def test_a_notebook_without_a_training_log_is_one_clear_error(tmp_path):
    notebook = json.loads(NOTEBOOK.read_text())
    for cell in notebook["cells"]:
        cell.pop("outputs", None)  # saved with its outputs cleared
    (tmp_path / "cleared.ipynb").write_text(json.dumps(notebook))
    done = run("check-convergence", tmp_path / "cleared.ipynb")
    assert done.returncode == 2 and "a Jupyter notebook with no training log" in done.stderr
    assert "nbformat" not in done.stderr  # (its version numbers were read as two metrics)


def test_a_nan_shown_is_a_value_the_run_logged_and_no_log_is_a_missing_one(tmp_path):
    from swarmstats.io.written_nan import is_written

    notebook = json.loads(NOTEBOOK.read_text())
    html = notebook["cells"][3]["outputs"][0]["data"]["text/html"]
    notebook["cells"][3]["outputs"][0]["data"]["text/html"] = [line.replace("1.063205", "nan") for line in html]
    (tmp_path / "diverged.ipynb").write_text(json.dumps(notebook))
    wide = read_log(tmp_path / "diverged.ipynb", wide=True)
    loss = wide["Training Loss"].to_numpy()
    assert is_written(loss).tolist() == [False] * 13 + [True]  # the "No log" of row 0: missing


def test_a_row_that_does_not_fit_the_columns_is_left_out_and_counted(tmp_path):
    text = EXPORT.read_text().replace("<td>0.237000</td>\n", "", 1)  # epoch 3 lost its training loss
    (tmp_path / "export.md").write_text(text)
    wide = read_log(tmp_path / "export.md", wide=True)
    assert wide["step"].tolist() == [1, 2, 4, 5]  # never shifted into the wrong columns
    assert any("1 row(s) with more or fewer cells" in note for note in wide.attrs["notes"])


def test_runs_under_different_markdown_cells_are_named_by_them_and_never_pooled(tmp_path):
    """Two training cells under "## lr 1e-4" and "## lr 5e-5" were runs "cell 3" and "cell 4"
    of one setting, pooled ("the runs disagree: R-hat = 2.999"); each is now named by the
    Markdown cell above it, and the two are two settings.  A text used twice names a second
    run of its setting."""
    notebook = json.loads(NOTEBOOK.read_text())
    train, train2 = notebook["cells"][2], notebook["cells"][3]

    def markdown(text):
        return {"cell_type": "markdown", "metadata": {}, "source": [text]}

    notebook["cells"][2:] = [markdown("## lr 1e-4\nThe first run."), train, markdown("## lr 5e-5"), train2]
    path = tmp_path / "two.ipynb"
    path.write_text(json.dumps(notebook))
    wide = read_log(path, wide=True)
    plain = read_log(NOTEBOOK, wide=True)
    assert list(dict.fromkeys(wide["run"])) == ["lr 1e-4 - The first run.", "lr 5e-5"]
    assert wide.drop(columns="run").equals(plain.drop(columns="run"))  # the same values, renamed runs
    assert wide.attrs["run_configs"] == {"lr 1e-4 - The first run.": "lr 1e-4 - The first run.",
                                         "lr 5e-5": "lr 5e-5"}
    done = run("check-convergence", path, "-m", "Training Loss", "--format", "json")
    assert not any("runs" in r for r in json.loads(done.stdout)["results"])  # no pooled verdict
    assert "2 configuration(s)" in done.stderr
    # a third run under the first text: a second run of that setting
    notebook["cells"] += [markdown("## lr 1e-4\nThe first run."), train]
    path.write_text(json.dumps(notebook))
    again = read_log(path, wide=True)
    assert list(dict.fromkeys(again["run"])) == ["lr 1e-4 - The first run.", "lr 5e-5", "lr 1e-4 - The first run. (2)"]
    assert sorted(set(again.attrs["run_configs"].values())) == ["lr 1e-4 - The first run.", "lr 5e-5"]
    # one text above every run: one setting, the runs keep their cells' labels
    notebook["cells"][4] = markdown("## lr 1e-4\nThe first run.")
    path.write_text(json.dumps(notebook))
    assert list(dict.fromkeys(read_log(path, wide=True)["run"])) == ["cell 4", "cell 6", "cell 8"]
    # no Markdown above the cells (or the same one above both, as in the fixture): the cells' labels
    assert list(dict.fromkeys(plain["run"])) == ["cell 3", "cell 4"] and "run_configs" not in plain.attrs
