# net.compat.log_failure: the one way a handler logs a failure (the accept loop, the pump, the
# timer, a session's task, a connection's task). On a full heap the line itself cannot be made;
# the handler must then still go on to its recovery, so the MemoryError stays inside.
from net import compat
from net.compat import log_failure


def test_the_line_and_the_traceback(monkeypatch):
    lines, traced = [], []
    monkeypatch.setattr(compat, "print_exception", traced.append)
    exc = ValueError("broken")
    log_failure(lines.append, "game: tick failed", exc)
    assert lines == ["game: tick failed: ValueError('broken')"] and traced == [exc]
    log_failure(lines.append, "http: connection dropped", exc, False)
    assert lines[-1] == "http: connection dropped: ValueError('broken')" and traced == [exc]


def test_a_full_heap_leaves_the_handler_going(monkeypatch):
    traced = []
    monkeypatch.setattr(compat, "print_exception", traced.append)

    def no_heap(line):
        raise MemoryError("memory allocation failed, allocating 64 bytes")

    log_failure(no_heap, "game: writer failed", ValueError("broken"))  # does not raise
    assert traced == []  # the traceback is not tried either once the line failed
    lines = []
    log_failure(lines.append, "game: message failed", KeyError("k"))
    assert len(traced) == 1 and lines == ["game: message failed: KeyError('k')"]
