# The reader of micropython.mem_info() blocks in a board log (tools/mem_log.py), on captured
# text: the head of a virtual board's log (the 32-bit unix port, filesystem layout, 92K) as
# it was printed, followed by what the firmware prints once it reports the heap when a match
# ends ("mem: match N finished", then mem_info()); and an ESP32's own block (split heap).
import mem_log

# Captured from a run on the 32-bit unix port (tools/mem_budget.py --heap 92K), game lines cut.
BOOT = """\
vboard: built-in stand-ins 3472 bytes, padding 29168 bytes; reserved 32640; Python heap 92032 \
(heapsize gives 92032)
mem: total=54473, current=36167, peak=36186
stack: 576 out of 40000
GC: total: 124672, used: 34736, free: 89936
 No. of 1-blocks: 167, 2-blocks: 19, max blk sz: 37, max free sz: 5616
ap: ssid 'MazeDuel-ABCD' channel 6 max_clients 8, WPA2 (default password), address 127.0.0.1
code: net.gateway from net/gateway.mpy
mem: ready: heap used 106464, free 18208
mem: total=193478, current=126235, peak=126235
stack: 2032 out of 40000
GC: total: 124672, used: 106560, free: 18112
 No. of 1-blocks: 1103, 2-blocks: 216, max blk sz: 142, max free sz: 1109
http: serving on 127.0.0.1:44501; players open http://127.0.0.1:44501/
game: seat 1 taken (heap used 201776, free 14928)
game: match 1 starts
"""

# The firmware line asked for (docs/memory.md): the heap when each match ends.
MATCHES = """\
game: match 1 finished: p1 won
mem: match 1 finished
mem: total=393478, current=127235, peak=131235
stack: 2032 out of 40000
GC: total: 124672, used: 109000, free: 15672
 No. of 1-blocks: 1200, 2-blocks: 230, max blk sz: 142, max free sz: 700
game: match 2 starts
game: match 2 finished: draw
mem: match 2 finished
mem: total=493478, current=128235, peak=131235
stack: 2032 out of 40000
GC: total: 124672, used: 110000, free: 14672
 No. of 1-blocks: 1210, 2-blocks: 231, max blk sz: 150, max free sz: 612
game: match 3 starts
"""

# An ESP32 after its heap grew once (two areas): no malloc line, and "max new split".
ESP32 = """\
mem: match 7 finished
stack: 2032 out of 15360
GC: total: 111936, used: 61000, free: 50936, max new split: 0
 No. of 1-blocks: 1103, 2-blocks: 216, max blk sz: 142, max free sz: 1109
"""


def test_block_size_is_four_words():
    assert mem_log.gc_block_bytes(32) == 16 and mem_log.gc_block_bytes(64) == 32


def test_every_block_with_its_label():
    blocks = mem_log.mem_info_blocks(BOOT + MATCHES, 16)
    assert [b["label"] for b in blocks] == [
        BOOT.splitlines()[0],
        "mem: ready: heap used 106464, free 18208",
        "mem: match 1 finished",
        "mem: match 2 finished",
    ]
    assert [b["match"] for b in blocks] == [None, None, 1, 2]
    boot = blocks[1]
    assert (boot["total"], boot["used"], boot["free"]) == (124672, 106560, 18112)
    assert (boot["blocks_1"], boot["blocks_2"]) == (1103, 216)
    assert boot["largest_block_bytes"] == 142 * 16
    assert boot["largest_free_block_bytes"] == 1109 * 16
    assert boot["max_new_split"] is None


def test_end_figures_come_from_the_last_finished_match():
    end = mem_log.end_figures(BOOT + MATCHES, 16)
    assert end["at"] == "mem: match 2 finished" and end["match"] == 2 and end["after_a_match"]
    assert end["largest_free_block_bytes"] == 612 * 16
    assert end["largest_block_bytes"] == 150 * 16  # larger than anything the board pinned
    assert end["largest_pinned_block_bytes"] == 37 * 16
    assert end["free"] == 14672 and end["mem_info_blocks"] == 3


def test_without_the_match_line_the_boot_block_is_the_last():
    end = mem_log.end_figures(BOOT, 16)
    assert end["at"].startswith("mem: ready: ") and not end["after_a_match"]
    assert end["largest_free_block_bytes"] == 1109 * 16 and end["largest_block_bytes"] == 142 * 16


def test_a_pinned_block_as_large_is_not_taken_for_the_firmware_s():
    # ROMFS: the image the virtual board pins is one block, larger than any of the firmware's.
    romfs = BOOT.replace("max blk sz: 37,", "max blk sz: 2739,").replace(
        "max blk sz: 142,", "max blk sz: 2739,"
    )
    end = mem_log.end_figures(romfs, 16)
    assert end["largest_block_bytes"] is None
    assert end["largest_block_bytes_in_mem_info"] == 2739 * 16 == end["largest_pinned_block_bytes"]
    assert end["largest_free_block_bytes"] == 1109 * 16


def test_an_esp32_block_with_its_split_heap():
    (block,) = mem_log.mem_info_blocks("game: match 7 starts\n" + ESP32, 16)
    assert block["label"] == "mem: match 7 finished" and block["match"] == 7
    assert block["max_new_split"] == 0 and block["total"] == 111936
    end = mem_log.end_figures(ESP32, 16)
    assert end["largest_pinned_block_bytes"] is None and end["largest_block_bytes"] == 142 * 16


def test_no_block_no_figures():
    assert mem_log.end_figures("vboard: x\ngame: match 1 starts\n", 16) is None
    assert mem_log.end_figures("", 16) is None
    # a GC line cut off before its second line is not a block
    assert mem_log.mem_info_blocks("mem: ready\nGC: total: 1, used: 1, free: 0\n", 16) == []
