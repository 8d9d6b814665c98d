"""Numerical kernels shared by the estimators: numpy in, numpy out.

Nothing here validates user input, reads files or knows about pandas; the
public functions in :mod:`swarmstats.diagnostics` and friends do that and
call these.
"""
