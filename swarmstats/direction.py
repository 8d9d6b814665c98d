"""Which way is better for a metric: one rule for every command and estimator.

Losses, errors, perplexity, toxicity, WER/CER, regret, costs ... are better when lower;
diagnostics - a gradient norm, an entropy, a KL divergence, an episode length, a clipping share,
a spread - have no better side (an SB3 monitor's episode length ``l`` is longer when CartPole
improves and shorter when MountainCar does; a policy's KL from its reference grows as it
learns, and a VAE's KL term collapsing to 0 is a failure), so what describes them says
"rising" or "falling", never "improving";
everything else (rewards, returns, accuracies, scores) is better when higher.  A name is split
into words (``train/loss`` -> train, loss; ``eval_wer`` -> eval, wer; CamelCase too, as Spinning
Up, rllab and garage write them: ``LossV`` -> loss, v; ``AverageEpCost`` -> average, ep, cost) so
that ``kl`` matches ``approx_kl`` but not ``ankle``; a ``kl_loss`` is a loss.  ``better=`` /
``--better`` overrides the guess.
"""

from __future__ import annotations

import re

from ._names import metric_part
from .errors import check_choice

DIRECTIONS = ("higher", "lower")
#: words that make a metric lower-is-better (a word may also end in them: vf_loss, qloss)
LOWER_IS_BETTER = ("loss", "error", "err", "errors", "perplexity", "ppl", "toxicity",
                   "toxic", "wer", "cer", "regret", "mse", "mae", "rmse", "nll", "cost", "costs",
                   "penalty", "latency", "violations", "harm")
_SUFFIXES = ("loss", "error")
#: words of a diagnostic with no better side (unless a lower-is-better word is there too:
#: ``entropy_loss``): gradient norms, entropies, episode and completion lengths, clipping
#: shares, spreads, temperatures (d3rlpy's ``temp``) and coefficients, entropies as Dreamer
#: names them (``actor_ent``, ``prior_ent``), scales (d3rlpy's
#: ``value_scale``: how large the Q-values are), the share of episodes a termination ended
#: (Isaac Lab's ``Episode_Termination/base_contact``, a fall, beside ``.../time_out``), KL divergences (PPO's ``approx_kl``,
#: GRPO's ``kl``: how far an update or the policy moved, watched, not minimised), advantage
#: estimates (centred on 0 by construction: verl's ``critic/advantages/mean``), value
#: estimates (pymarl's ``q_taken_mean``, Spinning Up's ``AverageVVals`` and ``Q1Vals``: they
#: grow with over-estimation too), where an update stopped early (Spinning Up PPO's
#: ``StopIter``: its KL limit reached), differences between two measurements (verl's
#: ``training/rollout_probs_diff_mean``: how far the rollout engine's probabilities are from
#: the trainer's, watched; a falling one read "worsened"), a simulation's inequality (Mesa's
#: ``Gini`` of the agents' wealth: the outcome studied, not a score to raise)
NEITHER = ("norm", "entropy", "ent", "len", "length", "lengths", "seqlen", "clipped", "clipfrac", "std",
           "temperature", "coef", "coeff", "kl", "kld", "divergence", "advantage", "advantages",
           "q", "qvalue", "qvalues", "vals", "diff", "difference", "mismatch", "discrepancy", "stop",
           "temp", "scale", "termination", "gini", "inequality")
#: a spread: no better side even of a cost or a loss (Spinning Up's ``StdEpCost``; skrl's
#: ``Policy / Standard deviation``, the exploration noise; a hand-written loop's ``σ`` of its
#: last 100 returns)
_SPREADS = {"std", "stddev", "stdev", "deviation", "σ"}
#: an episode's length counted in steps (skrl's ``Episode / Total timesteps (mean)``): a
#: diagnostic like SB3's ``ep_len_mean``
_EPISODE_WORDS = {"episode", "ep"}
_STEP_WORDS = {"timesteps", "steps"}
#: a clipping share (``clip_fraction``, ``clip_ratio``); ``clip_score`` (an image model's CLIP
#: score) is a score
_CLIP_SHARES = {"fraction", "frac", "ratio"}
#: whole names that are diagnostics: an SB3 monitor's episode length, pymarl's mean TD target
NEITHER_NAMES = ("l", "target_mean")
#: one's own side's losses in a multi-agent battle (SMAC's ``dead_allies_mean``): fewer is
#: better, where the enemies' (``dead_enemies_mean``) are a score
_OWN_LOSSES = {"allies", "ally"}
_REWARD_WORDS = {"reward", "rewards"}
#: words naming what is measured of each episode or update: how well the run does (a return, a
#: score, an accuracy, a loss) or an episode's length
_MEASUREMENT_WORDS = {"reward", "rewards", "rew", "return", "returns", "ret", "score", "scores", "accuracy",
                      "acc", "success", "win", "winrate", "length", "len", "lengths", *LOWER_IS_BETTER}
