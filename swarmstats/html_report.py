"""A one-page report: every metric's evidence on one self-contained HTML page (or one PNG).

For each metric: the series with its warm-up and convergence interval, the regimes, the
adaptive window's status, the distribution, the verdict with its reasons and the key numbers;
where ``p`` and ``accepted`` columns exist, the soft-versus-hard quality panel.  Every figure
is the results' own ``plot()`` (one visual style, set here), every number is computed on all
points, and long series are drawn from per-bucket extremes.  Images are embedded as base64
PNG: the page needs no network and no other file.
"""

from __future__ import annotations

import base64
import html
import io
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from ._input.interactions import cluster_option
from ._result import fmt
from .convergence.endings import with_divergence
from .convergence.reasons import skipped_text, where_diverged
from .convergence.step_axis import planned_budget
from .convergence.verdict import ConvergenceTest
from .description import describe
from .errors import DivergedAtStart, InputError
from .io import classify_columns, select_metric
from .io.metric import series_endings
from .io.outputs import REPORT_SUFFIXES, check_output, write_atomically
from .plots import literal_text
from .quality import quality_metrics
from .regimes import RegimeDetector
from .regimes.spread import ratio_text
from .windows import AdaptiveWindow, window_input

#: one look for every figure of the report
STYLE = {"figure.dpi": 100, "font.size": 9, "axes.titlesize": 9, "axes.labelsize": 9,
         "axes.grid": True, "grid.alpha": 0.25, "legend.fontsize": 7, "legend.framealpha": 0.8,
         "axes.spines.top": False, "axes.spines.right": False,
         # titles at the top of their axes, where matplotlib's placement puts them on these
         # figures anyway (the same pixels), without measuring every axis to decide: ~10% of
         # a report's drawing
         "axes.titley": 1.0}
VERDICT_COLOURS = {"converged": "#2e7d32", "not_converged": "#c62828", "insufficient_data": "#ef6c00"}


@dataclass
class MetricSection:
    name: str
    convergence: object
    regimes: object
    window: object
    distribution: object


