"""The heap figures a board prints in its log, read back: `micropython.mem_info()` blocks.

The firmware prints a mem_info() block at boot, after its "mem: ready: heap used N, free N"
line, and one when a match ends, after "mem: match N finished" (the line it prints first);
the virtual board prints one before boot.py, after its "vboard: ..." line (the heap the
firmware starts with). A block reads, on an ESP32 with a grown heap:

    stack: 2032 out of 15360
    GC: total: 111936, used: 61000, free: 50936, max new split: 0
     No. of 1-blocks: 1103, 2-blocks: 216, max blk sz: 142, max free sz: 1109

(the unix port prints its own "mem: total=..., current=..., peak=..." line first and no
"max new split"). The sizes of the last line are in GC blocks: 16 bytes on a 32-bit port (four
words), 32 on a 64-bit one. "max blk sz" is the largest allocated block, "max free sz" the
largest run of free blocks: the largest object that can still be allocated, whatever the total
free. A heap in two areas (an ESP32 after its growth) never has a free run across the two.

CPython only (the tools and tests that read board logs).
"""

import re

_GC = re.compile(r"^GC: total: (\d+), used: (\d+), free: (\d+)(?:, max new split: (\d+))?")
_BLOCKS = re.compile(
    r"^ ?No\. of 1-blocks: (\d+), 2-blocks: (\d+), max blk sz: (\d+), max free sz: (\d+)"
)
# Lines mem_info() itself prints before "GC:": never a block's label.
_OWN = re.compile(r"^(stack: \d+ out of \d+|mem: total=\d+, current=\d+, peak=\d+)")
MATCH_FINISHED = re.compile(r"^mem: match (\d+) finished")
PINNED_LABEL = "vboard: "  # the virtual board's own block (before boot.py)


def gc_block_bytes(word_bits):
    """Bytes of one GC block on a port with this word size: four words."""
    return 4 * word_bits // 8


def mem_info_blocks(text, block_bytes):
    """Every mem_info() block of a log, in order, as dicts: `label` (the line printed just
    before the block, e.g. 'mem: match 3 finished'), `match` (N of such a label, else None),
    `total`, `used`, `free`, `max_new_split` (None without a split heap), `blocks_1`,
    `blocks_2`, and in bytes `largest_block_bytes`, `largest_free_block_bytes`."""
    lines = text.splitlines()
    found = []
    for i, line in enumerate(lines):
        gc_line = _GC.match(line.strip())
        if gc_line is None or i + 1 >= len(lines):
            continue
        blocks = _BLOCKS.match(lines[i + 1].rstrip())
        if blocks is None:
            continue
        j = i - 1
        while j >= 0 and _OWN.match(lines[j].strip()):
            j -= 1
        label = lines[j].strip() if j >= 0 else ""
        finished = MATCH_FINISHED.match(label)
        total, used, free, split = gc_line.groups()
        one, two, max_block, max_free = (int(n) for n in blocks.groups())
        found.append(
            {
                "label": label,
                "match": int(finished.group(1)) if finished else None,
                "total": int(total),
                "used": int(used),
                "free": int(free),
                "max_new_split": int(split) if split is not None else None,
                "blocks_1": one,
                "blocks_2": two,
                "largest_block_bytes": max_block * block_bytes,
                "largest_free_block_bytes": max_free * block_bytes,
            }
        )
    return found


def firmware_blocks(text, block_bytes):
    """The blocks the firmware printed (not the virtual board's own)."""
    return [
        block
        for block in mem_info_blocks(text, block_bytes)
        if not block["label"].startswith(PINNED_LABEL)
    ]


def end_figures(text, block_bytes):
    """The fragmentation figures of a run, from the last mem_info() block the firmware
    printed (after the last finished match once the firmware prints one there; until then the
    boot block). The largest allocated block is the firmware's only when it is larger than
    every block the virtual board pinned before boot (a ROMFS image is one block: then it is
    None). Returns None when the log has no firmware block."""
    blocks = mem_info_blocks(text, block_bytes)
    pinned = [b for b in blocks if b["label"].startswith(PINNED_LABEL)]
    own = [b for b in blocks if not b["label"].startswith(PINNED_LABEL)]
    if not own:
        return None
    last = own[-1]
    pinned_largest = pinned[-1]["largest_block_bytes"] if pinned else 0
    largest = last["largest_block_bytes"]
    return {
        "at": last["label"],
        "match": last["match"],
        "after_a_match": last["match"] is not None,
        "mem_info_blocks": len(own),
        "total": last["total"],
        "used": last["used"],
        "free": last["free"],
        "largest_free_block_bytes": last["largest_free_block_bytes"],
        "largest_block_bytes": largest if largest > pinned_largest else None,
        "largest_block_bytes_in_mem_info": largest,
        "largest_pinned_block_bytes": pinned_largest if pinned else None,
    }
