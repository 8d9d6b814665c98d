"""Every command against every malformed or hostile input (the corpus in hostile_corpus.py).

Modelled on scipy's ``test_axis_nan_policy``: one table of inputs, one table of commands
(taken from the CLI itself, so a new command joins automatically), and the same promises
checked for every pair: exit 0, 1 or 2 (2 for every garbage input), one line on stderr
with exit 2, no traceback, no hang, the input unchanged, no stray file left behind.

The commands run in this process (``main(argv)``), so 2,000-odd runs cost seconds, not an
interpreter start each; an alarm turns a hang into a failure.  One subprocess run at the
end checks that the promises also hold through the real entry point.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys

import pytest

from swarmstats.cli import COMMANDS, main

from .hostile_corpus import ALL, BAD_LINE_ONLY, GARBAGE

#: extra arguments a command needs to run on a log of one metric (the input comes first)
EXTRA = {"watch": ["--once"], "report": ["-o", "{out}/report.html"], "proxy": ["--p", "reward"],
         "sweep": ["--workers", "1"], "quality-gap": ["--p", "reward"],
         # the input as both sets: every hostile file is read twice over, as a set of runs
         "compare": ["{path}", "-m", "reward"], "curves": ["{path}", "-m", "reward"],
         "best-of": ["{path}", "-m", "reward"], "learning-signal": ["--zero-std", "reward"],
         "divergence": ["--proxy", "reward", "--outcome", "reward"], "agents": ["--value", "reward"]}
#: inputs drawn into a plot by every command that draws (names matplotlib could misread)
PLOTTED = {"plain", "mathtext_name", "dollar_name", "html_name", "unicode_name", "huge_values"}
#: pairs left out for time alone: 20 report sections of a 300-column table take ~12 s (the cap
#: itself is tested below with a smaller one)
SLOW = {("report", "wide_table")}
#: seconds one command may take on one of these small inputs before it counts as a hang
TIMEOUT = 30


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    return {name: make(str(folder)) for name, make in ALL.items()}, str(folder)


def _fingerprint(path):
    """The bytes (hash) of a file, the listing of a folder, what a link points to."""
    if os.path.islink(path):
        return ("link", os.readlink(path))
    if os.path.isdir(path):
        return ("dir", tuple(sorted(os.listdir(path))))
    if not os.path.exists(path) or not os.path.isfile(path):
        return ("other", os.path.exists(path))
    with open(path, "rb") as handle:
        return ("file", hashlib.sha256(handle.read()).hexdigest())


def _invoke(argv, capsys):
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIMEOUT)
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's --help/--version only
        code = exc.code
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    out, err = capsys.readouterr()
    return code, out, err


def _argv(command, path, out_folder, plot):
    argv = [command, path, *[a.format(out=out_folder, path=path) for a in EXTRA.get(command, [])]]
    if plot and command not in ("watch", "report"):
        argv += ["--plot", os.path.join(out_folder, "plot.png")]
    return argv


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_input_gets_an_answer_and_nothing_is_lost(command, corpus, capsys, tmp_path):
    inputs, folder = corpus
    failures = []
    for name, path in inputs.items():
        if (command, name) in SLOW:
            continue
        before_inputs = {n: _fingerprint(p) for n, p in inputs.items()}
        before_listing = sorted(os.listdir(folder))
        out_folder = tmp_path / name
        out_folder.mkdir()
        argv = _argv(command, path, str(out_folder), name in PLOTTED)
        try:
            code, out, err = _invoke(argv, capsys)
        except Hang:
            failures.append(f"{name}: no answer within {TIMEOUT} s")
            continue
        except Exception as exc:  # a traceback the user would have seen
            failures.append(f"{name}: {type(exc).__name__}: {exc}"[:300])
            continue
        problems = []
        if code not in (0, 1, 2):
            problems.append(f"exit {code}")
        if name in GARBAGE and code != 2 and not (command == "watch" and name in BAD_LINE_ONLY):
            problems.append(f"exit {code} on garbage")
        if code == 2:
            lines = [line for line in err.splitlines() if line.strip()]
            if len(lines) != 1 or not lines[0].startswith("swarmstats: error: "):
                problems.append(f"stderr is not one error line: {err[:300]!r}")
        if "Traceback" in err or "Traceback" in out:
            problems.append("a traceback was printed")
        if "np.float" in err or "np.int" in err:  # numpy's repr of a number: "np.float64(1.5)"
            problems.append(f"a numpy repr in the message: {err[:300]!r}")
        if {n: _fingerprint(p) for n, p in inputs.items()} != before_inputs:
            problems.append("an input changed")
        if sorted(os.listdir(folder)) != before_listing:
            problems.append("a file appeared beside the inputs")
        written = set(os.listdir(out_folder))
        allowed = {"report.html", "plot.png"} if code in (0, 1) else set()
        if not written <= allowed:
            problems.append(f"stray files {sorted(written - allowed)}")
        if problems:
            failures.append(f"{name}: {'; '.join(problems)}")
    assert not failures, f"{command}:\n" + "\n".join(failures)


def test_the_corpus_is_large_enough_and_covers_every_command():
    assert len(ALL) >= 40 and len(GARBAGE) >= 30
    assert set(EXTRA) <= set(COMMANDS)


def test_a_hostile_input_through_the_real_entry_point_is_one_line(tmp_path):
    """Deep JSON once through a fresh interpreter: no traceback, exit 2, one line."""
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    result = subprocess.run([sys.executable, "-m", "swarmstats.cli", "describe", str(path)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "nested" in result.stderr


def test_report_escapes_names_and_is_byte_identical_when_run_again(corpus, capsys, tmp_path):
    """The two things the first campaign found holding: keep them."""
    inputs, _ = corpus
    pages = []
    for attempt in range(2):
        out = tmp_path / f"page{attempt}.html"
        code, _, err = _invoke(["report", inputs["html_name"], "-o", str(out)], capsys)
        assert code == 0, err
        pages.append(out.read_bytes())
    assert pages[0] == pages[1]
    assert b"<script>alert(1)</script>" not in pages[0] and b"&lt;script&gt;" in pages[0]


def test_a_report_of_a_wide_table_draws_the_first_sections_and_says_so(corpus, capsys, tmp_path, monkeypatch):
    from swarmstats.cli import report

    monkeypatch.setattr(report, "MAX_SECTIONS", 2)
    inputs, _ = corpus
    code, _, err = _invoke(["report", inputs["wide_table"], "-o", str(tmp_path / "wide.html")], capsys)
    assert code == 0, err
    assert "300 metrics: the report shows 2 (name others with -m)" in err
    assert (tmp_path / "wide.html").read_text().count("<section id='m") == 2  # m0 and m1


def test_a_log_of_many_metrics_each_too_short_gets_a_message_of_a_few_lines(tmp_path, capsys):
    # one verl step line of 5,000 keys: the message named each, and ran to 60 KB
    (tmp_path / "wide.log").write_text("step:1 - " + " - ".join(f"k{i}:{i}" for i in range(5_000)) + "\n")
    code, _, err = _invoke(["check-convergence", str(tmp_path / "wide.log")], capsys)
    assert code == 2 and "too few values to analyse: k0 (1)" in err
    assert "and 4,990 more" in err and len(err) < 1_000
