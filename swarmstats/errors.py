"""Exceptions raised by swarmstats.

Every problem with what the user passed in is an :class:`InputError`, a
``ValueError`` whose message names the argument, what was expected and what
was received.  The command line turns it into one line on stderr and exit 2.
"""


class SwarmstatsError(Exception):
    """Base class of every exception swarmstats raises on purpose."""


class InputError(SwarmstatsError, ValueError):
    """The input cannot be analysed as given (wrong shape, type, column, NaN ...)."""


class NoValues(InputError):
    """A metric with no value at all (every cell empty): in a log of several runs, a run that
    never logged it, which callers skip rather than report."""


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
