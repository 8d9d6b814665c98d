"""Exceptions raised by swarmstats.

Every problem with what the user passed in is an :class:`InputError`, a
``ValueError`` whose message names the argument, what was expected and what
was received.  The command line turns it into one line on stderr and exit 2.
"""


class SwarmstatsError(Exception):
    """Base class of every exception swarmstats raises on purpose."""


class InputError(SwarmstatsError, ValueError):
    """The input cannot be analysed as given (wrong shape, type, column, NaN ...)."""
