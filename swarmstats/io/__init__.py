"""Reading logs into tables.  One entry point, :func:`read_table`; one module per
family of formats (io.formats), SWARM interaction records (io.swarm)."""

from .columns import classify_columns
from .logs import LOG_FORMATS, read_log
from .metric import select_metric
from .swarm import read_interactions
from .tabular import FORMATS, read_table

__all__ = ["read_log", "read_table", "read_interactions", "classify_columns", "select_metric",
           "FORMATS", "LOG_FORMATS"]
