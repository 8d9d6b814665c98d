"""Outputs are never written onto an input, whole or not at all, with an honest extension
(issue 17's data-loss cases), through the command line."""

import hashlib
import os
import shutil
from pathlib import Path

import pytest

from swarmstats import InputError
from swarmstats.io.outputs import check_output, write_atomically
from tests.test_cli import EXAMPLE, run


def digest(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@pytest.fixture
def log(tmp_path):
    path = tmp_path / "in.csv"
    shutil.copy(EXAMPLE, path)
    return path


def test_an_output_that_is_an_input_is_refused_before_anything_is_written(log, tmp_path):
    before = digest(log)
    alias = tmp_path / "alias.html"
    alias.symlink_to(log)
    for args in (("report", log, "-o", alias), ("check-convergence", log, "--plot", log),
                 ("report", log, "-o", log)):
        result = run(*args)
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    assert digest(log) == before and alias.is_symlink()


def test_extensions_are_honest(log, tmp_path):
    pdf = run("report", log, "-o", tmp_path / "r.pdf")
    assert pdf.returncode == 2 and "use .html, .htm, .png" in pdf.stderr
    csv = run("windows", log, "-m", "reward", "--plot", tmp_path / "out.csv")
    assert csv.returncode == 2 and "use .png" in csv.stderr
    assert not (tmp_path / "r.pdf").exists() and not (tmp_path / "out.csv").exists()
    svg = run("describe", log, "-m", "reward", "--plot", tmp_path / "d.svg")
    assert svg.returncode == 0 and (tmp_path / "d.svg").read_text().lstrip().startswith("<?xml")


def test_a_failing_run_leaves_an_existing_report_as_it_was(tmp_path, log):
    report = tmp_path / "r.html"
    report.write_text("the old report")
    failed = run("report", tmp_path / "missing.csv", "-o", report)
    assert failed.returncode == 2 and report.read_text() == "the old report"
    written = run("report", log, "-o", report)
    assert written.returncode == 0 and report.read_text().startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv", "r.html"]   # no temporary left
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(report).st_mode & 0o777 == 0o666 & ~umask   # not the temporary file's 0600


def test_a_symlinked_output_is_replaced_not_written_through(tmp_path, log):
    elsewhere = tmp_path / "precious.html"
    elsewhere.write_text("keep me")
    link = tmp_path / "r.html"
    link.symlink_to(elsewhere)
    assert run("report", log, "-o", link).returncode == 0
    assert elsewhere.read_text() == "keep me" and not link.is_symlink()


def test_the_helpers_directly(tmp_path):
    with pytest.raises(InputError, match="is a directory"):
        check_output(tmp_path, [], ())
    target = tmp_path / "t.txt"

    def broken(temporary):
        Path(temporary).write_text("half")
        raise RuntimeError("stopped")

    with pytest.raises(RuntimeError):
        write_atomically(target, broken)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(InputError, match="cannot write"):
        write_atomically(tmp_path / "no-such-dir" / "t.txt", lambda temporary: None)
