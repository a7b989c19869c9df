"""The army code codec: Infinity Army's Base64 list export, read and written.

Implementation test: no rule section. Every code here is built by this file from invented ids
(the format is public; no code exported by the official builder is used).
"""

from __future__ import annotations

import base64
import contextlib
import json
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.rules.armies.army_code import (
    MAX_CUSTOMISATIONS,
    MAX_MEMBERS_PER_GROUP,
    MAX_STRING_BYTES,
    MAX_TEXT_LENGTH,
    ArmyCode,
    ArmyCodeError,
    CombatGroup,
    Customisation,
    GroupMember,
    decode_army_code,
    encode_army_code,
)


def varint(value: int) -> bytes:
    """The stream's integer, written by hand (independently of the encoder under test)."""
    return bytes([value]) if value < 128 else bytes([0x80 | (value >> 8), value & 0xFF])


def text(value: str) -> bytes:
    raw = value.encode("utf-8")
    return varint(len(raw)) + raw


def header(groups: int, *, faction: int = 901, slug: str = "test-faction",
           name: str = "Invented list", points: int = 300) -> bytes:
    return varint(faction) + text(slug) + text(name) + varint(points) + varint(groups)


def member(unit: int, profile_group: int = 1, option: int = 2,
           customisations: tuple[tuple[int, str], ...] = ()) -> bytes:
    out = b"\x00" + varint(unit) + varint(profile_group) + varint(option) + b"\x00"
    out += varint(len(customisations))
    for kind, json_text in customisations:
        out += varint(kind) + text(json_text)
    return out


def n5_group(number: int, members: list[bytes]) -> bytes:
    return varint(number) + varint(1) + varint(0) + varint(len(members)) + b"".join(members)


def n4_group(number: int, members: list[bytes]) -> bytes:
    return varint(number) + varint(len(members)) + b"".join(members)


def b64(stream: bytes) -> str:
    return base64.b64encode(stream).decode("ascii")


STAT_RAISE = '[{"type":"stat","stat":"bts","q":2}]'
LIST_NAME = "Invented list ?????"  # this name puts "+", "/" and "=" into the Base64 text
VALID_N5 = header(2, name=LIST_NAME) + n5_group(1, [member(310, 1, 4), member(1201, 2, 7, ((1, STAT_RAISE),))]) \
    + n5_group(2, [member(45, 3, 1)])
VALID_N5_CODE = ArmyCode("n5", 901, "test-faction", LIST_NAME, 300, (
    CombatGroup(1, (GroupMember(310, 1, 4), GroupMember(1201, 2, 7, (Customisation(1, STAT_RAISE),))),
                (1, 0)),
    CombatGroup(2, (GroupMember(45, 3, 1),), (1, 0)),
))


def refused(code_text: str) -> ArmyCodeError:
    with pytest.raises(ArmyCodeError) as caught:
        decode_army_code(code_text)
    return caught.value


# --- well-formed codes ----------------------------------------------------------------------


def test_a_hand_built_n5_code_decodes_to_its_groups_members_and_customisations() -> None:
    assert decode_army_code(b64(VALID_N5)) == VALID_N5_CODE
    assert encode_army_code(VALID_N5_CODE) == b64(VALID_N5)


def test_a_hand_built_n4_code_without_the_two_extra_group_integers_decodes_as_n4() -> None:
    stream = header(1) + n4_group(1, [member(310, 1, 4), member(77, 5, 3)])
    decoded = decode_army_code(b64(stream))
    assert decoded.layout == "n4"
    assert decoded.combat_groups == (
        CombatGroup(1, (GroupMember(310, 1, 4), GroupMember(77, 5, 3)), None),
    )
    assert encode_army_code(decoded) == b64(stream)


@pytest.mark.parametrize(("points", "expected_bytes"), [
    (127, b"\x7f"), (128, b"\x80\x80"), (255, b"\x80\xff"), (256, b"\x81\x00"),
    (32767, b"\xff\xff"),
])
def test_integers_below_128_take_one_byte_and_larger_ones_two_with_the_high_bit_set(
        points: int, expected_bytes: bytes) -> None:
    stream = varint(7) + text("slug") + text("") + expected_bytes + varint(1) + n5_group(1, [member(1)])
    assert decode_army_code(b64(stream)).points_limit == points
    code = ArmyCode("n5", 7, "slug", "", points, (CombatGroup(1, (GroupMember(1, 1, 2),), (1, 0)),))
    assert base64.b64decode(encode_army_code(code)) == stream


