"""Notebook display (issue 20, item 3): every result has a one-line repr and a compact HTML
table - the headline, the key numbers with intervals, the reasons and notes."""

import dataclasses
from html.parser import HTMLParser

import pytest

import swarmstats as ss
from swarmstats._result import MAX_HEADLINE, Result
from tests.test_plotting import EXAMPLES


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.open, self.seen, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        self.open.append(tag)
        self.seen.append(tag)

    def handle_endtag(self, tag):
        assert self.open and self.open[-1] == tag, f"</{tag}> closes <{self.open[-1:]}>"
        self.open.pop()

    def handle_data(self, data):
        self.text.append(data)


def _all_result_types():
    import importlib
    import pkgutil

    for module in pkgutil.walk_packages(ss.__path__, "swarmstats."):
        if ".integrations" not in module.name and not module.name.endswith("__main__"):  # optional trainers; entry points
            importlib.import_module(module.name)
    found, todo = set(), [Result]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                todo.append(sub)
    return found


def test_every_result_type_uses_the_one_line_repr():
    types = {t for t in _all_result_types() if dataclasses.is_dataclass(t)}
    assert len(types) >= 20
    own = [t.__name__ for t in types if t.__repr__ is not Result.__repr__]
    assert not own, f"declare these dataclasses repr=False: {own}"


@pytest.mark.parametrize("cls", list(EXAMPLES), ids=[cls.__name__ for cls in EXAMPLES])
def test_repr_is_one_line_and_the_html_a_well_formed_table(cls, tmp_path):
    result = EXAMPLES[cls](tmp_path)
    line = repr(result)
    assert "\n" not in line and line.startswith(f"<{cls.__name__}") and line.endswith(">")
    assert len(line) <= len(cls.__name__) + MAX_HEADLINE + 4
    page = result._repr_html_()
    tags = _Tags()
    tags.feed(page)
    assert not tags.open  # every tag closed
    assert "table" in tags.seen and cls.__name__ in "".join(tags.text)
    # the headline is the summary's first line, and the numbers shown are the result's own
    headline = str(result).strip().splitlines()[0].strip()
    assert headline[:40] in "".join(tags.text)


def test_the_table_shows_verdicts_intervals_and_reasons():
    import numpy as np
    rng = np.random.default_rng(0)
    result = ss.check_convergence(rng.normal(size=500), name="reward <b>")
    page = result._repr_html_()
    assert "<b>reward" not in page and "reward &lt;b&gt;" in page  # names are escaped
    rows = dict(result._display_rows())
    assert rows["verdict"] == result.verdict
    low, high = result.ci
    assert rows["ci"] == f"[{ss._result.fmt(low)}, {ss._result.fmt(high)}]"
    assert all(f"<li>{reason}" in page for reason in result.reasons[:3] if "<" not in reason)
    quality = ss.quality_metrics(rng.uniform(size=200), rng.uniform(size=200) < 0.5, random_state=0)
    gap = quality.soft["quality_gap"]
    rows = dict(quality._display_rows())
    assert rows["soft.quality_gap"] == (f"{ss._result.fmt(gap.value)} [{ss._result.fmt(gap.ci_low)}, "
                                        f"{ss._result.fmt(gap.ci_high)}]")
    assert "more in to_dict()" in quality._repr_html_()  # long tables say what was left out
