"""Changepoint-based regime detection (issue 3, in progress).

So far: the segment costs and an exact PELT (:mod:`.costs`, :mod:`.pelt`).
The public ``detect_regimes`` / ``RegimeDetector`` API, penalties, merging by
``min_effect``, the penalty path and the online detectors are still to come.
"""