#: words that make such a name a count of something done so far (``num_success``, Safety Gym's
#: ``CumulativeCost``) or of what there is (a simulation's ``count sheep``, ``n_agents``)
_COUNTING_WORDS = {"num", "n", "nb", "count", "counts", "cum", "cumulative", "number", "population"}


#: where a CamelCase name starts a word: a capital after a small letter or digit (``LossV``,
#: ``Q1Vals``), or the last capital of a run before a small letter (``VVals``, ``MSELoss``)
_CAMEL_BREAK = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def split_camel(name) -> str:
    """A CamelCase name with its words parted by ``_``; other names unchanged.  Spinning Up's
    and rllab's logs name their columns so (a real Safety Gym run's ``AverageEpCost`` read
    "higher is better", so a falling cost "still worsening").

    >>> split_camel("AverageEpCost"), split_camel("AverageVVals"), split_camel("MSELoss"), split_camel("ep_rew_mean")
    ('Average_Ep_Cost', 'Average_V_Vals', 'MSE_Loss', 'ep_rew_mean')
    """
    return _CAMEL_BREAK.sub("_", str(name))


#: the last part of a name that is an entropy alone (``Loss/entropy``, ``mean_entropy``)
_ENTROPY_LEAF = re.compile(r"(?i)(mean[ _]?)?entropy")


def _words(name) -> list:
    # (Greek letters are words too: a printed loop names its spread σ)
    return [w for w in re.split(r"[^a-zα-ω]+", split_camel(metric_part(name)).lower()) if w]


#: a name's words that say the data were held out of training, and those that say a score of
#: the model's quality on them (what a checkpoint is kept for)
_HELD_OUT_WORDS = {"eval", "evaluation", "val", "valid", "validation", "test", "testing"}
#: whole names that are an evaluation's score by a library's convention: d3rlpy logs the return
#: of its policy run in the environment (its EnvironmentEvaluator, v1's evaluate_on_environment)
#: as ``environment`` (a real DiscreteBCQ run peaked at ~62 and settled near 14)
_EVALUATION_NAMES = {"environment"}
_SCORE_WORDS = {"loss", "accuracy", "acc", "reward", "rewards", "return", "returns", "ret", "score", "success",
                "f", "bleu", "rouge", "perplexity", "ppl", "win", "won", "wer", "cer", "auc", "map", "error", "err"}


def is_held_out_score(name) -> bool:
    """Does ``name`` say a score of the model measured on held-out data - an evaluation, a
    validation, a test - the figure a checkpoint is kept for?  A training loss or a diagnostic
    (``train/grad_norm``, ``test/mean_Q``) is not one.

    >>> is_held_out_score("eval_loss"), is_held_out_score("TestEpRet"), is_held_out_score("test_battle_won_mean [run=1]")
    (True, True, True)
    >>> is_held_out_score("loss"), is_held_out_score("test/mean_Q"), is_held_out_score("train/grad_norm")
    (False, False, False)
    >>> is_held_out_score("environment [run=DiscreteBCQ_breakout_5]")   # d3rlpy's evaluation return
    True
    """
    words = set(_words(name))
    if metric_part(name).strip() in _EVALUATION_NAMES:
        return True
    return bool(words & _HELD_OUT_WORDS) and bool(words & _SCORE_WORDS)