def test_a_two_byte_integer_holding_a_small_value_is_read_as_that_value() -> None:
    stream = varint(7) + text("slug") + text("") + b"\x80\x05" + varint(1) + n5_group(1, [member(1)])
    assert decode_army_code(b64(stream)).points_limit == 5


@pytest.mark.parametrize("value", [32768, -1, 70000])
def test_the_encoder_refuses_an_integer_two_bytes_cannot_hold(value: int) -> None:
    code = ArmyCode("n5", 7, "slug", "", 300, (CombatGroup(1, (GroupMember(value, 1, 2),), (1, 0)),))
    with pytest.raises(ArmyCodeError) as caught:
        encode_army_code(code)
    assert caught.value.expected == "the unit id of member 1 of combat group 1"
    assert caught.value.offset is None


def test_the_encoder_refuses_groups_whose_n5_fields_do_not_match_the_layout() -> None:
    code = ArmyCode("n4", 7, "slug", "", 300, (CombatGroup(1, (), (1, 0)),))
    with pytest.raises(ArmyCodeError, match="N5 fields of combat group 1"):
        encode_army_code(code)


@pytest.mark.parametrize("pasted", [
    "  {code}\n",
    "{code_unpadded}",
    "{code_url}",
    "{code_url_unpadded}",
    "{code_urlsafe}",
    "{code_split}",
])
def test_a_code_is_read_as_players_paste_it(pasted: str) -> None:
    code = b64(VALID_N5)
    assert "+" in code and "/" in code and code.endswith("=")
    forms = {
        "code": code, "code_unpadded": code.rstrip("="), "code_url": quote(code, safe=""),
        "code_url_unpadded": quote(code.rstrip("="), safe=""),
        "code_urlsafe": code.replace("+", "-").replace("/", "_"),
        "code_split": code[:10] + "\n  " + code[10:],
    }
    assert decode_army_code(pasted.format(**forms)) == VALID_N5_CODE


# --- generated codes: round trips in both layouts ------------------------------------------

_ints = st.integers(min_value=0, max_value=32767)
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=6,
)
_customisations = st.builds(
    Customisation,
    kind=_ints,
    json_text=st.one_of(
        st.sampled_from([STAT_RAISE, '[{"type":"skill","id":28,"extra":[6]}]']),
        _json_values.map(lambda value: json.dumps(value, ensure_ascii=False)),
    ),
)
_members = st.builds(GroupMember, unit_id=_ints, profile_group_id=_ints, option_id=_ints,
                     customisations=st.lists(_customisations, max_size=2).map(tuple))


@st.composite
def army_codes(draw: st.DrawFn) -> ArmyCode:
    layout = draw(st.sampled_from(["n5", "n4"]))
    groups = tuple(
        CombatGroup(
            draw(_ints),
            tuple(draw(st.lists(_members, max_size=4))),
            (draw(_ints), draw(_ints)) if layout == "n5" else None,
        )
        for _ in range(draw(st.integers(1, 3)))
    )
    return ArmyCode(
        layout, draw(_ints),
        draw(st.text(alphabet="abcdefghijklmnopqrstuvwxyz-", min_size=3, max_size=20)),
        draw(st.text(max_size=30)), draw(_ints), groups,
    )


def _read_back(original: ArmyCode, code_text: str) -> None:
    """The code reads back as ``original``; the one exception is an N4 code whose bytes also
    read exactly as N5 (the layout is not written in the stream: N5 is preferred), which must
    then still stand for the very same bytes."""
    decoded = decode_army_code(code_text)
    if decoded != original:
        assert (original.layout, decoded.layout) == ("n4", "n5")
        assert encode_army_code(decoded) == encode_army_code(original)


@settings(max_examples=300, deadline=None)
@given(army_codes())
def test_generated_codes_in_both_layouts_round_trip_through_the_encoder_and_decoder(
        code: ArmyCode) -> None:
    encoded = encode_army_code(code)
    _read_back(code, encoded)
    _read_back(code, encoded.rstrip("="))
    _read_back(code, quote(encoded, safe=""))
    _read_back(code, quote(encoded.rstrip("="), safe=""))
    _read_back(code, f"\n {encoded.replace('+', '-').replace('/', '_')} \t")


