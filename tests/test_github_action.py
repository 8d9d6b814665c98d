"""The GitHub Action (action.yml), its steps run locally as the runner would run them: inputs and
github.action_path substituted into each step's env, bash, $GITHUB_STEP_SUMMARY and $GITHUB_OUTPUT
files."""

import os
import re
import subprocess
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = "examples/data/reward_log.csv"


def _run_action(tmp_path, inputs, only=None):
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    values = {name: spec.get("default", "") for name, spec in action["inputs"].items()}
    values.update(inputs)
    summary, output = tmp_path / "summary.md", tmp_path / "output.txt"
    results = []
    for step in action["runs"]["steps"]:
        if only and step["id"] not in only:
            continue
        env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(output)}
        for key, value in step.get("env", {}).items():
            value = value.replace("${{ github.action_path }}", str(ROOT))
            env[key] = re.sub(r"\$\{\{ inputs\.([\w-]+) \}\}", lambda m: values[m.group(1)], value)
        assert "${{" not in step["run"]  # the inputs reach the script only through env
        results.append(subprocess.run(["bash", "-e", "-c", step["run"]], cwd=ROOT, env=env,
                                      capture_output=True, text=True, timeout=300))
    return results, summary, output


def test_the_action_declares_its_inputs_and_a_composite_run():
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    assert action["inputs"]["log"]["required"] is True
    assert [step["id"] for step in action["runs"]["steps"]] == ["install", "check"]
    assert "steps.check.outputs.verdict" in action["outputs"]["verdict"]["value"]


def test_the_install_step_resolves_the_action_checkout(tmp_path):
    # a dry run: pip reads the project from github.action_path without touching this environment
    (done,), _, _ = _run_action(tmp_path, {"log": EXAMPLE, "pip-args": "--dry-run --no-deps --no-build-isolation"},
                                only={"install"})
    assert done.returncode == 0, done.stderr
    assert "swarmstats" in done.stdout


def test_the_check_step_annotates_summarises_and_fails_on_a_metric_not_shown_flat(tmp_path):
    (done,), summary, output = _run_action(tmp_path, {"log": EXAMPLE}, only={"check"})
    assert done.returncode == 1  # reward is still improving in the bundled log
    lines = done.stdout.splitlines()
    assert any(line.startswith(f"::error file={EXAMPLE},title=reward%3A not converged::") for line in lines)
    assert any(line.startswith("::notice") and "entropy%3A converged" in line for line in lines)
    table = summary.read_text()
    assert "| metric | verdict | mean [95% CI] | reason |" in table
    assert re.search(r"\| reward \| not converged \| 0\.\d+ \[", table)
    assert output.read_text().strip() == "verdict=not_converged"


def test_the_check_step_reports_only_when_told_and_names_input_errors(tmp_path):
    (done,), _, output = _run_action(tmp_path, {"log": EXAMPLE, "metrics": "reward", "fail": "false"},
                                     only={"check"})
    assert done.returncode == 0  # reported, not failed
    assert "title=reward%3A not converged" in done.stdout and "title=entropy" not in done.stdout
    (done,), _, output = _run_action(tmp_path, {"log": "no/such/log.csv"}, only={"check"})
    assert done.returncode == 2
    assert done.stdout.startswith("::error file=no/such/log.csv,title=swarmstats::") and "no such file" in done.stdout
    assert output.read_text().strip().endswith("verdict=error")


def test_the_documented_workflow_uses_only_inputs_the_action_has():
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    text = (ROOT / "docs" / "integrations.md").read_text()
    blocks = re.findall(r"```yaml\n(.*?)```", text, flags=re.S)
    assert blocks
    uses = [step for block in blocks for job in yaml.safe_load(block)["jobs"].values()
            for step in job["steps"] if "swarmstats" in step.get("uses", "")]
    assert uses
    for step in uses:
        assert set(step["with"]) <= set(action["inputs"]) and "log" in step["with"]


def test_a_level_held_from_the_start_passes_with_a_warning_that_nothing_was_learned(tmp_path):
    # a pymarl seed whose test win rate was 0 for two million timesteps: flat, so converged,
    # and a gate passes it; the annotation says the log shows no improvement
    log = "tests/fixtures/real/pymarl/sacred/1_MMM2/info.json"
    (done,), _, output = _run_action(tmp_path, {"log": log, "metrics": "test_battle_won_mean"}, only={"check"})
    assert done.returncode == 0 and output.read_text().strip() == "verdict=converged"
    assert done.stdout.startswith(f"::warning file={log},title=test_battle_won_mean%3A converged%2C no improvement "
                                  "shown::no improvement shown: the first 21 of 204 points (mean 0)")
