"""Reading logs into tables.  One entry point, :func:`read_table`; one module per
family of formats (io.formats), SWARM interaction records (io.swarm)."""

from .logs import LOG_FORMATS, read_log
from .swarm import read_interactions
from .tabular import FORMATS, classify_columns, read_table, select_metric

__all__ = ["read_log", "read_table", "read_interactions", "classify_columns", "select_metric",
           "FORMATS", "LOG_FORMATS"]
