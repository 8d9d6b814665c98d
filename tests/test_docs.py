"""The interactive examples (>>> blocks) in docs/ run and print what the page shows."""

import doctest
import re
from pathlib import Path

import numpy as np
import pytest

import swarmstats

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGES = sorted(page.name for page in DOCS.glob("*.md") if ">>>" in page.read_text(encoding="utf-8"))


@pytest.mark.parametrize("page", PAGES)
def test_interactive_examples_in_the_docs_print_what_they_show(page):
    text = (DOCS / page).read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    examples = "\n".join(block for block in blocks if ">>>" in block)
    test = doctest.DocTestParser().get_doctest(
        examples, {"np": np, "swarmstats": swarmstats}, page, str(DOCS / page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0, f"{runner.failures} example(s) in docs/{page} print something else"
