# The board's program: build everything with net.wiring, drop that module (its code is needed
# once), start the tasks and serve until the board stops. main.py calls run().
import asyncio
import micropython


def run():
    try:
        asyncio.run(main())
    except KeyboardInterrupt:  # Ctrl-C on the host, or at the board's REPL
        print("stopped")


async def main():
    board = _start()
    await board.server.run(board.bind, board.config.http_port)


def _start():
    # In a frame of its own that ends before the servers run: nothing of net.wiring stays
    # referenced (the collector also scans the dead stack slots of a live frame).
    from net import wiring

    board = wiring.wire()
    asyncio.create_task(board.dns.run(board.game.host.scratch))  # one buffer for all
    asyncio.create_task(board.game.run(wiring.summary(board.game.host)))
    print(wiring.code_line(board))
    wiring.forget(("net.wiring",))
    print(wiring.heap_line("ready"))
    micropython.mem_info()  # on the board: total/used/free and the largest free block
    print(
        "http: serving on %s:%d; players open %s" % (board.bind, board.config.http_port, board.url)
    )
    return board
