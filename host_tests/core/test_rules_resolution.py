# Seed 000, "Gameplay resolution": the six-step order, keys, meetings, vision, compass.
from game import rules
from game.engine import COMPASS_SLOT, FIRST_ARTIFACT_SLOT, KEY_SLOT, bearing
from game.rules import NO_BEARING, OK, E, S, W
from scenario import arena, at, drop, event_kinds, events, give, move, put, snapshot

ART = FIRST_ARTIFACT_SLOT  # first vision artifact slot
KEY1 = KEY_SLOT[1]
KEY2 = KEY_SLOT[2]


def key_locations_are_unique(m):
    for owner in (1, 2):
        on_ground = m.obj_present[KEY_SLOT[owner]] == 1
        carriers = [s for s in (1, 2) if m.inventory[s] == owner]
        assert len(carriers) + (1 if on_ground else 0) == 1, (owner, on_ground, carriers)
        cell, carrier = m.key_location(owner)
        assert (cell >= 0) != (carrier > 0)


# ---- the six-step order -------------------------------------------------------------------


def test_every_accepted_move_resolves_the_six_steps_in_order():
    # Everything on one cell: an artifact, seat 1's key, seat 2 standing there carrying seat 1's
    # ... no: seat 2 carries nothing, seat 1 carries nothing; seat 1's compass and exit too.
    m = arena()
    dest = at(m, 0, 1)  # a border cell, so it can be seat 1's exit (outward W)
    m.pos[1] = at(m, 1, 1)
    m.vision[1] = 3
    put(m, ART, dest)
    put(m, KEY1, dest)
    m.pos[2] = dest
    m.obj_cell[COMPASS_SLOT[1]] = dest
    m.obj_present[COMPASS_SLOT[1]] = 1
    m.obj_cell[2] = dest  # exit of seat 1
    m.obj_variant[2] = W
    assert move(m, 1, W, 100) == OK
    assert event_kinds(m) == [
        rules.EV_MOVED,
        rules.EV_VISION,  # 2 (1, the decrement, emits nothing)
        rules.EV_KEY_PICKED,  # 3
        rules.EV_MEETING,  # 4
        rules.EV_KEY_RETURNED,
        rules.EV_COMPASS,  # 5
        rules.EV_EXIT_OPENED,  # 6
    ]
    assert m.vision[1] == 10 and m.inventory[1] == 1 and m.exit_open[1] == 1


def test_step_1_decrement_comes_before_step_2_artifact_activation():
    m = arena()
    m.vision[1] = 4
    put(m, ART, m.pos[1] + 1)
    assert move(m, 1, E, 100) == OK
    assert m.vision[1] == 10  # decrement to 3 first, then the artifact sets ten (not 9)


def test_step_3_pickup_comes_before_step_4_meeting_return():
    # Seat 1 walks onto seat 2 standing on seat 2's key: seat 1 picks it up, then the meeting
    # returns it to seat 2 at once.
    m = arena()
    dest = m.pos[1] + 1
    m.pos[2] = dest
    put(m, KEY2, dest)
    assert move(m, 1, E, 100) == OK
    kinds = event_kinds(m)
    assert kinds.index(rules.EV_KEY_PICKED) < kinds.index(rules.EV_MEETING)
    assert m.inventory[1] == 0 and m.inventory[2] == 2
    key_locations_are_unique(m)


def test_step_4_meeting_comes_before_step_6_exit_opening():
    # Seat 1 carries seat 2's key onto its own exit where seat 2 stands with seat 1's key:
    # the meeting swaps them, so seat 1 now carries its own key and the exit opens.
    m = arena()
    exit_cell = at(m, 0, 1)
    m.obj_cell[2] = exit_cell
    m.obj_variant[2] = W
    m.pos[1] = at(m, 1, 1)
    m.pos[2] = exit_cell
    give(m, 1, 2)
    give(m, 2, 1)
    assert move(m, 1, W, 100) == OK
    assert m.inventory[1] == 1 and m.inventory[2] == 2
    assert m.exit_open[1] == 1


