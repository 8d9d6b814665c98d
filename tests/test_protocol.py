"""The estimator protocol, checked once for every estimator (river's check_estimator is the model).

Every class configured by keyword-only parameters: get_params / clone / repr round-trip, positional
arguments refused, a bad parameter -> InputError naming it.  Every streaming class besides: update_many
equals a loop of update (the same last state and the same result), ``state`` is what the last update
returned, fit(y) equals a replay on a fresh clone followed by result() and leaves a stream in progress
alone, reset() forgets the stream.
"""

import dataclasses
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import swarmstats
from swarmstats import (
    AdaptiveWindow,
    ConvergenceMonitor,
    ConvergenceTest,
    CusumDetector,
    InputError,
    Monitor,
    OnlineRegimeDetector,
    ProxyVarianceTracker,
    RegimeDetector,
    SequentialComparison,
)
from swarmstats._base import Estimator, OnlineEstimator


def _level_shift(rng, n=400):
    return np.r_[rng.normal(0, 1, n // 2), rng.normal(2.5, 1, n - n // 2)]


def _scores(rng, n=400):
    return np.clip(0.5 + 0.2 * rng.standard_normal(n), 0, 1)


#: (estimator with non-default parameters, data maker, a bad parameter and its value)
ONLINE = [
    (ConvergenceMonitor(check_every=60, first_check=40, tolerance_sd=0.5), _level_shift, ("growth", -1.0)),
    (AdaptiveWindow(min_length=15, max_length=120), _level_shift, ("min_length", 5)),
    (CusumDetector(shift=2.0, warmup=50), _level_shift, ("shift", 0.0)),
    (OnlineRegimeDetector(expected_run=100.0, warmup=50), _level_shift, ("threshold", 1.5)),
    (ProxyVarianceTracker(threshold=0.55, window=10), _scores, ("band", 0.9)),
    (SequentialComparison(alpha=0.1, tuned_for=50), _level_shift, ("alpha", 2.0)),
    (SequentialComparison(bounds=(0.0, 1.0), margin=0.05), _scores, ("bounds", (1.0, 0.0))),
]
BATCH = [
    (ConvergenceTest(alpha=0.01, tolerance=0.2), ("max_warmup", 1.5)),
    (RegimeDetector(model="mean", min_size=8), ("min_size", 0)),
    (Monitor(metrics=["reward"], min_steps=50, check_every=100), ("confirmations", 0)),
]
ALL = [(estimator, bad) for estimator, _, bad in ONLINE] + BATCH


def _ids(cases):
    return [type(case[0]).__name__ for case in cases]


def comparable(value):
    """A value as plain data, NaN-safe, for equality: results by to_dict (plus their tables),
    states by their fields, live objects by their attributes."""
    if value is None:
        return None
    if isinstance(value, swarmstats._result.Result):
        out = value.to_dict()
        frame = value.to_frame()
        return (out, frame.to_dict("list"))
    if dataclasses.is_dataclass(value):
        return swarmstats._result.jsonable(value)
    names = getattr(type(value), "__slots__", None) or list(vars(value))
    return {name: _plain(getattr(value, name)) for name in names}


def _plain(item):
    return list(item) if hasattr(item, "__iter__") and not isinstance(item, str) else item


def assert_same(a, b):
    a, b = comparable(a), comparable(b)
    assert _nan_equal(a, b), (a, b)


def _nan_equal(a, b) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_nan_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_nan_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        # vectorised merges (Chan's formula) agree with a loop to rounding, not bit for bit
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b


def _loop(estimator, values):
    return [estimator.update(value) for value in values]


# -- every estimator ---------------------------------------------------------------------------

@pytest.mark.parametrize("estimator,bad", ALL, ids=_ids(ALL))
def test_parameters_round_trip_through_get_params_clone_and_repr(estimator, bad):
    params = estimator.get_params()
    twin = estimator.clone()
    assert type(twin) is type(estimator) and twin is not estimator
    assert _nan_equal(twin.get_params(), params)
    namespace = {name: getattr(swarmstats, name) for name in swarmstats.__all__}
    rebuilt = eval(repr(estimator), namespace)
    assert _nan_equal(rebuilt.get_params(), params)
    assert "=" in repr(estimator)  # the non-default parameters are shown


@pytest.mark.parametrize("estimator,bad", ALL, ids=_ids(ALL))
def test_parameters_are_keyword_only(estimator, bad):
    first = next(iter(estimator.get_params().values()))
    with pytest.raises(TypeError):
        type(estimator)(first)


@pytest.mark.parametrize("estimator,bad", ALL, ids=_ids(ALL))
def test_a_bad_parameter_is_an_input_error_naming_it(estimator, bad):
    name, value = bad
    with pytest.raises(InputError, match=name):
        type(estimator)(**{**estimator.get_params(), name: value})
    with pytest.raises(InputError, match=name):
        estimator.clone(**{name: value})
    with pytest.raises(InputError, match="no parameter"):
        estimator.clone(not_a_parameter=1)


def test_every_streaming_class_is_on_the_list():
    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    listed = {type(estimator) for estimator, _, _ in ONLINE}
    assert set(subclasses(OnlineEstimator)) <= listed
    public = {getattr(swarmstats, name) for name in swarmstats.__all__}
    estimators = {cls for cls in public if isinstance(cls, type) and issubclass(cls, Estimator)}
    assert estimators <= listed | {type(estimator) for estimator, _ in BATCH}


# -- every streaming estimator -----------------------------------------------------------------

@pytest.mark.parametrize("estimator,make,bad", ONLINE, ids=_ids(ONLINE))
def test_update_many_equals_a_loop_of_update(estimator, make, bad):
    values = make(np.random.default_rng(1))
    looped = estimator.clone()
    states = _loop(looped, values)
    assert_same(looped.state, states[-1])
    batched = estimator.clone()
    last = batched.update_many(values)
    assert_same(last, states[-1])
    assert_same(batched.state, last)
    assert_same(batched.result(), looped.result())
    # in pieces too
    pieces = estimator.clone()
    for part in np.array_split(values, 7):
        pieces.update_many(part)
    assert_same(pieces.result(), looped.result())


@pytest.mark.parametrize("estimator,make,bad", ONLINE, ids=_ids(ONLINE))
def test_fit_is_a_replay_on_a_fresh_clone(estimator, make, bad):
    rng = np.random.default_rng(2)
    values, other = make(rng), make(rng)
    replayed = estimator.clone()
    replayed.update_many(values)
    in_progress = estimator.clone()
    in_progress.update_many(other[:150])
    before = comparable(in_progress.result())
    assert_same(in_progress.fit(values), replayed.result())
    # the stream in progress is untouched and goes on from where it was
    assert _nan_equal(comparable(in_progress.result()), before)
    in_progress.update_many(other[150:])
    whole = estimator.clone()
    whole.update_many(other)
    assert_same(in_progress.result(), whole.result())


@pytest.mark.parametrize("estimator,make,bad", ONLINE, ids=_ids(ONLINE))
def test_reset_forgets_the_stream_and_keeps_the_parameters(estimator, make, bad):
    rng = np.random.default_rng(3)
    values = make(rng)
    used = estimator.clone()
    used.update_many(make(rng))
    used.reset()
    assert _nan_equal(used.get_params(), estimator.get_params())
    used.update_many(values)
    fresh = estimator.clone()
    fresh.update_many(values)
    assert_same(used.result(), fresh.result())


@pytest.mark.parametrize("estimator,make,bad", ONLINE, ids=_ids(ONLINE))
def test_results_are_results(estimator, make, bad):
    fitted = estimator.fit(make(np.random.default_rng(4)))
    assert isinstance(fitted, swarmstats._result.Result)
    assert fitted.summary() and isinstance(fitted.to_frame(), pd.DataFrame)
    swarmstats._result.jsonable(fitted.to_dict())


@pytest.mark.parametrize("estimator,make,bad", ONLINE, ids=_ids(ONLINE))
def test_a_non_number_is_an_input_error(estimator, make, bad):
    with pytest.raises(InputError):
        estimator.clone().update(float("nan") if not isinstance(estimator, ProxyVarianceTracker) else 1.5)
    with pytest.raises(InputError):
        estimator.clone().update("abc")
    # many values where one is wanted: named by kind and size, not printed whole (the tracker's
    # message held all 60 scores, and an array raised numpy's "truth value ... is ambiguous")
    for many in ([0.4] * 60, np.full((3, 2), 0.4), pd.Series(np.full(60, 0.4))):
        with pytest.raises(InputError) as caught:
            estimator.clone().update(many)
        assert len(str(caught.value)) < 250 and "0.4, 0.4" not in str(caught.value), str(caught.value)


@pytest.mark.parametrize("cls", [ConvergenceMonitor, CusumDetector, OnlineRegimeDetector])
def test_the_old_state_call_still_works_with_a_warning(cls):
    detector = cls()
    detector.update_many(np.random.default_rng(5).normal(size=30))
    with pytest.warns(DeprecationWarning, match="property"):
        assert detector.state() == detector.state


def test_the_trainer_monitor_resets_and_clones_unfitted():
    rng = np.random.default_rng(6)
    values = rng.normal(size=300)
    used = Monitor(metrics=["reward"], check_every=100)
    for step, value in enumerate(rng.normal(size=200)):
        used.log(step, reward=value)
    twin = used.clone()
    assert twin.status.steps == 0 and twin.status.metrics == {}
    used.reset()
    for monitor in (used, twin):
        for step, value in enumerate(values):
            monitor.log(step, reward=value)
    assert_same(used.status, twin.status)
    assert_same(used.result("reward"), twin.result("reward"))


def test_old_paths_and_names_still_work_for_a_release_with_a_warning():
    import importlib
    import sys

    for module, name in (("swarmstats.report", "build_report"), ("swarmstats.plotting", "downsample")):
        sys.modules.pop(module, None)
        with pytest.warns(DeprecationWarning, match="renamed"):
            assert callable(getattr(importlib.import_module(module), name))
    with pytest.warns(DeprecationWarning, match="renamed scoring"):
        from swarmstats.regimes import metrics
    assert metrics.f1_score is swarmstats.regimes.scoring.f1_score
    monitor = Monitor()
    monitor.log(0, reward=1.0)
    with pytest.warns(DeprecationWarning, match="status property"):
        assert monitor.report().to_dict() == monitor.status.to_dict()
    for old, new in (("ProxyReport", "ProxyResult"), ("QualityReport", "QualityResult"),
                     ("MonitorReport", "MonitorStatus")):
        with pytest.warns(DeprecationWarning, match=f"renamed {new}"):
            assert getattr(swarmstats, old) is getattr(swarmstats, new)
    with pytest.raises(AttributeError):
        swarmstats.NotAName  # noqa: B018


def _modules_after(code: str) -> set:
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", f"{code}\nimport json, sys; print(json.dumps(sorted(sys.modules)))"],
                         check=True, capture_output=True, text=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


EXAMPLE_LOG = Path(__file__).resolve().parents[1] / "examples" / "data" / "reward_log.csv"
HEAVY = {"pandas", "scipy", "scipy.stats", "statsmodels", "matplotlib", "ruptures"}


def test_importing_swarmstats_and_asking_for_help_loads_nothing_heavy():
    """What is imported, not how long it takes (timings are benchmarks/bench_startup.py's job)."""
    assert not HEAVY & _modules_after("import swarmstats")
    assert not HEAVY & _modules_after("import sys\nfrom swarmstats.cli import main\n"
                                      "sys.argv = ['swarmstats', '--help']\n"
                                      "try:\n    main()\nexcept SystemExit:\n    pass")
    # the names are all there, each from its module on first use
    assert "pandas" in _modules_after("import swarmstats\nswarmstats.check_convergence")


def test_checking_a_small_log_never_imports_scipy():
    """A check-convergence run on a 600-row log is mostly start-up: its path uses the
    scipy-free distribution functions and the direct Mann-Kendall count (issue 19)."""
    loaded = _modules_after("import sys\nfrom swarmstats.cli import main\n"
                            f"sys.argv = ['swarmstats', 'check-convergence', {str(EXAMPLE_LOG)!r}]\n"
                            "try:\n    main()\nexcept SystemExit:\n    pass")
    assert "swarmstats.convergence.verdict" in loaded  # the check did run
    assert not {name for name in loaded if name == "scipy" or name.startswith("scipy.")}
    assert "urllib.request" not in loaded  # http, ssl and email: only when an MLflow server is asked
    assert not {"statsmodels", "matplotlib", "ruptures"} & loaded


def test_the_lazy_names_and_the_type_checking_imports_agree():
    import ast
    import inspect

    source = inspect.getsource(swarmstats)
    typed = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for statement in node.body:
                for alias in statement.names:
                    typed.add(alias.name)
                    assert swarmstats._EXPORTS[alias.name] == "." + statement.module
    assert typed == set(swarmstats.__all__)
    for name in swarmstats.__all__:
        assert getattr(swarmstats, name) is not None
    assert "check_convergence" in dir(swarmstats)


def test_no_public_name_is_also_a_module_name():
    """``swarmstats.describe`` was both a function and a module: once the module was imported
    the package attribute was the module, and the lazy name could not win."""
    import pkgutil

    modules = {module.name for module in pkgutil.iter_modules(swarmstats.__path__)}
    assert not modules & set(swarmstats.__all__)


def test_randomised_functions_are_reproducible_by_default():
    """DESIGN: randomised methods are reproducible.  Eight public functions drew from fresh OS
    entropy unless given random_state (best_of's P(truly the best) moved between calls: 0.923,
    0.928); their default is now 0, as the command line's."""
    import inspect

    from swarmstats.sweeps import critical_value

    rng = np.random.default_rng(0)
    runs = {f"r{i}": rng.normal(0.1 * i, 1, 60) for i in range(4)}
    p, accepted = rng.uniform(size=300), rng.uniform(size=300) < 0.5
    calls = {
        swarmstats.best_of: lambda f: f(runs).p_best,
        swarmstats.describe: lambda f: f(runs["r0"]).to_dict(),
        swarmstats.compare_runs: lambda f: f({"a": runs["r0"][:5], "b": runs["r1"][:5]}).to_dict(),
        swarmstats.learning_curves: lambda f: f(list(runs.values())).table.to_dict(),
        swarmstats.quality_metrics: lambda f: f(p, accepted).to_dict(),
        swarmstats.adverse_selection_test: lambda f: f(p, accepted).to_dict(),
        swarmstats.quality_by: lambda f: f(pd.DataFrame({"p": p, "accepted": accepted,
                                                        "epoch": np.arange(300) // 100}), "epoch").to_dict(),
        critical_value: lambda f: f(np.repeat([0.1, 0.2, 0.3, 0.4], 5), np.repeat([0, 0, 1, 1], 5) == 1),
    }
    for function, call in calls.items():
        assert inspect.signature(function).parameters["random_state"].default == 0, function.__name__
        assert repr(call(function)) == repr(call(function)), function.__name__
