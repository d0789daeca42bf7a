# Entry point: a board runs boot.py, then this file, after every reset. The wiring is in
# net/board.py: compiled into the image like the rest of the code (this file is compiled on the
# board at every boot, its bytecode kept in the heap). `wire` is here for the tools.
from net.board import run, wire  # noqa: F401

if __name__ == "__main__":
    run()
