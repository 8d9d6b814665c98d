"""NetLogo BehaviorSpace tables (``netlogo-table``): six lines of metadata, then
``[run number]``, the experiment's variables, ``[step]`` and the metrics, every cell quoted,
the rows of runs on several threads interleaved.

The fixture is made up in the layout NetLogo 6.4's table exporter writes (no NetLogo could be
run here, and the public BehaviorSpace tables found carry no licence): four runs of a
wolf-sheep model, two settings of ``initial-number-sheep`` with two repetitions each, written
by two threads, with a list-valued and a true/false metric."""

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from swarmstats import InputError
from swarmstats.io import read_log
from swarmstats.io.formats._table import ONE_CONFIGURATION
from tests.test_cli import run

TABLE = Path(__file__).resolve().parent / "fixtures" / "logs" / "netlogo" / "wolf-sheep-table.csv"
METADATA = ['"BehaviorSpace results (NetLogo 6.4.0)"', '"m.nlogo"', '"sweep"', '"01/15/2024 10:23:45:123 +0100"',
            '"min-pxcor","max-pxcor","min-pycor","max-pycor"', '"-5","5","-5","5"']


def rows_of(path):
    """The table's rows as the csv module reads them (the header, then each row)."""
    lines = list(csv.reader(path.read_text().splitlines()))
    start = next(i for i, line in enumerate(lines) if line and line[0] == "[run number]")
    return lines[start], lines[start + 1:]


def test_a_table_reads_as_its_runs_each_in_the_order_written():
    header, rows = rows_of(TABLE)
    assert [r[0] for r in rows[:6]] != sorted(r[0] for r in rows[:6])  # the fixture interleaves its runs
    wide = read_log(TABLE, wide=True)
    assert wide.attrs["format"] == "netlogo-table"
    assert wide.columns.tolist() == ["run", "step", "count sheep", "count wolves", "mean [energy] of sheep"]
    assert wide["run"].unique().tolist() == ["run=1", "run=2", "run=3", "run=4"]
    for number in "1234":
        mine = [r for r in rows if r[0] == number]
        got = wide[wide["run"] == f"run={number}"]
        assert got["step"].tolist() == [float(r[3]) for r in mine] == list(map(float, range(101)))
        np.testing.assert_array_equal(got["count sheep"].to_numpy(), [float(r[4]) for r in mine])
        np.testing.assert_array_equal(got["mean [energy] of sheep"].to_numpy(), [float(r[6]) for r in mine])
    # each run's variables are its configuration: the repetitions of a setting are replicates
    assert wide.attrs["run_configs"] == {"run=1": "initial-number-sheep=100", "run=2": "initial-number-sheep=100",
                                         "run=3": "initial-number-sheep=200", "run=4": "initial-number-sheep=200"}
    notes = " ".join(wide.attrs["notes"])
    assert "NetLogo 6.4.0" in notes and "'grass-sweep'" in notes
    assert "left out any? wolves, [pxcor] of max-one-of patches [countdown]: not numbers" in notes


def test_check_convergence_summarises_the_repetitions_of_each_setting():
    result = run("check-convergence", TABLE, "--format", "json")
    assert result.returncode in (0, 1), result.stderr
    payload = json.loads(result.stdout)["results"]
    names = [r["name"] for r in payload]
    assert names[:2] == ["count sheep [initial-number-sheep=100]", "count sheep [initial-number-sheep=200]"]
    assert all([x["n"] for x in r["runs"]] == [101, 101] for r in payload)
    assert not any("any? wolves" in name or "run number" in name for name in names)


@pytest.mark.parametrize("first", ['"BehaviorSpace results (NetLogo 7.0.3)","Table version 2.0"',
                                   'BehaviorSpace results (NetLogo 7.0.3), "Table version 2.0"',
                                   '\ufeff"BehaviorSpace results (NetLogo 6.4.0)"'])
def test_netlogo_7_and_an_unquoted_or_marked_first_line(tmp_path, first):
    path = tmp_path / "table.csv"
    path.write_text("\n".join([first, *METADATA[1:], '"[run number]","n","[step]","count turtles"',
                               '"1","10","0","10"', '"1","10","1","12"', '"1","10","2","11"']) + "\n",
                    encoding="utf-8")
    wide = read_log(path, wide=True)
    assert wide.attrs["format"] == "netlogo-table" and wide["count turtles"].tolist() == [10.0, 12.0, 11.0]


