# Allocation-free JSON pieces written straight into a preallocated bytearray: integers as
# decimal digits and constant byte strings. Every writer takes the buffer and a position and
# returns the position after what it wrote; the matching size function (ndigits) lets a planner
# know a record's length before writing it. Nothing here builds a str, a bytes or a list, so
# the projector's steady state allocates nothing.


def ndigits(value):
    """Bytes in the decimal JSON form of int value (a leading '-' counts)."""
    if 0 <= value < 10:
        return 1
    n = 1
    if value < 0:
        n = 2
        value = -value
    while value >= 10:
        value //= 10
        n += 1
    return n


def put(buf, pos, data):
    """Copy the bytes of data (bytes/bytearray) into buf at pos."""
    end = pos + len(data)
    buf[pos:end] = data
    return end


def put_int(buf, pos, value):
    """Write int value in decimal at pos (digits are filled from the right, no str is made)."""
    if 0 <= value < 1000:  # most numbers of a view: a cell index, a count, a flag
        if value < 10:
            buf[pos] = 48 + value
            return pos + 1
        if value < 100:
            buf[pos] = 48 + value // 10
            buf[pos + 1] = 48 + value % 10
            return pos + 2
        buf[pos] = 48 + value // 100
        buf[pos + 1] = 48 + value // 10 % 10
        buf[pos + 2] = 48 + value % 10
        return pos + 3
    if 1000 <= value < 10000:  # a state sequence, a cell of a large maze
        buf[pos] = 48 + value // 1000
        buf[pos + 1] = 48 + value // 100 % 10
        buf[pos + 2] = 48 + value // 10 % 10
        buf[pos + 3] = 48 + value % 10
        return pos + 4
    if value < 0:
        buf[pos] = 45  # '-'
        pos += 1
        value = -value
    end = pos + ndigits(value)
    i = end
    while True:
        i -= 1
        buf[i] = 48 + value % 10
        value //= 10
        if not value:
            break
    return end