def test_step_3_pickup_comes_before_step_6_exit_opening():
    m = arena()
    exit_cell = at(m, 0, 1)
    m.obj_cell[2] = exit_cell
    m.obj_variant[2] = W
    put(m, KEY1, exit_cell)
    m.pos[1] = at(m, 1, 1)
    assert move(m, 1, W, 100) == OK
    assert m.exit_open[1] == 1


# ---- keys ---------------------------------------------------------------------------------


def test_lowest_owner_numbered_ground_key_is_picked_when_drops_put_both_keys_on_one_cell():
    m = arena(cooldown_ms=0)
    cell = at(m, 4, 4)
    # Both players drop their key on one cell (the only way two keys share a cell).
    m.pos[1] = cell
    m.pos[2] = cell
    give(m, 1, 1)
    give(m, 2, 2)
    assert drop(m, 2, 10) == OK
    assert drop(m, 1, 11) == OK
    m.pos[2] = cell - 1
    m.pos[1] = at(m, 1, 1)
    assert move(m, 2, E, 20) == OK  # seat 2 enters: the lowest owner's key (seat 1's) first
    assert m.inventory[2] == 1
    assert m.obj_present[KEY2] == 1 and m.obj_cell[KEY2] == cell
    key_locations_are_unique(m)


def test_each_key_always_has_exactly_one_authoritative_location():
    m = arena(cooldown_ms=0)
    key_locations_are_unique(m)  # both parked... put them on the ground first
    put(m, KEY1, m.pos[1] + 1)
    put(m, KEY2, m.pos[1] + 2)
    key_locations_are_unique(m)
    assert move(m, 1, E, 1) == OK
    key_locations_are_unique(m)
    assert m.key_location(1) == (-1, 1)
    assert drop(m, 1, 2) == OK
    key_locations_are_unique(m)
    assert m.key_location(1) == (m.pos[1], 0)


def test_inventory_has_one_slot():
    m = arena()
    give(m, 1, 2)
    put(m, KEY1, m.pos[1] + 1)
    assert move(m, 1, E, 100) == OK
    assert m.inventory[1] == 2  # the own key stays on the ground: the slot is taken
    assert m.obj_present[KEY1] == 1
    key_locations_are_unique(m)


def test_dropping_places_the_key_on_the_current_cell():
    m = arena()
    give(m, 1, 1)
    here = m.pos[1]
    before = m.state_seq
    assert drop(m, 1, 100) == OK
    assert m.inventory[1] == 0
    assert m.key_location(1) == (here, 0) and m.obj_present[KEY1] == 1
    assert m.state_seq == before + 1
    assert events(m) == [(rules.EV_KEY_DROPPED, 1, 1)]


def test_dropping_with_an_empty_inventory_is_refused_and_changes_nothing():
    m = arena()
    before = snapshot(m)
    assert drop(m, 1, 100) == rules.NO_KEY
    assert snapshot(m) == before


def test_a_dropped_key_is_not_picked_up_again_until_its_cell_is_entered():
    m = arena()
    give(m, 1, 1)
    assert drop(m, 1, 100) == OK
    assert m.inventory[1] == 0
    assert move(m, 1, E, 200) == OK
    assert move(m, 1, W, 300) == OK
    assert m.inventory[1] == 1


def test_carrying_the_opponents_key_is_allowed():
    m = arena()
    put(m, KEY2, m.pos[1] + 1)
    assert move(m, 1, E, 100) == OK
    assert m.inventory[1] == 2 and m.key_location(2) == (-1, 1)