@settings(max_examples=100, deadline=None)
@given(army_codes())
def test_every_truncation_of_a_generated_code_is_refused_or_read_and_never_crashes(
        code: ArmyCode) -> None:
    stream = base64.b64decode(encode_army_code(code))
    for length in range(len(stream)):
        with contextlib.suppress(ArmyCodeError):
            decode_army_code(b64(stream[:length]))


# --- malformed codes --------------------------------------------------------------------------


def test_every_truncation_of_a_valid_code_is_refused_with_an_offset_inside_what_remains() -> None:
    for length in range(len(VALID_N5)):
        error = refused(b64(VALID_N5[:length]))
        if length >= 9:  # shorter streams make texts of 12 characters or fewer: saved-link ids
            assert error.offset is not None and error.offset <= length, (length, error)


def test_a_code_cut_in_a_members_unit_id_names_that_field_and_offset() -> None:
    cut = len(header(2, name=LIST_NAME)) + 4 + 1  # group 1's four integers, then member 1's 0x00
    error = refused(b64(VALID_N5[:cut]))
    assert error.expected == "the unit id of member 1 of combat group 1"
    assert error.offset == cut
    assert f"at byte {cut}" in str(error) and "damaged or incomplete" in str(error)


def test_trailing_bytes_after_the_last_group_are_refused_at_their_offset() -> None:
    error = refused(b64(VALID_N5 + b"\x05"))
    assert error.expected == "the end of the code"
    assert error.offset == len(VALID_N5)


def test_a_customisation_that_is_not_json_is_refused_naming_it() -> None:
    first = member(310, 1, 4)
    stream = header(1) + n5_group(1, [first, member(1201, 2, 7, ((1, '[{"type": oops'),))])
    error = refused(b64(stream))
    assert error.expected == "the JSON text of customisation 1 of member 2 of combat group 1"
    # the JSON string starts after the header, group 1's four integers, member 1, and member
    # 2's opening 0x00, unit id (2 bytes), ids, 0x00, count and kind
    assert error.offset == len(header(1)) + 4 + len(first) + 1 + 2 + 1 + 1 + 1 + 1 + 1
    assert "not JSON" in str(error)


def test_a_customisation_with_a_json_constant_that_is_not_json_is_refused() -> None:
    stream = header(1) + n5_group(1, [member(310, 1, 4, ((1, "[NaN]"),))])
    assert refused(b64(stream)).expected.startswith("the JSON text of customisation 1")


def test_a_group_with_more_members_than_allowed_is_refused_at_its_count() -> None:
    group_two_start = len(header(2)) + len(n5_group(1, [member(310, 1, 4)]))
    stream = header(2) + n5_group(1, [member(310, 1, 4)]) + varint(2) + varint(1) + varint(0) \
        + varint(MAX_MEMBERS_PER_GROUP + 1) + member(5) * (MAX_MEMBERS_PER_GROUP + 1)
    error = refused(b64(stream))
    assert error.expected == "the number of troopers in combat group 2"
    assert error.offset == group_two_start + 3
    assert f"more than the {MAX_MEMBERS_PER_GROUP} allowed" in str(error)


@pytest.mark.parametrize("json_text", ["[" * 17 + "]" * 17, "[" * 500 + "]" * 500])
def test_a_customisation_nested_too_deep_is_refused_without_exhausting_the_stack(
        json_text: str) -> None:
    stream = header(1) + n5_group(1, [member(310, 1, 4, ((1, json_text),))])
    error = refused(b64(stream))
    assert error.expected == "the JSON text of customisation 1 of member 1 of combat group 1"
    assert "nested deeper than 16 levels" in str(error)


def test_a_string_longer_than_allowed_is_refused_at_its_length() -> None:
    stream = varint(1) + varint(MAX_STRING_BYTES + 1) + b"a" * (MAX_STRING_BYTES + 1) + text("") \
        + varint(300) + varint(1) + n5_group(1, [member(1)])
    error = refused(b64(stream))
    assert (error.expected, error.offset) == ("the faction name", 1)
    assert f"more than the {MAX_STRING_BYTES} allowed" in str(error)


