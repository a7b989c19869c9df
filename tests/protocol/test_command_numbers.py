"""Numbers in commands: every one the server takes is finite and of a size a game can use;
anything else is refused with a stable code and a message naming the field (issue 18,
"Abuse costs little": a facing of 2^64-1 was accepted).

Through the same steps as a command on the wire: ``codec.decode_client`` (protocol fields
and ``body_problem``), then the rules core's parse (``RulesCoreEngine.parse_command``, which
the room runs before ``decide``)."""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from protocol import codec
from protocol.codec import MAX_BODY_ITEMS, MAX_BODY_NUMBER, MAX_SAFE_INTEGER, DecodeError
from protocol.constants import ProtocolReason
from protocol.messages import Command, Measure
from server.rooms.engine_port import CommandFormatError
from server.rooms.rules_engine import RulesCoreEngine
from server.rules.reasons import Reason
from server.rules.table.geometry import Body

ENGINE = RulesCoreEngine()
BAD_COMMAND = Reason.BAD_COMMAND.value

EDGES: list[Any] = [
    2**64 - 1, -(2**63), 2**63 - 1, 2**53, 2**53 - 1, -(2**53), MAX_BODY_NUMBER,
    MAX_BODY_NUMBER + 1, -MAX_BODY_NUMBER - 1, 0, -0.0, 360, 360.0, -720.5, 1e300, -1e300,
    5e-324, float("nan"), float("inf"), float("-inf"), True, False, 1e6 + 0.5,
]
numbers = st.one_of(
    st.sampled_from(EDGES),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
)

# Each command of the catalogue with a numeric field, and where in it the number goes.
PLACES: dict[str, tuple[dict[str, Any], tuple[Any, ...]]] = {
    "deploy.facing": ({"type": "deploy", "trooper": "A-t1", "position": [10, 4],
                       "facing": 0}, ("facing",)),
    "deploy.position.x": ({"type": "deploy", "trooper": "A-t1", "position": [10, 4],
                           "facing": 0}, ("position", 0)),
    "move.facing": ({"type": "declare_skill", "skill": {
        "type": "move", "route": [[1, 1], [2, 2]], "facing": 90}}, ("skill", "facing")),
    "move.route.y": ({"type": "declare_skill", "skill": {
        "type": "move", "route": [[1, 1], [2, 2]]}}, ("skill", "route", 1, 1)),
    "bs_attack.burst": ({"type": "declare_skill", "skill": {
        "type": "bs_attack", "weapon": "combi_rifle",
        "targets": [{"trooper": "B-t1", "burst": 3}]}}, ("skill", "targets", 0, "burst")),
    "close_aro_window.order": ({"type": "close_aro_window", "order": 1, "step": 1},
                               ("order",)),
    "activate.combat_group": ({"type": "activate", "trooper": "A-t1", "order": "regular",
                               "combat_group": 1}, ("combat_group",)),
}


