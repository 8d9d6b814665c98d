"""`swarmstats report`: every section and image present, PNG output, headless Chromium."""

import base64
import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

from tests.test_cli import EXAMPLE, run

INTERACTIONS = Path(__file__).resolve().parent.parent / "examples" / "data" / "interactions.csv"


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.sections, self.images, self.headings, self._in_h2 = [], [], [], False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section":
            self.sections.append(attrs.get("id"))
        if tag == "img":
            self.images.append(attrs)
        self._in_h2 = tag == "h2"

    def handle_data(self, data):
        if self._in_h2:
            self.headings.append(data)
            self._in_h2 = False


def _parse(path) -> Page:
    page = Page()
    page.feed(Path(path).read_text(encoding="utf-8"))
    return page


def test_html_report_has_every_section_and_embedded_image(tmp_path):
    out = tmp_path / "report.html"
    result = run("report", EXAMPLE, "-o", out)
    assert result.returncode == 0, result.stderr
    page = _parse(out)
    assert page.sections == ["metric-reward", "metric-loss", "metric-entropy"]
    assert len(page.images) == 3
    for image in page.images:
        assert image["src"].startswith("data:image/png;base64,")  # self-contained: no network, no files
        assert base64.b64decode(image["src"].split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
        assert image["alt"]
    text = out.read_text()
    assert "not converged" in text and "drifting" in text  # the verdict with its reasons
    assert "http://" not in text and "https://" not in text
    assert out.stat().st_size < 3 * 100_000  # docs/report.md: about 40-80 KB per metric
    assert "SDs above the mean" in text and "% above the mean" not in text
    # a loss's best value is its lowest (its highest is its worst); an entropy has no better side
    assert "best (step)" in text and "SDs below the mean" in text and "highest (step)" in text
    assert "peak (step)" not in text


def test_quality_panel_when_p_and_accepted_exist(tmp_path):
    frame = pd.read_csv(INTERACTIONS)[["step", "p", "accepted"]]
    frame["reward"] = frame["p"].rolling(20, min_periods=1).mean()
    log = tmp_path / "interactions.csv"
    frame.to_csv(log, index=False)
    out = tmp_path / "report.html"
    assert run("report", log, "-o", out).returncode == 0
    page = _parse(out)
    assert "quality" in page.sections
    assert "metric-reward" in page.sections and "metric-p" not in page.sections
    assert len(page.images) == 2


def test_png_report_and_groups(tmp_path):
    png = tmp_path / "report.png"
    assert run("report", EXAMPLE, "-o", png).returncode == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    frame = pd.read_csv(EXAMPLE, comment="#")
    long = pd.concat([frame.assign(seed=1), frame.assign(seed=2)])
    log = tmp_path / "seeds.csv"
    long.to_csv(log, index=False)
    out = tmp_path / "seeds.html"
    assert run("report", log, "-m", "reward", "--group", "seed", "-o", out).returncode == 0
    assert _parse(out).headings[:3] == ["Across runs", "reward [seed=1]", "reward [seed=2]"]


def test_bad_input_exits_2(tmp_path):
    result = run("report", tmp_path / "missing.csv", "-o", tmp_path / "r.html")
    assert result.returncode == 2 and "no such file" in result.stderr
    result = run("report", EXAMPLE, "-o", tmp_path / "no-such-dir" / "r.html")
    assert result.returncode == 2 and "cannot write" in result.stderr


def test_page_renders_in_headless_chromium(tmp_path):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")
    out = tmp_path / "report.html"
    assert run("report", EXAMPLE, "-o", out).returncode == 0
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([browser, *flags, "--dump-dom", out.as_uri()], capture_output=True, text=True,
                         timeout=120, env={**os.environ, "HOME": str(tmp_path)})
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "metric-reward" in dom.stdout and "data:image/png;base64," in dom.stdout
    shot = tmp_path / "shot.png"
    done = subprocess.run([browser, *flags, "--window-size=1200,2000", f"--screenshot={shot}", out.as_uri()],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "HOME": str(tmp_path)})
    assert done.returncode == 0 and shot.stat().st_size > 50_000
    assert "Uncaught" not in dom.stderr + done.stderr  # no script errors on the page


def test_a_log_with_several_runs_gets_a_section_per_run_and_an_across_run_summary(tmp_path):
    from tests.test_runs import two_runs
    out = tmp_path / "two.html"
    result = run("report", two_runs(tmp_path / "tworuns.csv"), "-o", out)
    assert result.returncode == 0 and "2 runs" in result.stderr
    page = _parse(out)
    assert len(page.images) == 2  # one section per run, never one merged series
    text = out.read_text()
    assert "Across runs" in text and "over 2 runs" in text and "reward [run=a]" in text



def test_a_long_metric_has_its_window_follow_block_means_and_says_so():
    import numpy as np

    from swarmstats.html_report import build_report
    from swarmstats.windows import WINDOW_POINTS
    n = WINDOW_POINTS + 1  # just past the limit: blocks of 2 steps
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"step": np.arange(n) * 10, "reward": rng.normal(size=n)})
    report = build_report(frame)
    window = report.sections[0].window
    assert window.n == n // 2  # the means of consecutive pairs (the odd first step dropped)
    assert int(window.table["step"].iloc[-1]) == (n - 1) * 10  # each mean at its block's last step
    assert report.sections[0].convergence.n == n  # every other analysis uses every point
    assert any("follows the means of 2 consecutive steps" in note for note in report.notes)


@pytest.mark.parametrize("outside", [False, True], ids=["inside", "past the edge"])
def test_a_figure_drawn_once_and_cropped_is_what_a_tight_savefig_gives(outside):
    """The report draws each figure once and crops it to its content (a tight savefig draws it
    twice); a figure with content past its edges still goes through savefig, which shows it."""
    import io

    import matplotlib.pyplot as plt
    import numpy as np
    from PIL import Image

    from swarmstats.html_report import _figure_image
    from swarmstats.plots._draw import literal_text

    def figure():
        fig, ax = plt.subplots(figsize=(6, 3))
        ax.plot(np.sin(np.arange(100) / 9), label="a $name$ with dollars")
        ax.set_title("a title")
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1) if outside else None)
        return fig

    reference = figure()
    literal_text(reference)  # as the report draws names
    buffer = io.BytesIO()
    reference.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    plt.close(reference)
    expected = np.asarray(Image.open(buffer).convert("RGB")).astype(int)
    got = np.asarray(_figure_image(figure())).astype(int)
    assert abs(got.shape[0] - expected.shape[0]) <= 1 and abs(got.shape[1] - expected.shape[1]) <= 1
    rows, columns = min(got.shape[0], expected.shape[0]), min(got.shape[1], expected.shape[1])
    # the same picture: anti-aliasing may differ where the crop is a fraction of a pixel off
    differing = np.abs(got[:rows, :columns] - expected[:rows, :columns]).sum(axis=-1) > 60
    assert differing.mean() < 0.02, differing.mean()
