"""The program's own server: its pages from this folder, on the port its URL names."""

import http.server
import sys


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass


if __name__ == "__main__":
    Server(("127.0.0.1", int(sys.argv[1])), Quiet).serve_forever()
