# Entry point: a board runs boot.py, then this file, after every reset. The program is in
# net/board.py, compiled into the image like the rest of the code (this file is compiled on
# the board at every boot and its bytecode stays in the heap, so it stays this small: the
# tools that build the board without running it call net.wiring.wire() themselves).
from net.board import run

if __name__ == "__main__":
    run()
