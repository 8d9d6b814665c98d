"""swarmstats: honest statistics for noisy reward and score time series."""
