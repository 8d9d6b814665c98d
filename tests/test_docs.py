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


# --- every other block runs as written, against the bundled data ------------------------------

ROOT = DOCS.parent
PAGES_AND_README = [ROOT / "README.md"] + sorted(DOCS.glob("*.md"))
#: a block whose first line says so is a template (a trainer, a live log, a sweep to make first)
TEMPLATE = "# template"


def _blocks(path: Path, language: str) -> list:
    text = path.read_text(encoding="utf-8")
    blocks = re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)
    return [b for b in blocks if ">>>" not in b and not b.lstrip().startswith(TEMPLATE)]


@pytest.fixture
def in_a_scratch_folder(tmp_path, monkeypatch):
    """Run where the bundled data is at examples/data, and anything written is thrown away."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    return tmp_path


@pytest.mark.parametrize("path", [p for p in PAGES_AND_README if _blocks(p, "python")],
                         ids=lambda p: p.name)
def test_every_python_block_runs_as_written(path, in_a_scratch_folder):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    namespace: dict = {}  # the blocks of a page run in order, as a reader pastes them
    for number, block in enumerate(_blocks(path, "python"), start=1):
        try:
            exec(compile(block, f"{path.name}, python block {number}", "exec"), namespace)
        finally:
            plt.close("all")


def _commands(block: str) -> list:
    """The swarmstats invocations on a shell block's lines (after '&&' or ';', before a pipe,
    a redirection, '||' or a comment)."""
    import shlex

    found = []
    for line in block.splitlines():
        for part in re.split(r"&&|;", line.split(" #")[0]):
            part = re.split(r"\|\||\||>", part)[0].strip()
            if part.startswith("swarmstats "):
                found.append(shlex.split(part)[1:])
    return found


SHELL_COMMANDS = [(path.name, argv) for path in PAGES_AND_README
                  for block in _blocks(path, "bash") for argv in _commands(block)]


@pytest.mark.parametrize("page, argv", SHELL_COMMANDS, ids=lambda value: (
    value if isinstance(value, str) else " ".join(value)[:60]))
def test_every_shell_command_runs_on_the_bundled_data(page, argv, in_a_scratch_folder, capsys):
    """Exit 0 or 1 (a verdict): never 2, a usage or input error in the docs."""
    from swarmstats.cli import main

    code = main(argv)
    assert code in (0, 1), f"docs/{page}: swarmstats {' '.join(argv)} exits {code}: {capsys.readouterr().err}"


def test_the_shell_commands_were_found():
    assert len(SHELL_COMMANDS) >= 15


def test_the_cli_page_lists_exactly_the_options_each_command_accepts():
    """docs/cli.md's synopses are checked against the parser, so they cannot drift from --help.
    The options every command shares (--debug, --no-color, --mlflow-uri) are documented once, not
    per synopsis."""
    from swarmstats.cli import COMMANDS, build_parser

    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    commands = build_parser()._subparsers._group_actions[0].choices
    shared = {"--debug", "--no-color", "--mlflow-uri", "--help"}
    drift = []
    for name in COMMANDS:
        synopsis = re.search(rf"```\n(swarmstats {name} .*?)```", text, flags=re.S)
        assert synopsis, f"docs/cli.md has no synopsis block for {name}"
        documented = set(re.findall(r"--[a-z][a-z-]*", synopsis.group(1))) - shared
        documented |= {"--metric"} if re.search(r"\[-m ", synopsis.group(1)) else set()
        documented |= {"--output"} if re.search(r" -o ", synopsis.group(1)) else set()
        # each option's first long spelling (an old one kept for a release is not listed)
        accepted = {next((o for o in action.option_strings if o.startswith("--")), None)
                    for action in commands[name]._actions} - shared - {None}
        if documented != accepted:
            drift.append(f"{name}: missing from docs {sorted(accepted - documented)}, "
                         f"not accepted {sorted(documented - accepted)}")
    assert not drift, "\n".join(drift)
    assert all(option in text for option in ("--debug", "--no-color", "--mlflow-uri"))


def test_the_architecture_page_names_every_package():
    """docs/architecture.md says what each package of swarmstats/ is for: a package added
    without a line there fails here, so the map stays the territory's."""
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    source = Path(swarmstats.__file__).parent
    packages = sorted(p.name for p in source.iterdir() if (p / "__init__.py").is_file())
    # the first cell of each row of the packages table
    named = {name for cell in re.findall(r"^\| ([^|]+) \|", text, flags=re.M)
             for name in re.findall(r"`([\w.]+)/`", cell)}
    missing = [name for name in packages if name not in named]
    assert packages and not missing, f"docs/architecture.md does not name {missing}"


def test_the_cli_page_lists_every_input_format():
    """The list of ``--input-format`` names on docs/cli.md had drifted (``mlflow-runs``,
    ``parquet`` and ``arrow`` were missing from it)."""
    from swarmstats.io import LOG_FORMATS

    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    start = text.index("`--input-format` names the format (needed for `-`): `")
    listed = text[start:text.index("`.", start + 60)].split("`")[-1]
    assert sorted(name.strip() for name in listed.replace("\n", " ").split(",")) == sorted(LOG_FORMATS)
