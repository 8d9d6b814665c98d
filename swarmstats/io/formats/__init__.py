"""One module per family of training-log formats.  Each parser returns a ``LogTable``: a wide
frame with a ``step`` column (and ``run`` / ``wall_time`` where the format has them) and one
column per metric."""
