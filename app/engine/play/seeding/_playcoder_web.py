"""The first process of a played web page, inside its sandbox (started by the engine with ``python -I -S``).

Its one argument is JSON: ``fds`` (the DevTools pipe ends the engine passed), ``browser`` (the browser's
command), ``port`` (serve the working directory, the program folder, over HTTP on the sandbox's own loopback
at this port; 0: do not) and ``server``/``url``/``wait_s`` (a server of the program's own: started first,
and the browser only once ``url`` answers).  The pipe ends are moved to fds 3 and 4, where
``--remote-debugging-pipe`` expects them.  The browser and the server run as this process's children, so
they live and end in the same sandbox; when the browser ends, so does the server, and this process with the
browser's exit code.

Nothing here imports the engine: only the standard library, no ``site``.
"""

import fcntl
import http.server
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

MIME = {".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css", ".wasm": "application/wasm",
        ".json": "application/json", ".svg": "image/svg+xml", ".html": "text/html"}
POLL_S = 0.1


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Files of the folder, never cached, no request log on the program's stderr."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MIME}

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


class _Server(http.server.ThreadingHTTPServer):
    """A connection the browser dropped (a favicon it stopped waiting for) is no error of the program's: its
    traceback must not reach the program's stderr, where a Python traceback is a finding."""

    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        pass


def _serve(port: int) -> None:
    server = _Server(("127.0.0.1", port), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True, name="serve").start()


def _to_3_and_4(read_fd: int, write_fd: int) -> None:
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (read_fd, write_fd)]  # out of the way of 3 and 4
    for fd in (read_fd, write_fd):
        os.close(fd)
    for fd, want in zip(high, (3, 4)):
        os.dup2(fd, want)
        os.close(fd)


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1.0):
            return True
    except urllib.error.HTTPError:
        return True  # it answered, if only with an error page: the page itself will show it
    except (OSError, ValueError):
        return False


def _own_server(config: dict) -> "subprocess.Popen[bytes] | None":
    """Start the program's own server and wait until its URL answers; None when it ended first or never did."""
    server = subprocess.Popen(config["server"], stdin=subprocess.DEVNULL)
    end = time.monotonic() + float(config.get("wait_s", 60))
    while time.monotonic() < end:
        if server.poll() is not None:
            print(f"playcoder: the program's server ended with code {server.returncode} before answering at "
                  f"{config['url']}", file=sys.stderr, flush=True)
            return None
        if _answers(config["url"]):
            return server
        time.sleep(POLL_S)
    print(f"playcoder: the program's server did not answer at {config['url']} within {config.get('wait_s')} s",
          file=sys.stderr, flush=True)
    server.kill()
    return None


def main(config: dict) -> int:
    _to_3_and_4(*config["fds"])
    children = []
    if config.get("port"):
        _serve(int(config["port"]))  # after the shuffle: its socket must not sit on 3 or 4
    if config.get("node_modules") and not os.path.lexists("node_modules"):
        os.symlink(config["node_modules"], "node_modules")  # the program's packages, read-only
    if config.get("server"):
        server = _own_server(config)
        if server is None:
            return 1
        children.append(server)
    browser = subprocess.Popen(config["browser"], pass_fds=(3, 4), stdin=subprocess.DEVNULL)
    children.append(browser)
    os.close(3)
    os.close(4)

    def _stop(signum: int, _frame: object) -> None:
        for child in children:
            try:
                child.send_signal(signum)
            except OSError:
                pass

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    code = browser.wait()
    for child in children[:-1]:
        child.terminate()
    return code


if __name__ == "__main__":
    sys.exit(main(json.loads(sys.argv[1])))