def test_a_damaged_n4_code_reports_the_n4_reading_which_got_further() -> None:
    """docs/rules-decisions/armies.md, "Army code layouts": when neither layout reads the
    stream, the error found further into it is reported."""
    first = member(310, 1, 4)
    stream = header(1) + varint(1) + varint(2) + first + b"\x07" + member(5)[1:]
    error = refused(b64(stream))
    assert error.expected == "the 0x00 byte that opens member 2 of combat group 1"
    assert error.offset == len(header(1)) + 2 + len(first)


def test_too_many_customisations_are_refused_at_their_count() -> None:
    start = len(header(1)) + 4 + 6  # member 1: 0x00, a two-byte unit id, two ids, 0x00
    stream = header(1) + n5_group(1, [member(310, 1, 4)])
    stream = stream[:start] + varint(MAX_CUSTOMISATIONS + 1)
    error = refused(b64(stream))
    assert error.expected == "the number of customisations of member 1 of combat group 1"
    assert error.offset == start


def test_too_many_combat_groups_are_refused_at_their_count() -> None:
    stream = header(200) + n5_group(1, [member(1)])
    error = refused(b64(stream))
    assert error.expected == "the number of combat groups"
    assert error.offset == len(header(200)) - 2


def test_a_name_that_is_not_utf8_is_refused() -> None:
    stream = varint(1) + varint(3) + b"\xff\xfe\xfd" + text("") + varint(300) + varint(1) \
        + n5_group(1, [member(1)])
    error = refused(b64(stream))
    assert (error.expected, error.offset) == ("the faction name", 1)


def test_an_over_long_text_is_refused_before_it_is_read() -> None:
    error = refused("A" * (MAX_TEXT_LENGTH + 1))
    assert error.offset is None
    assert str(MAX_TEXT_LENGTH) in error.expected


@pytest.mark.parametrize("pasted", ["not an army code!", "QUJD*REVGR0hJSktM", "QUJDREVGR0hJSktMQ"])
def test_text_that_is_not_base64_is_refused_without_an_offset(pasted: str) -> None:
    error = refused(pasted)
    assert (error.offset, error.expected) == (None, "Base64 text")


def test_an_empty_text_is_refused() -> None:
    assert refused("  \n").expected == "an army code"


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_are_refused_or_read_and_never_crash(stream: bytes) -> None:
    try:
        decoded = decode_army_code(b64(stream))
    except ArmyCodeError as error:
        assert error.offset is None or 0 <= error.offset <= len(stream)
    else:
        # what was read is a code the encoder writes and the decoder reads back
        assert decode_army_code(encode_army_code(decoded)).combat_groups is not None


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=100))
def test_random_text_is_refused_or_read_and_never_crashes(pasted: str) -> None:
    with contextlib.suppress(ArmyCodeError):
        decode_army_code(pasted)


# --- saved-list links ------------------------------------------------------------------------


@pytest.mark.parametrize("pasted", [
    "aB3dE9x", " Zq81LmP0aa ", "https://example.org/army/list/aB3dE9x",
    "www.example.org/s/aB3dE9x", "https%3A%2F%2Fexample.org%2Fl%2FaB3dE9x",
])
def test_a_saved_list_link_or_id_is_refused_asking_for_the_full_army_code(pasted: str) -> None:
    error = refused(pasted)
    assert error.offset is None
    assert "saved on the army builder's server" in str(error)
    assert "paste the full army code" in str(error)


def test_a_twelve_character_text_is_read_as_a_code_not_a_saved_link() -> None:
    error = refused(b64(b"\x01\x0fabcdefg"))  # 12 characters; the faction name is cut short
    assert (error.expected, error.offset) == ("the faction name", 1)


def test_the_encoder_refuses_a_group_over_the_member_limit_that_the_decoder_would_refuse() -> None:
    members = (GroupMember(1, 1, 2),) * (MAX_MEMBERS_PER_GROUP + 1)
    code = ArmyCode("n5", 7, "slug", "", 300, (CombatGroup(1, members, (1, 0)),))
    with pytest.raises(ArmyCodeError) as caught:
        encode_army_code(code)
    assert caught.value.expected == "the number of troopers in combat group 1"
    assert isinstance(caught.value, ValueError)
