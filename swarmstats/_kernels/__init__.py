"""Numerical kernels shared by the estimators: numpy in, numpy out.

Nothing here validates user input, raises swarmstats' errors, reads files or knows about
pandas: the estimators check what they are given (:mod:`swarmstats._input`) and call these.
Each module is named for what it computes (``mann_kendall``, ``truncation``,
``stationary_tests``, ``verdict_tests`` ...), never after a public module.
"""
