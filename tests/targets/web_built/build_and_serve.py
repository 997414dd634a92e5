"""Like `tsc && node serve.mjs`: builds dist/app.js from src/app.txt at start (so it exists only where the
program runs), then serves the folder on the port given."""

import http.server
import pathlib
import sys

dist = pathlib.Path("dist")
dist.mkdir(exist_ok=True)
(dist / "app.js").write_text("// built from src/app.txt\n" + pathlib.Path("src/app.txt").read_text())


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


if __name__ == "__main__":
    http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Quiet).serve_forever()
