# game.writers, the byte-by-byte parts of a view record in machine code (viper on MicroPython,
# plain Python on CPython): the exact bytes, and a clear ValueError instead of a write past the
# buffer or a value that does not fit its digits (a viper byte store has no bounds check of
# its own). The whole views they are part of are checked against the golden files and the
# reference model elsewhere. Both interpreters.
from game.projector import sight
from game.writers import write_objects, write_runs, write_seat
from harness import heap_locked, raises
from scenario import arena, at, put

HEX = b"0123456789abcdef" * 16  # a 16x16 maze's digits: cell c's digit is that of c % 16


def _runs(size, a, k, j, v, w, rlen, mask=None, here=0):
    b = bytearray(size)
    end = write_runs(b, 2, HEX, a, k, j, v, w, rlen, mask, here)
    return bytes(b[2:end])


def test_runs_of_a_square_a_chunk_and_the_whole_maze():
    # a 3x2 square from cell 17 of a 16-wide maze: two runs of 3
    assert _runs(64, 17, 3, 16, 17 + 16 + 3, 16, 3) == b',"c":[[17,"123"],[33,"123"]]'
    # a chunk that starts 1 cell into its first run and ends 2 cells into its third
    got = _runs(96, 18, 2, 15, 17 + 32 + 2, 16, 3)
    assert got == b',"c":[[18,"23"],[33,"123"],[49,"12"]]'
    # the observer's one run of every cell, with 1- to 3-digit first cells
    assert _runs(300, 0, 256, 0, 256, 16, 256) == b',"c":[[0,"' + HEX + b'"]]'
    assert _runs(32, 5, 3, 16, 8, 16, 3) == b',"c":[[5,"567"]]'
    assert _runs(32, 250, 3, 16, 253, 16, 3) == b',"c":[[250,"abc"]]'


def test_runs_under_line_of_sight_send_a_cell_out_of_sight_as_0():
    # a 16x16 maze with every wall closed: from cell 17 only 17 itself is in sight
    cells = bytearray(256)
    mask = bytearray(363)
    sight(cells, 16, 17, 1, mask)
    got = _runs(64, 0, 3, 16, 32 + 3, 16, 3, mask, 17)
    assert got == b',"c":[[0,"000"],[16,"010"],[32,"000"]]'


def test_runs_never_write_past_the_buffer():
    # the exact room is enough; one byte less is a ValueError
    need = 2 + len(b',"c":[[17,"123"],[33,"123"]]')
    assert _runs(need, 17, 3, 16, 36, 16, 3) == b',"c":[[17,"123"],[33,"123"]]'
    raises(ValueError, _runs, need - 1, 17, 3, 16, 36, 16, 3)
    raises(ValueError, _runs, 4000, 250, 10, 16, 260, 16, 10)  # past the maze's digits
    raises(ValueError, _runs, 64, -1, 3, 16, 2, 16, 3)


def _objects_match():
    # 9x9: the keys at cells 4 (slot 0) and 76 (slot 1), seat 1's exit moved to cell 11
    # (slot 2), seat 2's at 8 (slot 3); the artifacts (slots 4-7) parked, off the ground
    m = arena()
    put(m, 2, at(m, 2, 1))
    assert list(m.obj_present) == [1, 1, 1, 1, 0, 0, 0, 0]
    assert m.obj_cell[:4] == [4, 76, 11, 8]
    m.obj_kind[4] = 9  # (off the ground: never written, whatever it is)
    return m


def _object(m, slot):
    return "[%d,%d,%d,%d]" % (
        m.obj_kind[slot],
        m.obj_owner[slot],
        m.obj_variant[slot],
        m.obj_cell[slot],
    )


def test_objects_in_the_square_in_slot_order_or_nothing():
    m = _objects_match()
    b = bytearray(200)
    end = write_objects(b, 3, m, 0, 80, 0, 8, None, 0)  # the whole maze
    want = ',"o":[%s,%s,%s,%s]' % tuple(_object(m, s) for s in range(4))
    assert bytes(b[3:end]) == want.encode()
    assert want == ',"o":[[0,1,0,4],[0,2,0,76],[1,1,3,11],[1,2,1,8]]'
    # columns 1-3 of rows 0-2 (cells 1 to 21): only the exit at (2, 1)
    end = write_objects(b, 3, m, 1, 21, 1, 3, None, 0)
    assert bytes(b[3:end]) == b',"o":[[1,1,3,11]]'
    # nothing there: nothing written
    assert write_objects(b, 3, m, 30, 50, 3, 5, None, 0) == 3


def test_objects_never_write_past_the_buffer_or_a_value_of_two_digits():
    m = _objects_match()
    raises(ValueError, write_objects, bytearray(12), 0, m, 0, 80, 0, 8, None, 0)
    m.obj_kind[0] = 10
    raises(ValueError, write_objects, bytearray(200), 0, m, 0, 80, 0, 8, None, 0)


def _seat(b, p, m, key):
    t = write_seat(b, p, m, 1, key, 0)
    return t >> 1, t & 1


def test_a_seats_members_whole_then_only_its_position_then_nothing():
    m = arena()  # seat 1 at cell 10, no key, no vision, no bearing
    m.pos[1] = 95 % 81
    b = bytearray(80)
    key = [-1, -1]
    end, whole = _seat(b, 4, m, key)
    members = b'{"p":14,"k":0,"vm":0,"rad":%d,"cp":-1,"xo":0,"xd":0' % m.radius(1)
    assert whole == 1 and bytes(b[4:end]) == members
    b[end] = 44  # what follows the members in a status: a comma
    # the same again: nothing written
    assert _seat(b, 4, m, key) == (end, 0)
    # the position moves and keeps its width: just its digits
    m.pos[1] = 23
    assert _seat(b, 4, m, key) == (end, 0)
    assert bytes(b[4:end]) == members.replace(b":14,", b":23,")
    # to one digit: written whole, one byte shorter
    m.pos[1] = 5
    end2, whole = _seat(b, 4, m, key)
    assert whole == 1 and end2 == end - 1
    assert bytes(b[4:end2]) == members.replace(b":14,", b":5,")
    # a bearing and vision moves of 2 and 3 digits
    m.compass[1] = 7
    m.vision[1] = 120
    end3, whole = _seat(b, 4, m, key)
    assert whole == 1
    assert bytes(b[4:end3]) == b'{"p":5,"k":0,"vm":120,"rad":%d,"cp":7,"xo":0,"xd":0' % (
        m.radius(1)
    )


def test_a_seat_never_writes_past_the_buffer_or_a_value_of_two_digits():
    m = arena()
    raises(ValueError, write_seat, bytearray(40), 0, m, 1, [-1, -1], 0)
    m.inventory[1] = 12
    raises(ValueError, write_seat, bytearray(80), 0, m, 1, [-1, -1], 0)


def _all_three(b, m, key):
    p = write_seat(b, 0, m, 1, key, 0) >> 1
    p = write_objects(b, p, m, 0, 80, 0, 8, None, 0)
    return write_runs(b, p, HEX, 0, 81, 0, 81, 9, 81, None, 0)


def test_the_writers_allocate_nothing():
    m = _objects_match()
    b = bytearray(300)
    key = [-1, -1]
    end = heap_locked(_all_three, b, m, key)
    assert b[end - 3 : end] == b'"]]'
    m.pos[1] += 1  # the position again, in place
    assert heap_locked(_all_three, b, m, key) == end
