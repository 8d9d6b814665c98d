"""Which way is better for a metric: one rule for every command and estimator.

Losses, errors, perplexity, KL, toxicity, WER/CER, regret, costs ... are better when lower;
everything else (rewards, returns, accuracies, scores) when higher.  A name is split into
words (``train/loss`` -> train, loss; ``eval_wer`` -> eval, wer) so that ``kl`` matches
``approx_kl`` but not ``ankle``.  ``better=`` / ``--better`` overrides the guess.
"""

from __future__ import annotations

import re

from .errors import check_choice

DIRECTIONS = ("higher", "lower")
#: words that make a metric lower-is-better (a word may also end in them: vf_loss, qloss)
LOWER_IS_BETTER = ("loss", "error", "err", "errors", "perplexity", "ppl", "kl", "kld", "toxicity",
                   "toxic", "wer", "cer", "regret", "mse", "mae", "rmse", "nll", "cost", "costs",
                   "penalty", "latency", "violations", "harm")
_SUFFIXES = ("loss", "error")


def better_direction(name) -> str:
    """"lower" for losses, errors, toxicity ..., else "higher".

    >>> better_direction("train/loss"), better_direction("reward"), better_direction("approx_kl")
    ('lower', 'higher', 'lower')
    >>> better_direction("ankle_angle"), better_direction("eval_wer"), better_direction("qloss")
    ('higher', 'lower', 'lower')
    """
    words = [w for w in re.split(r"[^a-z]+", str(name or "").lower()) if w]
    lower = any(w in LOWER_IS_BETTER or w.endswith(_SUFFIXES) for w in words)
    return "lower" if lower else "higher"


def resolve(better: str | None, name) -> str:
    """``better`` when given ("higher"/"lower"), else the guess from ``name`` ("auto"/None)."""
    if better in (None, "auto"):
        return better_direction(name)
    check_choice("better", better, DIRECTIONS + ("auto",))
    return better


def movement(change: float, better: str) -> str:
    """"improving" or "worsening" for a change of this sign."""
    return "improving" if (change > 0) == (better == "higher") else "worsening"