def _with(body: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(body)
    holder: Any = out
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = value
    return out


def _numbers_in(value: Any) -> list[Any]:
    """Every number (not bool) a parsed command holds, at any depth."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return []
    if isinstance(value, int | float):
        return [value]
    if isinstance(value, list | tuple):
        return [n for item in value for n in _numbers_in(item)]
    if isinstance(value, dict):
        return [n for item in value.values() for n in _numbers_in(item)]
    slots = getattr(type(value), "__dataclass_fields__", {})
    return [n for name in slots for n in _numbers_in(getattr(value, name))]


def _answer(frame: bytes) -> tuple[str, str] | Any:
    """What the server makes of a command frame: (code, message) when refused, else the
    rules core's parsed command."""
    try:
        message = codec.decode_client(frame)
    except DecodeError as error:
        return str(error.code), error.message
    assert isinstance(message, Command)
    try:
        return ENGINE.parse_command(message.body)
    except CommandFormatError as error:
        return BAD_COMMAND, str(error)


@pytest.mark.parametrize("place", sorted(PLACES))
@given(value=numbers)
@example(value=2**64 - 1)
@example(value=float("nan"))
@example(value=True)
def test_a_number_in_a_command_is_usable_or_refused_as_bad_command(place: str,
                                                                   value: Any) -> None:
    body, path = PLACES[place]
    frame = codec.pack_plain({"type": "command", "id": "c1", "version": 1,
                              "body": _with(body, path, value)})
    answer = _answer(frame)
    if isinstance(answer, tuple):
        code, message = answer
        assert code == BAD_COMMAND, message
        field = str(path[-1]) if isinstance(path[-1], str) else str(path[-2])
        assert field in message, "the message names the field at fault"
        return
    assert not isinstance(value, bool), "true/false is never taken as a number"
    assert math.isfinite(value) and abs(value) <= MAX_BODY_NUMBER
    for number in _numbers_in(answer):
        assert math.isfinite(number) and abs(number) <= MAX_BODY_NUMBER


@given(facing=st.floats(min_value=-MAX_BODY_NUMBER, max_value=MAX_BODY_NUMBER))
@example(facing=-0.0)
@example(facing=-1e-300)
@example(facing=720.0)
def test_any_accepted_facing_is_an_angle_taken_modulo_360(facing: float) -> None:
    """docs/rules-decisions/README.md, "Facing": the geometry measures every facing in [0, 360)."""
    body = _with(PLACES["deploy.facing"][0], ("facing",), facing)
    parsed = _answer(codec.pack_plain({"type": "command", "id": "c", "version": 1,
                                       "body": body}))
    assert not isinstance(parsed, tuple), parsed
    angle = Body((0.0, 0.0), parsed.facing, 2).facing
    assert 0.0 <= angle < 360.0
    assert math.isclose(math.cos(math.radians(angle)), math.cos(math.radians(facing)),
                        abs_tol=1e-6)


@pytest.mark.parametrize(("body", "says"), [
    ({"type": "declare_skill", "skill": {"type": "move",
                                         "route": [[1, 1]] * (MAX_BODY_ITEMS + 1)}},
     f"body.skill.route: more than {MAX_BODY_ITEMS} items"),
    ({"type": "deploy", "trooper": "x" * 300}, "body.trooper: text longer than 256"),
    ({"type": "deploy", "deep": [[[[[[[[[1]]]]]]]]]}, "nested deeper than 8"),
    ({"type": "deploy", "blob": b"\x00"}, "body.blob: bytes is not plain data"),
])
def test_a_body_no_command_can_have_is_refused_before_the_rules_core(body: dict[str, Any],
                                                                      says: str) -> None:
    code, message = _answer(codec.pack_plain({"type": "command", "id": "c", "version": 1,
                                              "body": body}))
    assert code == BAD_COMMAND
    assert says in message


def test_a_route_of_the_longest_allowed_length_goes_to_the_rules_core() -> None:
    route = [[1 + i * 0.01, 1] for i in range(MAX_BODY_ITEMS)]
    parsed = _answer(codec.pack_plain({"type": "command", "id": "c", "version": 1, "body": {
        "type": "declare_skill", "skill": {"type": "move", "route": route}}}))
    assert len(parsed.skill.route) == MAX_BODY_ITEMS


@pytest.mark.parametrize("frame", [
    {"type": "command", "id": "c", "version": 2**64 - 1, "body": {"type": "end_turn"}},
    {"type": "command", "id": "c", "version": True, "body": {"type": "end_turn"}},
    {"type": "ping", "nonce": -(2**63)},
    {"type": "hello", "protocol": 3, "room": "r", "since": MAX_SAFE_INTEGER + 1},
    {"type": "history", "id": "h", "from": 2**64 - 1},
    {"type": "measure", "id": "m", "from": [1, 1], "to": [2, 2], "silhouette": 2**64 - 1},
    {"type": "measure", "id": "m", "from": [1, 1], "to": [float("nan"), 2]},
])
def test_protocol_integers_beyond_what_a_client_can_mean_are_bad_messages(
        frame: dict[str, Any]) -> None:
    with pytest.raises(DecodeError) as caught:
        codec.decode_client(codec.pack_plain(frame))
    assert caught.value.code == ProtocolReason.BAD_MESSAGE
    if "id" in frame:
        assert caught.value.command_id == frame["id"], "answered rejected by its id"


def test_the_largest_safe_integers_are_still_taken() -> None:
    ping = codec.decode_client(codec.pack_plain({"type": "ping", "nonce": MAX_SAFE_INTEGER}))
    assert ping.nonce == MAX_SAFE_INTEGER  # type: ignore[union-attr]
    measure = codec.decode_client(codec.pack_plain(
        {"type": "measure", "id": "m", "from": [1, 1], "to": [2, 2], "silhouette": 2}))
    assert measure == Measure("m", [1, 1], [2, 2], 2)


def test_a_type_nested_a_thousand_deep_is_an_unknown_message_type() -> None:
    """Its repr would raise RecursionError (found by bench.fuzz)."""
    deep: Any = "x"
    for _ in range(1000):
        deep = [deep]
    with pytest.raises(DecodeError) as caught:
        codec.decode_client(codec.pack_plain({"type": deep}))
    assert caught.value.code == ProtocolReason.UNKNOWN_MESSAGE_TYPE
    assert caught.value.message == "unknown message type of type list"
    with pytest.raises(DecodeError) as caught:
        codec.decode_client(codec.pack_plain({"type": "x" * 10_000}))
    assert len(caught.value.message) < 200
