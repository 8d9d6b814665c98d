"""Following a log while it grows, for ``swarmstats watch``: each poll hands on the records
added since the last one.  :class:`Follower` reads a file being appended to,
:class:`DocumentFollower` a document or run folder rewritten whole, :class:`ServerFollower` a
run on an MLflow tracking server; each reports what went wrong on the way (a rotated or
removed file, bad lines, a server that stops answering) as events instead of stopping."""

from .documents import DocumentFollower, is_document
from .lines import MAX_LINE, SHOWN_SKIPS, Follower
from .printed import LATE
from .server import ServerFollower

__all__ = ["Follower", "DocumentFollower", "ServerFollower", "is_document", "LATE", "MAX_LINE",
           "SHOWN_SKIPS"]
