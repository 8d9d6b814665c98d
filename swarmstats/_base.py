"""The two shapes every analysis class has: ``Estimator`` and ``OnlineEstimator``.

An estimator's parameters are the keyword-only arguments of its ``__init__``,
stored under their own names and checked there (``_validate``), so a bad value
fails where it was written, not at the first ``fit``.  From those names the base
builds ``get_params``, ``clone`` and ``repr`` once for every class.

An online estimator adds the streaming verbs (river's ``update`` / read-a-property
shape, with scikit-learn's ``fit``):

* ``update(x)`` -> the state after one value;
* ``update_many(xs)`` -> the last state, exactly as a loop of ``update`` leaves it;
* ``state`` -> the current state (a property);
* ``result()`` -> the full result of everything seen so far;
* ``reset()`` -> forget the stream, keep the parameters;
* ``fit(y)`` -> replay ``y`` on a fresh clone and return its ``result()``; the
  stream in progress on ``self`` is left alone.

``tests/test_protocol.py`` checks every estimator against this.
"""

from __future__ import annotations

import abc
import inspect
import warnings

import numpy as np

from .errors import InputError

__all__ = ["Estimator", "OnlineEstimator", "CallableState", "Trace", "as_floats", "renamed_names"]


class Estimator:
    """Parameters from the keyword-only ``__init__`` arguments; ``get_params``, ``clone``, ``repr``.

    >>> from swarmstats import ConvergenceTest
    >>> test = ConvergenceTest(alpha=0.01)
    >>> test
    ConvergenceTest(alpha=0.01)
    >>> test.clone(tolerance=0.1)
    ConvergenceTest(alpha=0.01, tolerance=0.1)
    """

    @classmethod
    def _parameter_names(cls) -> tuple[str, ...]:
        signature = inspect.signature(cls.__init__)
        return tuple(name for name, parameter in signature.parameters.items()
                     if parameter.kind is inspect.Parameter.KEYWORD_ONLY)

    @classmethod
    def _parameter_defaults(cls) -> dict:
        signature = inspect.signature(cls.__init__)
        return {name: parameter.default for name, parameter in signature.parameters.items()
                if parameter.kind is inspect.Parameter.KEYWORD_ONLY}

    def _validate(self) -> None:
        """Raise :class:`InputError` naming the first bad parameter (subclasses extend)."""

    def get_params(self) -> dict:
        """The parameters this estimator was configured with, by name."""
        return {name: getattr(self, name) for name in self._parameter_names()}

    def clone(self, **changes):
        """A fresh, unfitted copy with the same parameters (``changes`` replace some)."""
        params = self.get_params()
        unknown = sorted(set(changes) - set(params))
        if unknown:
            raise InputError(f"{type(self).__name__} has no parameter {unknown[0]!r}; "
                             f"its parameters are {', '.join(params)}")
        params.update(changes)
        return type(self)(**params)

    def __repr__(self) -> str:
        defaults = self._parameter_defaults()
        shown = [f"{name}={value!r}" for name, value in self.get_params().items()
                 if not same_value(value, defaults.get(name, inspect.Parameter.empty))]
        return f"{type(self).__name__}({', '.join(shown)})"


class OnlineEstimator(Estimator, abc.ABC):
    """The streaming protocol (see the module docstring).  Subclasses implement
    ``_start_stream`` (the empty stream), ``update``, ``state`` and ``result`` (a class missing
    one cannot be instantiated); ``update_many`` may be overridden by a vectorised version with
    the same outcome."""

    @abc.abstractmethod
    def _start_stream(self) -> None:
        """Set up the empty stream (called by ``__init__`` and :meth:`reset`)."""

    @abc.abstractmethod
    def update(self, x):
        """Add one value; returns the state after it."""

    @property
    @abc.abstractmethod
    def state(self):
        """The state after the latest update."""

    @abc.abstractmethod
    def result(self):
        """The full result of everything seen so far."""

    def update_many(self, xs):
        """Add many values in order; returns the last state (the same as a loop of ``update``)."""
        for x in as_floats(xs):
            self.update(x)
        return self.state

    def reset(self) -> None:
        """Forget every value seen; the parameters stay."""
        self._start_stream()

    def fit(self, y):
        """The result of replaying ``y`` on a fresh clone (this stream is left as it is)."""
        fresh = self.clone()
        fresh.update_many(y)
        return fresh.result()


