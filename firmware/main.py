# Entry point: a board runs boot.py, then this file, after every reset. The program is in
# net/board.py, compiled into the image like the rest of the code (this file is compiled on
# the board at every boot and its bytecode stays in the heap, so it stays this small).
from net.board import run


def wire(step=None):
    """The board's wiring without running it, for the tools (make mem --parts)."""
    from net.wiring import wire as build

    return build(step) if step else build()


if __name__ == "__main__":
    run()