@dataclass
class Report:
    """The analyses behind the page; ``to_html()`` / ``write(path)`` render it."""

    source: str
    sections: list
    quality: object | None = None
    notes: list = field(default_factory=list)
    across_runs: list = field(default_factory=list)  # one line per metric when the log holds several runs

    # -- figures ------------------------------------------------------------------------------

    def metric_figure(self, section: MetricSection):
        """Series panels (convergence, regimes, window status) beside the distribution."""
        import matplotlib.pyplot as plt

        with plt.rc_context(STYLE):
            fig = plt.figure(figsize=(11, 7.2))
            grid = fig.add_gridspec(3, 3, width_ratios=[1, 1, 0.9], hspace=0.55, wspace=0.3)
            series = [fig.add_subplot(grid[i, :2]) for i in range(3)]
            section.convergence.plot(ax=series[0])
            section.regimes.plot(ax=series[1])
            section.window.plot(ax=series[2])
            section.distribution.plot(ax=fig.add_subplot(grid[:, 2]))
            for ax in fig.axes:  # the page states the verdict and reasons in full
                title = ax.get_title()
                ax.set_title(title if len(title) <= 70 else title[:67] + "...")
        return fig

    def quality_figure(self):
        import matplotlib.pyplot as plt

        with plt.rc_context(STYLE):
            fig, ax = plt.subplots(figsize=(8, 3.6))
            self.quality.plot(ax=ax)
        return fig

    # -- rendering ----------------------------------------------------------------------------

    def to_html(self) -> str:
        parts = [_HEAD.format(title=html.escape(f"swarmstats report: {self.source}"))]
        parts.append(f"<h1>swarmstats report</h1><p class='source'>{html.escape(str(self.source))}</p>")
        parts.append("<nav><ul>" + "".join(
            f"<li><a href='#{_anchor(s.name)}'>{html.escape(s.name)}</a> "
            f"{_badge(s.convergence.verdict)}</li>" for s in self.sections)
            + ("<li><a href='#quality'>selection quality</a></li>" if self.quality else "") + "</ul></nav>")
        if self.across_runs:
            parts.append("<section id='across-runs'><h2>Across runs</h2><ul>" + "".join(
                f"<li>{html.escape(line)}</li>" for line in self.across_runs) + "</ul></section>")
        for section in self.sections:
            parts.append(self._section_html(section))
        if self.quality is not None:
            parts.append(self._quality_html())
        if self.notes:
            parts.append("<section><h2>Notes</h2><ul>" + "".join(
                f"<li>{html.escape(n)}</li>" for n in self.notes) + "</ul></section>")
        parts.append("<footer>made by swarmstats; every number uses every point, long series are "
                     "drawn from per-bucket extremes</footer></body></html>")
        return "\n".join(parts)

    def _section_html(self, section: MetricSection) -> str:
        c, d, w = section.convergence, section.distribution, section.window
        reasons = "".join(f"<li>{html.escape(r)}</li>" for r in c.reasons)
        rows = [("verdict", _badge(c.verdict)), ("points", str(c.n)), ("warm-up", str(c.warmup)),
                ("mean after warm-up", f"{fmt(c.mean)} [{fmt(c.ci[0])}, {fmt(c.ci[1])}]"),
                ("effective sample size", fmt(c.ess)),
                ("median / IQM", f"{fmt(d.median)} / {fmt(d.iqm)}"),
                _best_row(d),
                ("regime changes", _changes_text(section.regimes)),
                ("window now", f"{html.escape(w.final_status)}: {html.escape(w.final_reason)}")]
        table = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
        image = _embed(self.metric_figure(section), f"{section.name}: series, regimes, window, distribution")
        return (f"<section id='{_anchor(section.name)}'><h2>{html.escape(section.name)}</h2>"
                f"<div class='facts'><table>{table}</table><div><h3>Why</h3><ul>{reasons}</ul></div></div>"
                f"{image}</section>")

    def _quality_html(self) -> str:
        q = self.quality
        rows = "".join(f"<tr><th>{html.escape(name)}</th><td>{e}</td><td>{q.hard[hard]}</td></tr>"
                       for name, hard in (("toxicity", "hard_toxicity"), ("quality_gap", "hard_quality_gap"),
                                          ("spread", "hard_spread"))
                       for e in [q.soft[name]])
        verdicts = "".join(f"<li>{html.escape(str(v))}</li>" for v in
                           (q.comparison["adverse_selection_verdict"], q.comparison["toxicity_verdict"]))
        image = _embed(self.quality_figure(), "selection quality: densities of p by decision")
        return (f"<section id='quality'><h2>Selection quality (soft vs hard)</h2>"
                f"<div class='facts'><table><tr><th></th><th>soft [95% CI]</th><th>hard [95% CI]</th></tr>"
                f"{rows}</table><div><ul>{verdicts}</ul></div></div>{image}</section>")

    def write(self, path: str) -> None:
        """``.html``/``.htm``: the page; ``.png``: the same panels as one image.  Written whole
        or not at all (a failure leaves an existing file as it was); any other extension is
        an InputError."""
        check_output(path, suffixes=REPORT_SUFFIXES, what="report")
        if str(path).lower().endswith(".png"):
            write_atomically(path, self._write_png)
        else:
            page = self.to_html()  # built before anything is written
            write_atomically(path, lambda temporary: Path(temporary).write_text(page, encoding="utf-8"))

    def _write_png(self, path: str) -> None:
        import matplotlib.pyplot as plt
        from PIL import Image

        images = []
        for section in self.sections:
            images.append(_figure_image(self.metric_figure(section)))
        if self.quality is not None:
            images.append(_figure_image(self.quality_figure()))
        width = max(image.width for image in images)
        canvas = Image.new("RGB", (width, sum(image.height for image in images)), "white")
        top = 0
        for image in images:
            canvas.paste(image, (0, top))
            top += image.height
        canvas.save(path)
        plt.close("all")


