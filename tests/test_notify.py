"""`watch --notify URL` against a real local HTTP server: one JSON post per verdict change,
retries on a failing endpoint, and a dead endpoint never stops the watch."""

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from tests.test_cli import run


class _Hook:
    """A webhook on localhost that records the posts and answers with the statuses it is given."""

    def __init__(self, statuses=()):
        self.posts, self.statuses = [], list(statuses)
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                status = hook.statuses.pop(0) if hook.statuses else 200
                if status == 200:
                    hook.posts.append((self.headers["Content-Type"], json.loads(body)))
                self.send_response(status)
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def log(tmp_path):
    rng = np.random.default_rng(9)
    path = tmp_path / "train.jsonl"
    path.write_text("".join(json.dumps({"step": i, "reward": float(0.5 + 0.05 * rng.normal())}) + "\n"
                            for i in range(400)))
    return path


def _verdict_events(stdout):
    return [json.loads(line) for line in stdout.splitlines()
            if line.startswith("{") and '"event": "verdict"' in line]


def test_each_verdict_change_is_posted_once_as_slack_compatible_json(log):
    hook = _Hook()
    try:
        done = run("watch", log, "--once", "--format", "json", "--notify", hook.url)
    finally:
        hook.close()
    assert done.returncode == 0, done.stderr
    events = _verdict_events(done.stdout)
    assert events and len(hook.posts) == len(events)
    for (content_type, post), event in zip(hook.posts, events):
        assert content_type == "application/json"
        assert post["text"].startswith(f"swarmstats watch {log}: step ")
        assert (post["metric"], post["verdict"], post["step"]) == (event["metric"], event["verdict"], event["step"])
    summary = json.loads(done.stdout[done.stdout.index('{\n'):])
    assert summary["notifications"] == {"sent": len(events), "failed": 0}


def test_a_failing_endpoint_is_retried(log):
    hook = _Hook(statuses=[503, 500])  # two failures, then the endpoint recovers
    try:
        done = run("watch", log, "--once", "--notify", hook.url)
    finally:
        hook.close()
    assert done.returncode == 0, done.stderr
    assert len(hook.posts) >= 1 and "failed" not in done.stderr
    assert ", 0 failed" in done.stdout


def test_a_dead_or_refusing_endpoint_never_stops_the_watch(log):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}/hook"
    done = run("watch", log, "--once", "-m", "reward", "--notify", dead)
    assert done.returncode == 0
    assert "--notify: could not post" in done.stderr and "the watch goes on" in done.stderr
    assert done.stderr.count("could not post") == 1  # said once, counted in the summary
    assert "0 sent" in done.stdout and "reward" in done.stdout
    hook = _Hook(statuses=[400] * 50)  # a refused message is not retried
    try:
        done = run("watch", log, "--once", "-m", "reward", "--notify", hook.url)
    finally:
        hook.close()
    assert done.returncode == 0 and "HTTP 400" in done.stderr and not hook.posts


@pytest.mark.parametrize("url", ["ftp://example.org/hook", "not a url", "http://"])
def test_a_bad_url_is_a_usage_error(log, url):
    done = run("watch", log, "--once", "--notify", url)
    assert done.returncode == 2 and "--notify needs an http:// or https:// URL" in done.stderr
    assert "Traceback" not in done.stderr
