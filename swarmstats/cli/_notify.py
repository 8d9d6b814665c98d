"""Posting verdict changes to a webhook (``watch --notify URL``).

Each message is one JSON object with a ``text`` field - what a Slack (or Mattermost, Discord's
Slack-compatible endpoint, Teams workflow) incoming webhook shows - and the event's fields
beside it for anything that reads JSON.  Posting happens on a background thread, so a slow or
dead endpoint never holds up the watch; a failed post is retried with a growing pause, then
reported once on stderr, and the watch goes on.  At the end the pending messages are given a
bounded time to go out.  Only the standard library is used (urllib).
"""

from __future__ import annotations

import json
import queue
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request

from .._result import jsonable
from ..errors import InputError

#: tries per message, the first pause between them (doubling), and each request's timeout
ATTEMPTS, FIRST_PAUSE, TIMEOUT = 3, 0.5, 5.0
#: how long the end of a watch waits for messages still being sent
FLUSH_SECONDS = 30.0


def check_url(url: str) -> str:
    """An http(s) URL with a host, or an InputError (exit 2) before the watch starts."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InputError(f"--notify needs an http:// or https:// URL, got {url!r}")
    return url


class Notifier:
    """Sends each :meth:`send` payload to ``url`` as JSON, in order, from one background thread."""

    def __init__(self, url: str, *, attempts: int = ATTEMPTS, pause: float = FIRST_PAUSE,
                 timeout: float = TIMEOUT):
        self.url = check_url(url)
        self.attempts, self.pause, self.timeout = attempts, pause, timeout
        self.sent = 0
        self.failed = 0
        self._queue: queue.Queue = queue.Queue()
        self._closing = threading.Event()
        self._thread = threading.Thread(target=self._run, name="swarmstats-notify", daemon=True)
        self._thread.start()

    def send(self, payload: dict) -> None:
        self._queue.put(payload)

    def close(self, wait: float = FLUSH_SECONDS) -> None:
        """Send what is queued (for at most ``wait`` seconds), then stop the thread."""
        self._queue.put(None)
        self._thread.join(wait)
        self._closing.set()  # a post still retrying after that gives up at its next pause

    def _run(self) -> None:
        while True:
            payload = self._queue.get()
            if payload is None:
                return
            error = self._post(payload)
            if error is None:
                self.sent += 1
                continue
            self.failed += 1
            if self.failed == 1:  # said once; the count is in the summary
                print(f"swarmstats: --notify: could not post to {self.url} ({error}) after "
                      f"{self.attempts} attempt(s); the watch goes on", file=sys.stderr, flush=True)

    def _post(self, payload: dict) -> str | None:
        """None when delivered, else why not (after every attempt)."""
        body = json.dumps(payload).encode("utf-8")
        error = "not tried"
        for attempt in range(self.attempts):
            if attempt and self._closing.wait(self.pause * 2 ** (attempt - 1)):
                break  # the watch has ended and its flush time is over
            request = urllib.request.Request(self.url, data=body, method="POST",
                                             headers={"Content-Type": "application/json",
                                                      "User-Agent": "swarmstats-watch"})
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    response.read()
                return None
            except urllib.error.HTTPError as exc:
                error = f"HTTP {exc.code}"
                if 400 <= exc.code < 500 and exc.code not in (408, 429):
                    break  # the endpoint refuses this message: trying again will not help
            except (urllib.error.URLError, OSError, ValueError) as exc:
                reason = getattr(exc, "reason", exc)
                error = str(reason) or type(exc).__name__
        return error


def message(event: dict, source: str) -> dict:
    """The webhook payload of one watch event: Slack's ``text`` plus the event's fields."""
    return jsonable({"text": f"swarmstats watch {source}: {event['message']}", "source": source,
                     **{key: value for key, value in event.items() if key != "message"}})