def _best_row(d) -> tuple:
    """The best value and its step, and how far it lies from the mean, as ``describe`` oriented
    them: the lowest for a loss (its highest is its worst), "highest" for a diagnostic."""
    lowest = d.better == "lower"
    value, step = (d.minimum, d.minimum_step) if lowest else (d.maximum, d.maximum_step)
    label = "best (step)" if d.better is not None else "highest (step)"
    gap = "n/a" if d.peak_gap_sd != d.peak_gap_sd else fmt(d.peak_gap_sd, 3)
    return label, f"{fmt(value)} ({step}), {gap} SDs {'below' if lowest else 'above'} the mean"


def build_report(frame: pd.DataFrame, *, metrics=None, step: str | None = None,
                 p: str = "p", accepted: str = "accepted", source: str | None = None,
                 better: str = "auto") -> Report:
    """Analyse every metric of a wide log frame (and p / accepted when present); ``better``
    is each metric's good direction ("auto": guessed from its name)."""
    columns = classify_columns(frame, step=step)
    quality_columns = {p, accepted} & set(frame.columns) == {p, accepted}
    names = list(metrics) if metrics else [m for m in columns.metrics
                                           if not (quality_columns and m in (p, accepted))]
    if not names and not quality_columns:
        raise InputError("nothing to report: no numeric metric column")
    sections = []
    notes = []
    dead = []
    planned = planned_budget(frame, columns.step)
    if planned is not None:
        notes.append(planned[1])
    test = ConvergenceTest(better=better, budget=planned[0] if planned is not None else None)
    for name in names:
        try:
            series = select_metric(frame, name, step=columns.step, diverged=True)
        except DivergedAtStart as exc:  # nothing to draw: said, the other metrics drawn
            dead.append(exc)
            notes.append(str(exc))
            continue
        diverged = series.attrs.get("diverged")
        if diverged is not None:  # a run that diverged: shown up to where it did, and said
            notes.append(f"{name}: {where_diverged(diverged)}: the run diverged there; every panel shows "
                         "the values before")
        if "skipped" in series.attrs:
            notes.append(f"{name}: {skipped_text(series.attrs['skipped'])}")
        followed, block = window_input(series)
        if block > 1:
            notes.append(f"{name}: the adaptive window follows the means of {block} consecutive steps "
                         f"({len(followed):,} points); replayed at each of the {len(series):,} steps it "
                         "would take minutes. Every other number uses every point.")
        sections.append(MetricSection(
            name=name, convergence=with_divergence(test.fit(series, name=name),
                                                   series_endings([series])),
            regimes=RegimeDetector().fit(series, name=name),
            window=replace(AdaptiveWindow(better=better).fit(followed, name=name), block=block),
            distribution=describe(series, name=name, random_state=0, better=better)))
    quality = None
    if quality_columns:
        clusters, used = cluster_option(frame, "auto")
        quality = quality_metrics(frame[p], frame[accepted], random_state=0, nan_policy="omit",
                                  clusters=clusters)
        notes.append(f"selection quality from the {p!r} and {accepted!r} columns"
                     + (f", resampling whole agents ({', '.join(used)})" if used else ""))
    if dead and not sections and quality is None:
        raise dead[0]
    return Report(source=source or frame.attrs.get("source", "log"), sections=sections, quality=quality,
                  notes=notes)


def _changes_text(regimes) -> str:
    """The count of regime changes, how many of them are within long-memory wander, and where
    the noise's spread changes.

    >>> from types import SimpleNamespace
    >>> _changes_text(SimpleNamespace(changepoints=[211, 900], wander_changes=[211], spread_changes=pd.DataFrame()))
    '2 (1 possibly the wander of long-memory noise)'
    >>> spread = pd.DataFrame([{"step": 280, "ratio": 4.2, "sd_before": 0.004, "sd_after": 0.017}])
    >>> _changes_text(SimpleNamespace(changepoints=[280], wander_changes=[], spread_changes=spread))
    "1; the noise's spread changes at 280 (x4.2)"
    """
    count = str(len(regimes.changepoints))
    wander = len(regimes.wander_changes)
    text = f"{count} ({wander} possibly the wander of long-memory noise)" if wander else count
    spread = regimes.spread_changes.to_dict("records")
    if spread:
        text += "; the noise's spread changes at " + ", ".join(f"{row['step']} ({ratio_text(row)})" for row in spread)
    return html.escape(text, quote=False)


