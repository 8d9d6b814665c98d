"""``swarmstats watch`` of logs rewritten whole (``swarmstats/io/follow/documents.py``): JSON
documents (trainer_state.json, pymarl's info.json, marl-eval files) and run folders."""

import json
import os
from pathlib import Path

from swarmstats.io.follow import DocumentFollower, is_document
from tests.test_cli import run

REAL = Path(__file__).resolve().parent / "fixtures" / "real"


def _report(done) -> dict:
    return json.loads(done.stdout[done.stdout.index("\n{\n") + 1:])


def test_a_json_document_or_a_run_folder_is_followed_whole_not_line_by_line():
    """A pretty-printed info.json followed line by line was taken for a CSV whose header was
    '  "battle_won_mean": [' and its numbers for rows (a "metric" with mean 1e6)."""
    for path, metric, n in ((REAL / "pymarl/sacred/1/info.json", "test_battle_won_mean", 204),
                            (REAL / "hf/trainer_state.json", "loss", 30),
                            (REAL / "pymarl/sacred", "test_battle_won_mean [run=3_3s5z]", 205),
                            (REAL / "marl-eval", "mean_episode_return [run=ff_ippo/seed_0]", 98)):
        assert is_document(str(path))
        done = run("watch", path, "--once", "--format", "json")
        assert done.returncode == 0, done.stderr
        report = _report(done)
        assert report["skipped_lines"] == 0 and report["report"]["metrics"][metric]["n"] == n
    # the real trainer_state.json's falling loss is improving, as check-convergence says
    loss = _report(run("watch", REAL / "hf/trainer_state.json", "--once", "--format", "json"))
    assert loss["report"]["metrics"]["loss"]["reason"].startswith("still improving")
    assert not is_document(str(REAL / "pymarl/sacred/1/cout.txt"))


def test_a_wandb_chart_export_is_watched_run_by_run_without_its_bands():
    """A W&B chart export holds its runs in its column names ("gpt2 - train/loss" and its
    __MIN/__MAX band).  Followed line by line, each of the 8 runs' line and both bands were
    24 metrics; read whole, as check-convergence reads it, it is one metric in 8 runs."""
    path = REAL / "wandb/nanogpt-chart.csv"
    assert is_document(str(path))
    assert not is_document(str(REAL / "wandb/benchmarl-mappo-history.csv"))  # a table that grows by rows
    done = run("watch", path, "--once", "--format", "json")
    assert done.returncode == 0, done.stderr
    metrics = _report(done)["report"]["metrics"]
    assert len(metrics) == 8 and all(name.startswith("train/loss [") for name in metrics)
    assert not [name for name in metrics if "__MIN" in name or "__MAX" in name]
    assert metrics["train/loss [run=gpt2]"]["n"] == 386
    assert metrics["train/loss [run=gpt2]"]["reason"].startswith("still improving")


def test_watch_names_each_run_as_check_convergence_does():
    """The runs of one file under the same names in both commands: a W&B chart's runs were
    "train/loss [gpt2]" in watch and "train/loss [run=gpt2]" in check-convergence's table."""
    for path, metric in ((REAL / "wandb/nanogpt-chart.csv", "train/loss"),
                         (REAL / "marl-eval", "mean_episode_return")):
        checked = run("check-convergence", path, "-m", metric, "--format", "json")
        results = json.loads(checked.stdout)["results"]
        names = {r["name"] for r in results if not r.get("runs")}
        names |= {each["name"] for r in results for each in r.get("runs", [])}
        watched = run("watch", path, "--once", "-m", metric, "--format", "json")
        assert watched.returncode == 0, watched.stderr
        assert set(_report(watched)["report"]["metrics"]) == names, (path, names)
        assert len(names) >= 6


def test_what_nanogpt_prints_is_watched_as_read_log_reads_it():
    """nanoGPT's printed lines followed as a CSV: "1 fields where the header has 2; skipped"
    on every line.  Read whole on each change, its iterations and evaluations are tracked."""
    path = Path(__file__).resolve().parent / "fixtures" / "logs" / "nanogpt" / "train.log"
    assert is_document(str(path))
    done = run("watch", path, "--once", "--format", "json")
    assert done.returncode == 0, done.stderr
    report = _report(done)
    assert report["skipped_lines"] == 0
    assert report["report"]["metrics"]["loss"]["n"] == 7 and "val loss" in report["report"]["metrics"]
    assert set(report["report"]["left_out"]) == {"time", "mfu"}  # a clock and FLOP utilisation


