"""Exceptions raised by swarmstats.

Every problem with what the user passed in is an :class:`InputError`, a
``ValueError`` whose message names the argument, what was expected and what
was received.  The command line turns it into one line on stderr and exit 2.
"""


class SwarmstatsError(Exception):
    """Base class of every exception swarmstats raises on purpose."""


class InputError(SwarmstatsError, ValueError):
    """The input cannot be analysed as given (wrong shape, type, column, NaN ...)."""


class MissingDependency(SwarmstatsError, ImportError):
    """An optional dependency (a trainer, a log reader, a backend) is not installed; the
    message names the extra that installs it.  The command line exits 2 on it."""


def require(module: str, extra: str, needed_for: str):
    """Import ``module`` or raise :class:`MissingDependency` with the install hint.

    >>> require("math", "none", "arithmetic").sqrt(4.0)
    2.0
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingDependency(f"{needed_for} needs {module.split('.')[0]}: "
                                f"pip install 'swarmstats[{extra}]'") from None


class NoValues(InputError):
    """A metric with no value at all (every cell empty): in a log of several runs, a run that
    never logged it, which callers skip rather than report."""


class DivergedAtStart(NoValues):
    """A metric infinite or NaN (as written) from its first value on: a run that diverged
    before logging a finite value.  ``divergence`` is its record, as
    :func:`swarmstats.io.select_metric` gives one (``"from_start": True``).  Callers judging
    several runs count such a run as diverged; those that skip a run without the metric skip
    it too, and say why."""

    def __init__(self, message: str, divergence: dict):
        super().__init__(message)
        self.divergence = divergence

    def __reduce__(self):  # (raised in a sweep's worker process, it pickles with its record)
        return type(self), (str(self), self.divergence)


def check_choice(name: str, value, choices) -> None:
    """Raise InputError unless ``value`` is one of ``choices``, naming the argument.

    >>> check_choice("method", "bulk", ("bulk", "tail"))
    >>> check_choice("method", "median", ("bulk", "tail"))
    Traceback (most recent call last):
    ...
    swarmstats.errors.InputError: method must be one of ('bulk', 'tail'), got 'median'
    """
    if value not in choices:
        raise InputError(f"{name} must be one of {tuple(choices)}, got {value!r}")


# -- parameter checks shared by every estimator's _validate ------------------------------------

def is_real(value) -> bool:
    """A real number (not a bool, not a string), NaN and inf included.

    >>> is_real(2), is_real(2.5), is_real(True), is_real("2")
    (True, True, False, False)
    """
    import numbers

    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_positive(name: str, value) -> None:
    """Raise InputError unless ``value`` is a finite number above 0, naming the argument."""
    if not (is_real(value) and value == value and value > 0 and value != float("inf")):
        raise InputError(f"{name} must be a positive number, got {value!r}")


def check_count(name: str, value, minimum: int = 1) -> None:
    """Raise InputError unless ``value`` is an integer >= ``minimum``, naming the argument.

    >>> check_count("lag", 0, minimum=0)
    >>> check_count("horizon", 2.5)
    Traceback (most recent call last):
    ...
    swarmstats.errors.InputError: horizon must be an integer >= 1, got 2.5
    """
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise InputError(f"{name} must be an integer >= {minimum}, got {value!r}")


#: How close to 0 or 1 a level may come: 1 - 1e-300 is 1 in float64, so a test at
#: alpha = 1e-300 had an infinite critical value, and the adaptive window, given one, reported
#: 28 "changes" in 600 points where alpha = 1e-12 reports none
LEVEL_MARGIN = 1e-12


def check_level(level, name: str = "ci") -> float:
    """A probability strictly between 0 and 1 (a confidence or significance level), at least
    :data:`LEVEL_MARGIN` from either."""
    if not is_real(level):
        raise InputError(f"{name} must be a number between 0 and 1, got {shown(level)}")
    level = float(level)
    if not 0 < level < 1:
        raise InputError(f"{name} must be strictly between 0 and 1 (e.g. {_example(name)}), got {level:g}")
    if not LEVEL_MARGIN <= level <= 1 - LEVEL_MARGIN:
        raise InputError(f"{name} must lie between {LEVEL_MARGIN:g} and 1 - {LEVEL_MARGIN:g}, got {level:g}: "
                         "closer to 0 or 1 the tests' quantiles are not finite in float64")
    return level


def _example(name: str) -> str:
    return "0.05" if "alpha" in name else "0.95"


def shown(x) -> str:
    """``x`` as an error message quotes it: a scalar's repr, a sequence by its kind and size
    (a list of 60 scores printed whole buried the message that one number was wanted)."""
    size = getattr(x, "shape", None)
    if size is not None and size != ():
        kind = "array" if type(x).__name__ == "ndarray" else type(x).__name__
        return f"{'an' if kind[0].lower() in 'aeiou' else 'a'} {kind} of shape {tuple(size)}"
    if size == () and hasattr(x, "item"):
        x = x.item()  # a numpy scalar as the number it holds, not "np.float64(1.5)"
    if isinstance(x, (list, tuple, dict, set)):
        return f"a {type(x).__name__} of {len(x)} item(s)"
    text = repr(x)
    return text if len(text) <= 80 else text[:77] + "..."


def finite_number(x, name: str = "x") -> float:
    """``x`` as a float, or InputError when it is not a finite number.

    >>> finite_number([0.2, 0.5], "p")
    Traceback (most recent call last):
    ...
    swarmstats.errors.InputError: p: expected a finite number, got a list of 2 item(s)
    >>> import numpy as np
    >>> shown(np.float64(1.5)), shown(np.zeros((2, 3)))
    ('1.5', 'an array of shape (2, 3)')
    """
    try:
        value = float(x)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected a finite number, got {shown(x)}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise InputError(f"{name}: expected a finite number, got {shown(x)}")
    return value