class CallableState:
    """Mixin for state classes that used to be returned by a ``state()`` method.

    ``state`` is now a property; calling the state it returns still works for one
    release, with a :class:`DeprecationWarning`."""

    def __call__(self):
        warnings.warn("state is a property now: write .state, not .state; the call form "
                      "will be removed in the next release", DeprecationWarning, stacklevel=2)
        return self


class Trace:
    """A growing float array with amortised O(1) appends (a stream's history, for results).

    >>> trace = Trace()
    >>> trace.extend([1.0, 2.0]); trace.append(3.0)
    >>> trace.values
    array([1., 2., 3.])
    """

    def __init__(self, capacity: int = 256):
        self._data = np.empty(max(int(capacity), 1))
        self._n = 0

    def __len__(self) -> int:
        return self._n

    def append(self, value: float) -> None:
        if self._n == len(self._data):
            self._grow(self._n + 1)
        self._data[self._n] = value
        self._n += 1

    def extend(self, values) -> None:
        values = np.asarray(values, dtype=np.float64).ravel()
        needed = self._n + len(values)
        if needed > len(self._data):
            self._grow(needed)
        self._data[self._n:needed] = values
        self._n = needed

    @property
    def values(self) -> np.ndarray:
        """A read-only view of what was appended (copy it to keep it past later appends)."""
        view = self._data[:self._n]
        view.flags.writeable = False
        return view

    def release(self) -> np.ndarray:
        """What was appended, as a writable array the caller now owns (no copy when the
        capacity was about right); the trace is empty afterwards.

        >>> trace = Trace(capacity=3)
        >>> trace.extend([1.0, 2.0, 3.0])
        >>> trace.release(), len(trace)
        (array([1., 2., 3.]), 0)
        """
        data = self._data[:self._n]
        if len(self._data) > 1.25 * self._n:
            data = data.copy()  # do not keep the unused capacity alive
        self._data, self._n = np.empty(1), 0
        return data

    def _grow(self, needed: int) -> None:
        grown = np.empty(max(needed, 2 * len(self._data)))
        grown[:self._n] = self._data[:self._n]
        self._data = grown


def renamed_names(module: str, renames: dict):
    """A module ``__getattr__`` serving old names for one release: ``renames`` maps each old
    name to a callable returning the new object (imported lazily, so no cycle is created).

    >>> import swarmstats
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     swarmstats.ProxyReport is swarmstats.ProxyResult
    True
    >>> str(caught[0].message)
    'swarmstats.ProxyReport is renamed ProxyResult; the old name will be removed in the next release'
    """

    def __getattr__(name: str):
        if name not in renames:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        new = renames[name]()
        warnings.warn(f"{module}.{name} is renamed {new.__name__.rsplit('.', 1)[-1]}; the old name will be removed in the "
                      "next release", DeprecationWarning, stacklevel=2)
        return new

    return __getattr__


def as_floats(xs) -> np.ndarray:
    """``xs`` as a flat float array, with a clear error for what is not numbers."""
    try:
        values = np.asarray(xs, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise InputError(f"xs: expected numbers, got {type(xs).__name__}") from None
    return values


def same_value(value, default) -> bool:
    """A parameter equal to its default (same type), arrays and odd values never."""
    if value is default:
        return True
    try:
        return bool(value == default) and type(value) is type(default)
    except (TypeError, ValueError):  # arrays and other values without a plain truth
        return False