def test_a_seed_variable_sets_no_configuration(tmp_path):
    path = tmp_path / "table.csv"
    rows = [f'"{k}","{seed}","{step}","{v}"' for k, seed in ((1, 11), (2, 12)) for step, v in enumerate((5, 6, 7))]
    path.write_text("\n".join([*METADATA, '"[run number]","random-seed","[step]","count turtles"', *rows]) + "\n")
    assert set(read_log(path, wide=True).attrs["run_configs"].values()) == {ONE_CONFIGURATION}


def test_a_table_of_final_values_keeps_each_runs_seed_for_compare_to_pair_on(tmp_path):
    rows = [(1, 10, 7, 0.52), (2, 20, 7, 0.71), (3, 10, 8, 0.48), (4, 20, 8, 0.69)]
    path = tmp_path / "final.csv"
    path.write_text("\n".join([*METADATA, '"[run number]","n","random-seed","[step]","share"',
                               *(f'"{k}","{n}","{seed}","500","{v}"' for k, n, seed, v in rows)]) + "\n")
    wide = read_log(path, wide=True)
    assert wide.attrs["run_seeds"] == {1.0: 7, 2.0: 7, 3.0: 8, 4.0: 8}
    assert wide["run"].tolist() == ["n=10", "n=20", "n=10", "n=20"]
    done = run("compare", path, "-m", "share", "--names", "n=20", "n=10", "--format", "json")
    claim = json.loads(done.stdout)["claims"][0]
    assert claim["paired"] and claim["pairs"] == 2 and claim["paired_on"] == "seeds"


def test_a_table_of_final_values_is_described_per_setting_and_never_judged_in_time(tmp_path):
    # "Measure runs at every step" off: a row per run, at its end (both public BehaviorSpace
    # tables found are so), the runs finishing in any order
    rows = [(3, 20, 0.71), (1, 10, 0.52), (5, 30, 0.93), (2, 10, 0.48), (6, 30, 0.91), (4, 20, 0.69)]
    path = tmp_path / "final.csv"
    path.write_text("\n".join([*METADATA, '"[run number]","n","[step]","share"',
                               *(f'"{k}","{n}","500","{v}"' for k, n, v in rows)]) + "\n")
    wide = read_log(path, wide=True)
    assert wide.attrs["final_values"] and wide.columns.tolist() == ["run", "step", "share"]
    assert wide["run"].tolist() == ["n=10", "n=10", "n=20", "n=20", "n=30", "n=30"]  # in run order
    assert wide["share"].tolist() == [0.52, 0.48, 0.71, 0.69, 0.93, 0.91]
    assert "final measurement only (6 runs, 3 settings" in wide.attrs["notes"][0]
    described = json.loads(run("describe", path, "--format", "json").stdout)["results"]
    assert [(r["name"], r["n"]) for r in described] == [("share [n=10]", 2), ("share [n=20]", 2), ("share [n=30]", 2)]
    assert [r["mean"] for r in described] == pytest.approx([0.5, 0.7, 0.92])
    assert [r["clusters"] for r in described] == [2, 2, 2]  # the runs independent: each its own cluster
    other = tmp_path / "final-2.csv"
    other.write_bytes(path.read_bytes())
    for command, *options in (("check-convergence",), ("windows",), ("regimes",), ("learning-signal",),
                              ("report", "-o", str(tmp_path / "report.html")), ("sweep",),
                              ("curves", "-m", "share"), ("compare", other, "-m", "share")):
        refused = run(command, path, *options)
        assert refused.returncode == 2 and "final measurement only" in refused.stderr, (command, refused.stderr)
        assert "swarmstats describe" in refused.stderr and "Traceback" not in refused.stderr
    assert not (tmp_path / "report.html").exists()


@pytest.mark.parametrize("lines,message", [
    # the spreadsheet output: the runs across the columns
    (['"[run number]","1","2"', '"n","10","20"', '"[reporter]","count turtles","count turtles"'], "not its table"),
    # the lists output
    (['"[reporter]","[run number]","[step]","[0]","[1]"', '"[xcor] of turtles","1","0","1.5","2"'], "not its table"),
    (['"[run number]","n","[step]","count turtles"', '"1","10","0","12","7"'], "malformed rows"),
    (['"[run number]","n","[step]","count turtles"'], "no rows"),
    (['"[run number]","n","[step]","ids"', '"1","10","0","[1 2]"', '"1","10","1","[2 3]"'], "hold no numbers"),
])
def test_what_is_not_a_table_of_series_is_one_clear_error(tmp_path, lines, message):
    path = tmp_path / "experiment.csv"
    path.write_text("\n".join([*METADATA, *lines]) + "\n")
    with pytest.raises(InputError, match=message):
        read_log(path)
    refused = run("check-convergence", path)
    assert refused.returncode == 2 and message.split()[0] in refused.stderr and "Traceback" not in refused.stderr
