"""`swarmstats quality-gap`: is selection working, or adverse?"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from .._input.interactions import as_accept_flags, as_probabilities, cluster_option
from .._result import fmt
from ..errors import InputError
from ..io import FORMATS, read_interactions
from ..quality import adverse_selection_test, quality_by, quality_metrics
from ._loading import MIN_VALUES, too_few
from ._options import (
    EXIT_FAIL,
    EXIT_PASS,
    add_command,
    add_exit_zero_option,
    add_input_format_option,
    add_output_options,
    add_random_seed_option,
    at_least,
    finite,
)
from ._output import aligned_lines, plot_results, render


def add_parser(commands) -> None:
    quality = add_command(
        commands, "quality-gap",
        description="Soft and hard selection metrics of interactions scored by p = P(beneficial) and "
                    "accepted or rejected: quality gap E[p|accepted] - E[p|rejected], toxicity, "
                    "spread, saturation, welfare, each with an interval; a test of adverse "
                    "selection (gap < 0): a permutation test, or a t test over the agents when "
                    "the table names them.",
        exits={0: "no significant adverse selection",
               1: "the gap is significantly below zero (adverse selection)"})
    quality.add_argument("file", metavar="FILE",
                         help="interaction table (CSV/TSV/JSONL), SWARM history JSON or event JSONL, or -")
    quality.add_argument("--p", default="p", help="column of p (default p)")
    quality.add_argument("--accepted", default="accepted", help="column of the accept flag (default accepted)")
    quality.add_argument("--by", help="also one row per value of this column (e.g. epoch); the "
                                      "adverse-selection test then compares within groups")
    quality.add_argument("--clusters", default="auto", metavar="COL[,COL]",
                         help="column(s) naming the agent behind each interaction, whose interactions "
                              "are resampled together, the agents being the adverse-selection test's "
                              "units: one (the agent) or two (initiator,counterparty); "
                              "'auto' (default) uses initiator_id,counterparty_id (SWARM), "
                              "initiator,counterparty, agent_id or agent (AgentID ...) when present; 'none' treats "
                              "interactions as independent")
    quality.add_argument("--blocks", default="auto", type=_blocks, metavar="auto|none|N",
                         help="without agent clusters: 'auto' (default) resamples contiguous blocks "
                              "when p or the accept flags are persistent in file order (interactions "
                              "close in time are not independent), and the --by test shuffles the "
                              "accept flags in such blocks within each group; N: blocks of N "
                              "interactions; 'none': independent interactions")
    quality.add_argument("--threshold", type=finite, default=0.5, help="hard-label threshold (default 0.5)")
    quality.add_argument("--band", type=finite, default=0.2, help="uncertain band half-width (default 0.2)")
    quality.add_argument("--alpha", type=finite, default=0.05, help="level of the adverse-selection test")
    quality.add_argument("--n-boot", type=at_least(100, " for a 95% interval"), default=2000, help="bootstrap resamples and shuffles")
    add_random_seed_option(quality, "random seed (default 0: reproducible output)")
    quality.add_argument("--nan-policy", choices=("raise", "omit"), default="raise",
                         help="rows with a missing p or accept flag: an error (default) or dropped")
    quality.add_argument("--swarm-compatible", action="store_true",
                         help="report SWARM's 0.0 for figures undefined on an empty side")
    add_input_format_option(quality, FORMATS)
    add_output_options(quality, plot="the distributions of p")
    add_exit_zero_option(quality, "if selection is adverse")


def _blocks(text: str):
    """--blocks: 'auto', 'none' (None) or a whole number of interactions >= 1."""
    word = text.strip().lower()
    if word in ("auto", "none"):
        return None if word == "none" else "auto"
    try:
        length = int(word)
    except ValueError:
        length = 0
    if length < 1:
        raise argparse.ArgumentTypeError(f"expected auto, none or a whole number >= 1, got {text!r}")
    return length


def run(args) -> int:
    frame = read_interactions(args.file, format=args.input_format, p=args.p, accepted=args.accepted)
    if args.by and args.by not in frame.columns:
        raise InputError(f"no column {args.by!r} for --by; columns are {', '.join(map(str, frame.columns))}")
    options = dict(threshold=args.threshold, band=args.band, alpha=args.alpha, n_boot=args.n_boot,
                   swarm_compatible=args.swarm_compatible, blocks=args.blocks)
    columns = (None if args.clusters.strip().lower() == "none" else "auto" if args.clusters == "auto"
               else tuple(c.strip() for c in args.clusters.split(",")))
    if isinstance(args.blocks, int) and columns == "auto":
        columns = None  # blocks of N asked for: no agent columns looked for
    _, used = cluster_option(frame, columns)
    if args.nan_policy == "omit":
        frame = _complete_rows(frame, [args.p, args.accepted] + ([args.by] if args.by else []) + list(used))
    clusters, _ = cluster_option(frame, used or None)
    overall = quality_metrics(frame[args.p], frame[args.accepted], random_state=args.random_seed,
                              clusters=clusters, **options)
    if overall.n < MIN_VALUES:  # checked after the columns were validated: their errors say more
        raise too_few(frame.attrs.get("source"), f"{overall.n} interaction(s)")
    table = test = None
    if args.by:
        table = quality_by(frame, args.by, p=args.p, accepted=args.accepted, random_state=args.random_seed + 1,
                           clusters=used or None, **options)
        # the agents behind the interactions make them dependent across the groups too
        test = adverse_selection_test(frame[args.p], frame[args.accepted], groups=frame[args.by],
                                      clusters=clusters, n_perm=max(args.n_boot, 1), blocks=args.blocks,
                                      random_state=args.random_seed + 2)
        pvalue = test.pvalue
    else:
        pvalue = overall.comparison["adverse_selection_pvalue"]
    adverse = bool(np.isfinite(pvalue) and pvalue < args.alpha)

    def payload():
        by = None if table is None else {"column": args.by, "rows": table, "test": test.to_dict()}
        return {"adverse_selection": adverse, "passed": not adverse, "overall": overall.to_dict(), "by": by}

    def text():
        print(overall.summary())
        if table is not None:
            print()
            print(_quality_table_text(table, args.by))
            print(f"\nacross {args.by}s: {test.summary()}")
            print(_per_group_significance(table, args.by, args.alpha))
        verdict = ("ADVERSE SELECTION: the gap is significantly below zero" if adverse
                   else "no significant adverse selection")
        print(f"\n{verdict} (alpha = {args.alpha})")

    render(args, "quality-gap", [overall], frame=frame, payload=payload, text=text,
           table=lambda: overall.to_frame() if table is None else table)
    if args.plot:
        plot_results([overall], args.plot)
    return EXIT_FAIL if adverse and not args.exit_zero else EXIT_PASS


def _complete_rows(frame: pd.DataFrame, columns: list) -> pd.DataFrame:
    """The rows where every one of ``columns`` has a value (--nan-policy omit)."""
    keep = np.isfinite(as_probabilities(frame[columns[0]], argname=columns[0]))
    keep &= ~np.isnan(as_accept_flags(frame[columns[1]], argname=columns[1]))
    for column in columns[2:]:
        keep &= frame[column].notna().to_numpy()
    if not keep.any():
        raise InputError(f"no row has both {columns[0]} and {columns[1]}")
    return frame[keep].reset_index(drop=True)


def _quality_table_text(table: pd.DataFrame, by: str) -> str:
    rows = []
    for row in table.to_dict("records"):
        gap = f"{fmt(row['quality_gap'], 3)} [{fmt(row['quality_gap_low'], 3)}, {fmt(row['quality_gap_high'], 3)}]"
        tox = f"{fmt(row['toxicity'], 3)} [{fmt(row['toxicity_low'], 3)}, {fmt(row['toxicity_high'], 3)}]"
        rows.append([row[by], row["n"], gap, tox, fmt(row["hard_toxicity"], 3), fmt(row["adverse_selection_pvalue"], 3)])
    return "\n".join(aligned_lines([by, "n", "gap [CI]", "toxicity [CI]", "hard tox", "p(adverse)"], rows,
                                   indent="  "))


def _per_group_significance(table: pd.DataFrame, by: str, alpha: float) -> str:
    """How many groups are individually adverse, before and after Holm's correction."""
    from .._kernels.multiplicity import holm_adjusted

    pvalues = table["adverse_selection_pvalue"].to_numpy(dtype=float)
    defined = np.isfinite(pvalues)
    raw = table.loc[defined & (pvalues < alpha), by].tolist()
    m = int(defined.sum())
    holm = int(np.sum(holm_adjusted(pvalues) < alpha))
    listing = ", ".join(map(str, raw[:12])) + (" ..." if len(raw) > 12 else "")
    return (f"{len(raw)} of {m} {by}s individually adverse at alpha = {alpha}"
            + (f" ({listing})" if raw else "") + f"; {holm} after Holm's correction")