def test_meeting_clears_both_slots_then_returns_every_carried_key_so_crossed_keys_swap():
    m = arena()
    m.pos[2] = m.pos[1] + 1
    give(m, 1, 2)
    give(m, 2, 1)
    assert move(m, 1, E, 100) == OK
    assert m.inventory[1] == 1 and m.inventory[2] == 2
    assert m.key_carrier[1] == 1 and m.key_carrier[2] == 2
    assert m.obj_present[KEY1] == 0 and m.obj_present[KEY2] == 0
    returned = [e for e in events(m) if e[0] == rules.EV_KEY_RETURNED]
    # Seat 1's slot (holding key 2) is resolved first, then seat 2's (holding key 1).
    assert returned == [(rules.EV_KEY_RETURNED, 2, 1), (rules.EV_KEY_RETURNED, 1, 2)]
    key_locations_are_unique(m)


def test_meeting_returns_a_single_carried_opponent_key_to_its_owner():
    m = arena()
    m.pos[2] = m.pos[1] + 1
    give(m, 1, 2)
    assert move(m, 1, E, 100) == OK
    assert m.inventory[1] == 0 and m.inventory[2] == 2
    key_locations_are_unique(m)


def test_meeting_keeps_own_carried_keys_with_their_owners():
    m = arena()
    m.pos[2] = m.pos[1] + 1
    give(m, 1, 1)
    assert move(m, 2, W, 100) == OK
    assert m.inventory[1] == 1 and m.inventory[2] == 0
    key_locations_are_unique(m)


def test_meeting_leaves_ground_keys_where_they_are():
    m = arena()
    dest = m.pos[1] + 1
    m.pos[2] = dest
    give(m, 1, 2)
    put(m, KEY1, dest)  # seat 1 has a full slot, so its own ground key stays
    assert move(m, 1, E, 100) == OK
    assert m.obj_present[KEY1] == 1 and m.obj_cell[KEY1] == dest
    assert m.inventory[2] == 2
    key_locations_are_unique(m)


# ---- vision artifacts ---------------------------------------------------------------------


def test_unconsumed_vision_artifact_is_removed_on_entry_and_sets_the_counter_to_ten():
    m = arena()
    put(m, ART, m.pos[1] + 1)
    assert move(m, 1, E, 100) == OK
    assert m.obj_present[ART] == 0
    assert m.vision[1] == 10
    assert m.radius(1) == rules.RADIUS_VISION
    # Consumed: seat 2 entering the same cell later gets nothing.
    m.pos[2] = m.pos[1] + 1
    assert move(m, 2, W, 200) == OK
    assert m.vision[2] == 0


def test_only_later_successful_moves_decrement_the_counter():
    m = arena(cooldown_ms=100)
    put(m, ART, m.pos[1] + 1)
    assert move(m, 1, E, 100) == OK
    assert m.vision[1] == 10
    t = 200
    for expected in range(9, -1, -1):
        assert move(m, 1, S if expected % 2 else 0, t) == OK  # alternate S / N
        assert m.vision[1] == expected
        t += 100
    assert m.radius(1) == rules.RADIUS_NORMAL
    assert move(m, 1, S, t) == OK
    assert m.vision[1] == 0  # never below zero


def test_failed_moves_and_key_drops_do_not_decrement_the_counter():
    from scenario import close

    m = arena(cooldown_ms=250)
    m.vision[1] = 5
    close(m, m.pos[1], W)
    assert move(m, 1, W, 100) == rules.WALL
    assert move(m, 1, E, 200) == OK
    assert m.vision[1] == 4
    assert move(m, 1, E, 300) == rules.COOLDOWN
    assert drop(m, 1, 310) == rules.NO_KEY
    give(m, 1, 1)
    assert drop(m, 1, 320) == OK
    assert m.vision[1] == 4


def test_entering_another_artifact_resets_the_counter_to_ten_rather_than_stacking():
    m = arena()
    put(m, ART, m.pos[1] + 1)
    put(m, ART + 1, m.pos[1] + 2)
    assert move(m, 1, E, 100) == OK
    assert m.vision[1] == 10
    assert move(m, 1, E, 200) == OK
    assert m.vision[1] == 10  # not 19, not 20


# ---- compass ------------------------------------------------------------------------------


