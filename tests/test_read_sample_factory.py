"""Sample Factory's reports (``swarmstats/io/formats/sample_factory.py``), as its runner logs them to
the console and to ``sf_log.txt``: ``... Total num frames: N. ...``, then ``Avg episode reward:
[(0, '0.824')]``, read at those frames."""

import json
from pathlib import Path

import pytest

from swarmstats import InputError
from swarmstats.io import read_log
from swarmstats.io.formats.sample_factory import parse_frames, parse_rewards
from tests.test_cli import run, watched_metrics

#: made up as Sample Factory 2's runner logs an APPO run on Pong to sf_log.txt (a report every 5 s;
#: the first reward line once episodes have ended), with its workers' messages between
LOG = Path(__file__).resolve().parent / "fixtures" / "logs" / "sample-factory" / "sf_log.txt"

REPORT = ("[2022-11-30 19:48:21,166][07494] Fps is (10 sec: 22528.2, 60 sec: 20377.6, 300 sec: 20377.6). Total num "
          "frames: {}. Throughput: 0: 5085.4. Samples: 203415. Policy #0 lag: (min: 0.0, avg: 1.9, max: 5.0)\n")


def test_each_reward_line_is_a_row_at_the_frames_of_the_report_before_it():
    # read as a log it stopped at "not valid JSON" (its lines begin with '[')
    wide = read_log(LOG, wide=True)
    assert wide.attrs["format"] == "sample-factory-console" and wide.attrs["step_unit"] == "frames"
    assert wide.columns.tolist() == ["step", "avg_episode_reward"] and len(wide) == 127
    assert wide["step"].iloc[:2].tolist() == [77644.0, 98368.0] and wide["step"].is_monotonic_increasing
    assert wide["avg_episode_reward"].between(-21, 21).all()
    assert wide.attrs["notes"] == ["127 Sample Factory report(s), step = total num frames; avg_episode_reward: each "
                                   "policy's average return over its recent episodes; 141 other line(s) skipped"]


def test_the_return_is_judged_per_100_frames():
    done = run("check-convergence", LOG, "--format", "json")
    (result,) = json.loads(done.stdout)["results"]
    # Pong's return climbed from -21 to ~20 and still edges up at the end, more slowly
    assert result["name"] == "avg_episode_reward" and result["verdict"] == "not_converged"
    assert "per 100 frames" in result["reasons"][0] and "now slower" in result["reasons"][0]


def test_a_population_gives_a_column_per_policy_and_an_empty_list_no_values(tmp_path):
    path = tmp_path / "sf_log.txt"
    path.write_text(REPORT.format(40960) + "[2022-11-30 19:48:21,166][07494] Avg episode reward: []\n"
                    + "".join(REPORT.format(40960 * k) + f"[2022-11-30 19:48:21,166][07494] Avg episode reward: "
                              f"[(0, '-{20 - k}.000'), (1, '-{19 - k}.500')]\n" for k in range(2, 6)))
    wide = read_log(path, wide=True)
    assert wide.columns.tolist() == ["step", "avg_episode_reward", "policy_1/avg_episode_reward"]
    assert wide["step"].tolist() == [81920.0, 122880.0, 163840.0, 204800.0]
    assert wide["policy_1/avg_episode_reward"].tolist() == [-17.5, -16.5, -15.5, -14.5]
    assert "2 policies, a column each" in wide.attrs["notes"][0]
    assert parse_rewards("Avg episode reward: [(0, 'nan')]")[0] != parse_rewards("Avg episode reward: [(0, 'nan')]")[0]
    assert parse_frames(REPORT.format(7)) == 7 and parse_frames("Total num frames: 12") is None


def test_a_log_before_any_episode_ended_is_refused_in_one_line(tmp_path):
    path = tmp_path / "sf_log.txt"
    path.write_text("[2022-11-30 19:48:00,000][07494] Saving configuration to config.json...\n" + REPORT.format(0))
    with pytest.raises(InputError, match="no episode has ended yet"):
        read_log(path)
    done = run("check-convergence", path)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1


def test_watch_follows_the_reports_past_the_logged_preamble():
    # the preamble's lines hold logging's time, '... 10:00:00,000]': their comma made the first a
    # CSV header in watch, and every later line "6 fields where the header has 2"
    watched = watched_metrics(LOG)
    assert watched["avg_episode_reward"]["n"] == 127
