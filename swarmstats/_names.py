"""How column and metric names are compared: without case or separators."""

from __future__ import annotations

import re


def normalise(name) -> str:
    """'Total Timesteps' -> 'total_timesteps': names compared without case or separators."""
    return re.sub(r"[\s\-./]+", "_", str(name).strip().lower())