def test_swarms_event_log_is_watched_as_interactions_as_check_convergence_reads_it():
    """SWARM spreads each interaction over several event lines joined by its id; followed line
    by line, watch tracked each epoch's payload fields (accepted_interactions ...) while
    check-convergence judged the interactions' p, v_hat, payoffs."""
    path = REAL / "swarm/strict-governance-events.jsonl"
    assert is_document(str(path))
    watched = _report(run("watch", path, "--once", "--format", "json"))["report"]["metrics"]
    checked = json.loads(run("check-convergence", path, "--format", "json").stdout)["results"]
    assert set(watched) == {r["name"] for r in checked} and watched["p"]["n"] == 163
    assert not is_document(str(REAL / "verifiers/wordle-gpt-5-mini-results.jsonl"))  # one record a line


def _write(path: Path, steps: int, start: int = 0) -> None:
    history = [{"step": s, "loss": 1.0 / (1 + s), "epoch": s / 10} for s in range(start, steps)]
    path.write_text(json.dumps({"log_history": history, "global_step": steps}, indent=2))


def test_each_poll_hands_on_the_values_not_handed_on_before(tmp_path):
    path = tmp_path / "trainer_state.json"
    _write(path, 30)
    follower = DocumentFollower(str(path))
    first = follower.records()
    assert [r["step"] for r in first] == list(range(30)) and set(first[0]) == {"step", "loss"}
    assert follower.records() == []  # unchanged: not read again
    _write(path, 40)
    os.utime(path, ns=(0, 10**18))  # (a rewrite within the file system's time resolution)
    assert [r["step"] for r in follower.records()] == list(range(30, 40))
    # caught half-written: an event, nothing handed on, and the next poll reads it whole
    text = path.read_text()
    path.write_text(text[: len(text) // 2])
    assert follower.records() == [] and follower.take_events()[0][0] == "unreadable"
    path.write_text(text)
    assert follower.records() == [] and not follower.restarted  # nothing new in it
    # rewritten from scratch (a new training in the same folder): the watch starts over
    _write(path, 10, start=0)
    path.write_text(path.read_text().replace('"global_step": 10', '"global_step": 11'))
    again = follower.records()
    assert follower.restarted and [r["step"] for r in again] == list(range(10))


def test_a_nan_the_document_wrote_is_handed_on_as_a_divergence(tmp_path):
    path = tmp_path / "info.json"
    losses = [0.01] * 40 + [float("nan")] * 20
    path.write_text(json.dumps({"loss": losses, "loss_T": list(range(0, 60_000, 1000))}))
    done = run("watch", path, "--once")
    assert "diverged" in done.stdout


def test_a_trainers_output_dir_is_read_from_its_latest_checkpoint_and_followed_as_they_come(tmp_path):
    """While a Hugging Face Trainer trains, its output_dir holds checkpoint-N folders, each with
    the whole log history to its step: the folder was "no log swarmstats recognises"."""
    from swarmstats.io import read_log

    for n in (10, 20):
        (tmp_path / f"checkpoint-{n}").mkdir()
        _write(tmp_path / f"checkpoint-{n}" / "trainer_state.json", n)
    wide = read_log(tmp_path, wide=True)
    assert wide.attrs["format"] == "trainer-state" and wide["step"].tolist() == list(range(20))
    assert wide.attrs["notes"][0].startswith("read checkpoint-20/trainer_state.json, the latest of 2")
    follower = DocumentFollower(str(tmp_path))
    assert len(follower.records()) == 20
    (tmp_path / "checkpoint-30").mkdir()
    _write(tmp_path / "checkpoint-30" / "trainer_state.json", 30)
    assert [r["step"] for r in follower.records()] == list(range(20, 30))


def test_a_generic_documents_step_column_is_its_step(tmp_path):
    path = tmp_path / "records.json"
    path.write_text(json.dumps([{"global_step": 10 * (i + 1), "reward": 0.1 * i} for i in range(25)], indent=1))
    records = DocumentFollower(str(path)).records()
    assert [r["step"] for r in records][:3] == [10, 20, 30] and "global_step" not in records[0]