def test_entering_own_compass_gives_one_of_eight_bearings_toward_own_exit():
    m = arena()
    compass = m.pos[1] + 1
    m.obj_cell[COMPASS_SLOT[1]] = compass
    assert move(m, 1, E, 100) == OK
    expected = bearing(compass, m.exit_cell(1), m.width)
    assert m.compass[1] == expected
    assert 0 <= expected <= 7
    assert (rules.EV_COMPASS, 1, expected) in events(m)


def test_bearing_covers_the_eight_directions():
    w = 21
    centre = 10 * w + 10

    def cell(dx, dy):
        return (10 + dy) * w + 10 + dx

    cases = (
        ((0, -5), 0),
        ((5, -5), 1),
        ((5, 0), 2),
        ((5, 5), 3),
        ((0, 5), 4),
        ((-5, 5), 5),
        ((-5, 0), 6),
        ((-5, -5), 7),
        ((5, -2), 2),  # shallow: less than 22.5 degrees off east
        ((5, -3), 1),  # steeper: north-east
        ((-2, 9), 4),
        ((-4, 9), 5),
    )
    for (dx, dy), want in cases:
        assert bearing(centre, cell(dx, dy), w) == want, (dx, dy)


def test_the_opponents_compass_does_nothing_for_you():
    m = arena()
    m.obj_cell[COMPASS_SLOT[2]] = m.pos[1] + 1
    assert move(m, 1, E, 100) == OK
    assert m.compass[1] == NO_BEARING and m.compass[2] == NO_BEARING


def test_compass_provides_neither_a_coordinate_nor_a_route():
    # Two different exits in the same direction give the same hint: only a bearing is stored.
    hints = []
    for exit_x in (0, 2):
        m = arena()
        m.pos[1] = at(m, 6, 4)
        m.obj_cell[COMPASS_SLOT[1]] = at(m, 5, 4)
        m.obj_cell[2] = at(m, exit_x, 4)
        assert move(m, 1, W, 100) == OK
        hints.append(m.compass[1])
    assert hints[0] == hints[1] == 6
    assert not any(f for f in dir(m) if "route" in f or "hint_cell" in f)


def test_compass_hint_remains_through_rejected_commands():
    from scenario import close

    m = arena(cooldown_ms=250)
    m.obj_cell[COMPASS_SLOT[1]] = m.pos[1] + 1
    assert move(m, 1, E, 100) == OK
    hint = m.compass[1]
    assert hint != NO_BEARING
    assert move(m, 1, E, 150) == rules.COOLDOWN
    close(m, m.pos[1], S)
    assert move(m, 1, S, 400) == rules.WALL
    assert drop(m, 1, 410) == rules.NO_KEY
    assert m.compass[1] == hint


def test_compass_hint_is_cleared_by_the_next_successful_move():
    m = arena()
    m.obj_cell[COMPASS_SLOT[1]] = m.pos[1] + 1
    assert move(m, 1, E, 100) == OK
    assert m.compass[1] != NO_BEARING
    assert move(m, 1, E, 200) == OK
    assert m.compass[1] == NO_BEARING


def test_compass_hint_is_not_cleared_by_a_move_that_activates_the_compass_again():
    m = arena()
    compass = m.pos[1] + 1
    m.obj_cell[COMPASS_SLOT[1]] = compass
    assert move(m, 1, E, 100) == OK
    first = m.compass[1]
    assert move(m, 1, S, 200) == OK
    assert m.compass[1] == NO_BEARING
    assert move(m, 1, rules.N, 300) == OK  # back onto the compass: activated again
    assert m.compass[1] == first


def test_compass_hint_survives_the_opponents_moves():
    m = arena()
    m.obj_cell[COMPASS_SLOT[1]] = m.pos[1] + 1
    assert move(m, 1, E, 100) == OK
    hint = m.compass[1]
    assert move(m, 2, W, 110) == OK
    assert m.compass[1] == hint