def guessed_direction(name) -> str | None:
    """"lower" for losses, errors, toxicity ..., None for a diagnostic with no better side,
    else "higher".

    >>> guessed_direction("train/loss"), guessed_direction("reward"), guessed_direction("grad_norm")
    ('lower', 'higher', None)
    >>> guessed_direction("l"), guessed_direction("rollout/ep_len_mean"), guessed_direction("cross_entropy")
    (None, None, 'lower')
    >>> guessed_direction("train/clip_fraction"), guessed_direction("clip_score")
    (None, 'higher')
    >>> guessed_direction("dead_allies_mean"), guessed_direction("dead_enemies_mean"), guessed_direction("q_taken_mean")
    ('lower', 'higher', None)
    >>> guessed_direction("reward [run=low_loss_lr]"), guessed_direction("l [run=a2c-CartPole-v1]")
    ('higher', None)
    >>> guessed_direction("training/rollout_probs_diff_mean"), guessed_direction("loss_diff")
    (None, 'lower')
    >>> guessed_direction("AverageEpCost"), guessed_direction("LossV"), guessed_direction("AverageEpRet")
    ('lower', 'lower', 'higher')
    >>> guessed_direction("StdEpRet"), guessed_direction("StdEpCost"), guessed_direction("AverageVVals"), guessed_direction("LogPi")
    (None, None, None, None)
    >>> guessed_direction("rewards/rejected"), guessed_direction("rewards/chosen"), guessed_direction("logps/chosen")
    ('lower', 'higher', None)
    >>> guessed_direction("Episode / Total timesteps (mean)"), guessed_direction("Policy / Standard deviation")
    (None, None)
    >>> guessed_direction("Loss/entropy"), guessed_direction("Loss/value_function"), guessed_direction("entropy_loss")
    (None, 'lower', 'lower')
    >>> guessed_direction("count wolves"), guessed_direction("n_agents"), guessed_direction("num_success")
    (None, None, 'higher')
    >>> guessed_direction("σ [run=HC]"), guessed_direction("return_stdev")
    (None, None)
    """
    words = _words(name)
    if _SPREADS & set(words):  # how widely a cost or loss varies is watched, not minimised
        return None
    if _ENTROPY_LEAF.fullmatch(str(metric_part(name)).rsplit("/", 1)[-1].strip()):
        # an entropy filed among the losses (rsl_rl's Loss/entropy, the entropy its PPO
        # returns under the losses' key) is the entropy, not a loss: as "losses/entropy"
        return None
    if (any(w in LOWER_IS_BETTER or w.endswith(_SUFFIXES) for w in words) or {"cross", "entropy"} <= set(words)
            or ("dead" in words and bool(_OWN_LOSSES & set(words)))
            # the implicit reward of the rejected completion, which TRL's DPO-style trainers
            # (DPO, IPO, ORPO, CPO, KTO) log as rewards/rejected: training pushes it down (a
            # falling one read "still worsening")
            or ("rejected" in words and bool(_REWARD_WORDS & set(words)))):
        return "lower"
    clipping = "clip" in words and bool(_CLIP_SHARES & set(words))
    # a policy's log-probability (Spinning Up SAC's LogPi): an entropy's other face; the
    # log-probabilities and logits of the chosen and rejected completions that TRL's
    # preference trainers log (logps/chosen, logits/rejected) are watched for their drift
    # (the chosen one falling too is the known "likelihood displacement"), not maximised
    log_prob = ({"log", "pi"} <= set(words) or "logp" in words or "logpi" in words or "logps" in words
                or "logits" in words)
    episode_length = bool(_EPISODE_WORDS & set(words)) and bool(_STEP_WORDS & set(words))
    # a count with nothing measured in it - a simulation's population (NetLogo's ``count wolves``,
    # a Mesa model's ``n_agents``), a trainer's tally of episodes or tokens: more is neither
    # better nor worse (Wolf Sheep's falling wolf count read "worsening now"); a count of
    # successes or a cumulative reward keeps its side
    counted = bool(_COUNTING_WORDS & set(words)) and not _MEASUREMENT_WORDS & set(words)
    if (clipping or log_prob or episode_length or counted or any(w in NEITHER or w.endswith("norm") for w in words)
            or metric_part(name).strip().lower() in NEITHER_NAMES):
        return None
    return "higher"


def is_measurement_name(name) -> bool:
    """Does ``name`` say it measures each episode or update (how well the run does - a return,
    a score, an accuracy, a loss - or an episode's length) rather than count what the run has
    done so far?  Such a column is a metric whatever its shape: a CartPole return is whole
    numbers, and an evaluation's that rose at every check was left out as "a counter" (integers
    going up at 90% of rows), the run's one metric with it; its episode lengths likewise.

    >>> is_measurement_name("episodic_return"), is_measurement_name("AverageEpRet"), is_measurement_name("eval/acc")
    (True, True, True)
    >>> is_measurement_name("evaluator/episode_length"), is_measurement_name("evaluator/evaluator_steps")
    (True, False)
    >>> is_measurement_name("epoch_n"), is_measurement_name("num_success"), is_measurement_name("CumulativeCost")
    (False, False, False)
    """
    words = set(_words(name))
    return bool(words & _MEASUREMENT_WORDS) and not words & _COUNTING_WORDS


def better_direction(name) -> str:
    """"lower" for losses, errors, toxicity ..., else "higher" (a diagnostic included: what
    ranks runs needs a side, and the user's ``better=`` gives the right one).

    >>> better_direction("train/loss"), better_direction("reward"), better_direction("kl_loss")
    ('lower', 'higher', 'lower')
    >>> better_direction("ankle_angle"), better_direction("eval_wer"), better_direction("qloss")
    ('higher', 'lower', 'lower')
    """
    return guessed_direction(name) or "higher"


def resolve(better: str | None, name) -> str:
    """``better`` when given ("higher"/"lower"), else the guess from ``name`` ("auto"/None)."""
    if better in (None, "auto"):
        return better_direction(name)
    check_choice("better", better, DIRECTIONS + ("auto",))
    return better


def sense(better: str | None, name) -> str | None:
    """Like :func:`resolve`, but None for a diagnostic whose side was not given: for what
    describes a movement ("improving" or only "rising"), not for what ranks runs.

    >>> sense("auto", "grad_norm"), sense("lower", "grad_norm"), sense("auto", "reward")
    (None, 'lower', 'higher')
    """
    if better in (None, "auto"):
        return guessed_direction(name)
    return resolve(better, name)


def movement(change: float, better: str | None) -> str:
    """"improving" or "worsening" for a change of this sign; "rising" or "falling" when
    neither side is better (``better`` None)."""
    if better is None:
        return "rising" if change > 0 else "falling"
    return "improving" if (change > 0) == (better == "higher") else "worsening"
