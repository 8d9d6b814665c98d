"""Reading logs into tables.  One entry point, :func:`read_table`; one module per
family of formats (only tabular text so far)."""

from .tabular import FORMATS, classify_columns, read_table, select_metric

__all__ = ["read_table", "classify_columns", "select_metric", "FORMATS"]