def _embed(fig, alt: str) -> str:
    data = base64.b64encode(_palette_png(fig)).decode("ascii")
    return f"<img alt='{html.escape(alt)}' src='data:image/png;base64,{data}'>"


def _palette_png(fig) -> bytes:
    """The figure as a 256-colour PNG (then closed): plots use few colours, so every line
    and band survives while the page is about a third of a true-colour one.  zlib's default
    level, not PNG "optimize" (level 9): 8x faster to write (40 -> 5 ms a figure, a tenth of
    a report's time) for a page 8% larger."""
    from PIL import Image

    out = io.BytesIO()
    _figure_image(fig).quantize(colors=256, method=Image.Quantize.FASTOCTREE).save(
        out, format="png", compress_level=6)
    return out.getvalue()


def _figure_image(fig, dpi: int = 100, pad: float = 0.1):
    """The figure as an RGB image cropped to what it shows, ``pad`` inches around (as
    ``savefig(bbox_inches="tight")``), then closed.

    Drawn once and cropped: ``bbox_inches="tight"`` draws the figure twice (once to measure
    it): 0.34 s a report figure, 0.20 s drawn once.  A figure whose content reaches past its
    edges still goes through savefig, which can show what lies outside."""
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    literal_text(fig)
    fig.set_dpi(dpi)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    box = fig.get_tightbbox(canvas.get_renderer()).padded(pad)  # inches, from the bottom left
    width, height = fig.get_size_inches()
    if box.x0 < 0 or box.y0 < 0 or box.x1 > width or box.y1 > height:
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight", pad_inches=pad)
        plt.close(fig)
        buffer.seek(0)
        return Image.open(buffer).convert("RGB")
    pixels = np.asarray(canvas.buffer_rgba())
    rows, columns = pixels.shape[:2]
    top, bottom = int(round((height - box.y1) * dpi)), int(round((height - box.y0) * dpi))
    left, right = int(round(box.x0 * dpi)), int(round(box.x1 * dpi))
    image = Image.fromarray(pixels[max(top, 0):min(bottom, rows), max(left, 0):min(right, columns), :3].copy())
    plt.close(fig)
    return image


def _anchor(name: str) -> str:
    return "metric-" + "".join(ch if ch.isalnum() else "-" for ch in name)


def _badge(verdict: str) -> str:
    colour = VERDICT_COLOURS.get(verdict, "#555")
    return f"<span class='badge' style='background:{colour}'>{html.escape(verdict.replace('_', ' '))}</span>"


_HEAD = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body {{ font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 1150px;
       color: #222; padding: 0 1em; }}
h1 {{ margin-bottom: 0.1em; }} .source {{ color: #666; margin-top: 0; }}
nav ul {{ list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 1.2em; }}
section {{ border-top: 1px solid #ddd; margin-top: 1.5em; padding-top: 0.5em; }}
.facts {{ display: flex; gap: 2em; flex-wrap: wrap; }}
table {{ border-collapse: collapse; font-size: 0.9em; }}
th {{ text-align: left; padding: 0.2em 0.8em 0.2em 0; color: #444; font-weight: 600; }}
td {{ padding: 0.2em 0.8em 0.2em 0; }}
.badge {{ color: white; border-radius: 0.6em; padding: 0.05em 0.6em; font-size: 0.85em; }}
img {{ max-width: 100%; margin-top: 0.8em; }}
footer {{ color: #888; font-size: 0.8em; margin-top: 2em; }}
</style></head><body>"""
