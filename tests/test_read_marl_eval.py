"""marl-eval's JSON (``swarmstats/io/formats/marl_eval.py``): the evaluations of multi-agent runs
as Mava and BenchMARL write them, environment -> task -> algorithm -> seed -> step_k."""

import json
import shutil
from pathlib import Path

import pytest

from swarmstats import InputError
from swarmstats.io import read_log
from tests.test_cli import run

#: made up as BenchMARL's JsonWriter writes it: MAPPO (two seeds) and IPPO on VMAS balance, 25
#: evaluations of 4 episodes each (one return per episode), step_count in frames,
#: absolute_metrics the best evaluation
EVALUATION = Path(__file__).resolve().parent / "fixtures" / "logs" / "marl-eval" / "evaluation.json"


def test_each_seed_is_a_run_and_each_evaluation_a_point_at_its_step_count():
    wide = read_log(EVALUATION, wide=True)
    assert wide.attrs["format"] == "marl-eval" and wide.attrs["step_unit"] == "timesteps"
    assert sorted(wide["run"].unique()) == ["ippo/seed_0", "mappo/seed_0", "mappo/seed_1"]
    first = wide[wide["run"] == "mappo/seed_0"].iloc[0]
    # the four episodes' returns of the first evaluation, averaged: -40.5, -40, -39.5, -40.5
    assert first["step"] == 6000 and first["return"] == pytest.approx(-40.125)
    notes = wide.attrs["notes"]
    assert "each evaluation's values averaged (up to 4: one per evaluation episode)" in notes
    assert any(note.startswith("absolute_metrics left out") for note in notes)
    # the seeds of one algorithm are replicates; the algorithms are never pooled
    assert wide.attrs["run_configs"] == {"mappo/seed_0": "mappo", "mappo/seed_1": "mappo", "ippo/seed_0": "ippo"}


def test_the_verdicts_are_given_by_algorithm_over_its_seeds():
    done = run("check-convergence", EVALUATION, "-m", "return")
    assert "return [mappo]" in done.stdout and "over 2 runs" in done.stdout
    assert "still improving" in done.stdout  # a steady climb of 2 per evaluation


def test_a_folder_of_documents_is_read_whole_and_a_run_in_two_files_is_kept_twice(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    shutil.copy(EVALUATION, tmp_path / "a" / "metrics.json")
    shutil.copy(EVALUATION, tmp_path / "b" / "metrics.json")
    (tmp_path / "config.json").write_text(json.dumps({"seed": 1}))  # not marl-eval's: ignored
    wide = read_log(tmp_path, wide=True)
    assert sorted(wide["run"].unique()) == ["ippo/seed_0", "ippo/seed_0 #2", "mappo/seed_0",
                                            "mappo/seed_0 #2", "mappo/seed_1", "mappo/seed_1 #2"]


def test_evaluations_without_a_step_count_are_numbered_and_a_single_run_has_no_run_column(tmp_path):
    doc = {"smax": {"3m": {"ippo": {"seed_0": {f"step_{k}": {"win_rate": [0.1 * k]} for k in range(12)}}}}}
    (tmp_path / "one.json").write_text(json.dumps(doc))
    wide = read_log(tmp_path / "one.json", wide=True)
    assert "run" not in wide.columns and wide["step"].tolist() == list(range(12))


def test_a_document_without_a_number_is_one_clear_error(tmp_path):
    doc = {"smax": {"3m": {"ippo": {"seed_0": {"step_0": {"return": ["n/a"]}}}}}}
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(InputError, match="no number in any marl-eval evaluation .left out return"):
        read_log(tmp_path / "bad.json")
    done = run("check-convergence", tmp_path / "bad.json")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
