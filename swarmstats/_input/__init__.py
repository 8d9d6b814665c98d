"""The one input contract: what every estimator accepts and how it says no.

* :mod:`.series` - one run or several (arrays, lists, pandas, a long frame with a group column),
  non-finite values under ``nan_policy``, the step axis;
* :mod:`.interactions` - scores p in [0, 1], accept flags, the interaction arrays of the
  quality metrics, agent and cluster columns;
* :mod:`.random_state` - ``random_state`` as a numpy Generator.

Everything here raises :class:`swarmstats.InputError` naming the argument; the kernels in
:mod:`swarmstats._kernels` trust what they are given.
"""
