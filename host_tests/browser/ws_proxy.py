# A TCP proxy between Chromium and the host board, for the resilience tests: the page is loaded
# through it (the Host header is rewritten to the board's, whose portal redirects foreign
# hosts), so its WebSocket runs through it too. The test can then do to the game's socket what
# a phone's Wi-Fi does: cut it dead (a TCP reset both ways), or lose, hold back and reorder
# whole WebSocket frames in either direction. Frames are read and written by tools/raw_ws.py.
#
#   proxy = WsProxy(board.http_port)          # proxy.url is what the page opens
#   proxy.down = lambda text: [text]          # server -> page: frames to forward instead
#   proxy.up = lambda text: []                # page -> server: e.g. lose everything
#   proxy.cut()                               # reset every WebSocket connection now
#   proxy.stall()                             # the open ones go silent, never closing on
#                                             # the page's side (a phone out of range)
#   proxy.close()
import socket
import struct
import threading

from raw_ws import Eof, frame, read_frame, read_head


class Link:
    """One proxied TCP connection (a page load or the game's WebSocket). An orderly close on
    one side is passed on as an orderly close (nothing in flight is lost); only cut() and
    errors reset the connection."""

    def __init__(self, proxy, client):
        self.proxy = proxy
        self.client = client
        self.server = socket.create_connection(("127.0.0.1", proxy.target))
        self.websocket = False
        self.stalled = False  # drop every frame both ways; keep the page's side open
        self.lock = threading.Lock()
        self.ends = 0  # directions finished in order; at 2 both sockets are closed
        threading.Thread(target=self._run, args=(True,), daemon=True).start()

    def _run(self, up):
        src, dest = (self.client, self.server) if up else (self.server, self.client)
        buf = bytearray()
        try:
            head = read_head(src, buf)
            if up:  # the request: the board must see its own Host
                self.websocket = head.startswith(b"GET /ws")
                head = head.replace(self.proxy.host_in, self.proxy.host_out)
                if self.websocket:
                    self.proxy.sockets.append(self)
                threading.Thread(target=self._run, args=(False,), daemon=True).start()
            dest.sendall(head)
            if not self.websocket:  # a page load: bytes as they come
                if buf:
                    dest.sendall(self._host(bytes(buf), up))
                while True:
                    chunk = src.recv(65536)
                    if not chunk:
                        raise Eof()
                    dest.sendall(self._host(chunk, up))
            while True:
                raw, opcode, data = read_frame(src, buf)
                self._forward(
                    raw, opcode, data, self.proxy.up if up else self.proxy.down, dest, up
                )
        except Eof:
            if self.stalled and not up:
                self._close(self.server)  # the board gave up; the page must find out alone
                return
            try:
                dest.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            with self.lock:
                self.ends += 1
                done = self.ends == 2
            if done:
                self.client.close()
                self.server.close()
        except OSError:
            if self.stalled and not up:
                self._close(self.server)
            else:
                self.kill()

    def _host(self, data, up):
        return data.replace(self.proxy.host_in, self.proxy.host_out) if up else data

    def _forward(self, raw, opcode, data, edit, dest, masked):
        if self.stalled:
            return
        if opcode != 1 or edit is None:
            dest.sendall(raw)
            return
        for text in edit(data.decode()):
            dest.sendall(frame(1, text.encode(), mask=masked))

    def kill(self):
        """Close both sides at once with a reset (SO_LINGER 0): a dropped connection."""
        self._close(self.client)
        self._close(self.server)

    def _close(self, sock):
        # SHUT_RD wakes the thread blocked in recv() on this socket (close() alone would not,
        # and the kernel would keep the connection until that recv returned); then the close
        # with SO_LINGER 0 sends the reset.
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.shutdown(socket.SHUT_RD)
        except OSError:
            pass
        sock.close()


class WsProxy:
    def __init__(self, target_port):
        self.target = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.url = "http://127.0.0.1:%d/" % self.port
        self.host_in = b"127.0.0.1:%d" % self.port
        self.host_out = b"127.0.0.1:%d" % target_port
        self.sockets = []  # WebSocket links, oldest first
        self.up = None  # page -> server text frames: fn(text) -> texts to forward
        self.down = None  # server -> page text frames: likewise
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                Link(self, client)
            except OSError:
                client.close()

    def cut(self):
        """Reset every WebSocket connection through the proxy (page loads are untouched)."""
        for link in list(self.sockets):
            link.kill()

    def stall(self):
        """Every open WebSocket connection goes silent both ways, and when the board closes
        its side the page is not told: a connection that died without a goodbye."""
        for link in list(self.sockets):
            link.stalled = True

    def close(self):
        self.listener.close()
        self.cut()
