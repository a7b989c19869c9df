"""``python -m server.verify RECORD.json``: check every die of a finished game's record.

An independent implementation of docs/record-format.md, on purpose: it uses only hashlib,
hmac and json and never imports the rules core, so a bug (or a dishonest change) in the
server's dice code cannot make the server's own record pass. It checks that

* the record is ``infinity-referee-record/1`` and its dice block is the one ``game_ended``
  revealed, with the algorithm ``hmac-sha256-d20/v1``;
* the commitment is SHA-256 of its prefix and the secret (the commitment published when the
  room was created binds the server to that secret before any player contributed);
* each contribution is 32 octets of lowercase hexadecimal, and is the entropy that side sent
  with its army choice (``army_chosen.entropy``);
* every event that rolled (it has a ``dice`` field) carries the key recomputed from the
  secret and both contributions, generated the dice right after the previous one's
  (``cursor - len(drawn)``), each face of ``drawn`` is the die of that number, and nothing
  was injected;
* the faces the event shows are the faces it drew: in order for ``initiative_rolled``
  (``attempts``); as a multiset for an event with an ``outcome`` (its rolls' and saves'
  faces; the order of the dice among the rolls is not checked, see the docs); for a
  ``classified_drawn`` (Classified Objectives), ``CLASSIFIED_DICE_PER_CARD`` dice per card
  drawn (which cards they chose depends on the deck, which this file does not read).

Exit status 0 with a one-line summary; 1 naming the first failure (event index, event type,
die number, expected and found); 2 when the input cannot be read as JSON.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

FORMAT = "infinity-referee-record/1"
ALGORITHM = "hmac-sha256-d20/v1"
COMMITMENT_PREFIX = b"infinity-referee/dice-commitment/v1\x00"
KEY_PREFIX = b"infinity-referee/dice-key/v1\x00"
ACCEPT_BELOW = 4_294_967_280
"""2^32 minus (2^32 mod 20): values at or above it are rejected, so every face is equally likely."""
SIDES = ("A", "B")
HEX_DIGITS = frozenset("0123456789abcdef")
CLASSIFIED_DICE_PER_CARD = 6
"""d20 per Classified Objective card drawn (``missions/classified.py``, ``DICE_PER_PICK``)."""


class Failure(Exception):
    """The record does not check out; the message says where."""


@dataclass(frozen=True, slots=True)
class Summary:
    dice: int
    events: int
    rolling_events: int
    untied: int
    """Events with dice whose faces this verifier cannot match to what they show."""
    commitment: str
    fixed_dice: bool

    def line(self) -> str:
        text = (f"record OK: {self.dice} dice in {self.rolling_events} rolling events "
                f"of {self.events} events, commitment {self.commitment}")
        if self.untied:
            text += f" ({self.untied} events of unknown types: faces not matched to rolls)"
        if self.fixed_dice:
            text += ("; WARNING: fixed dice (a test room): whoever chose its seed knew every "
                     "die in advance")
        return text


# --- the dice -------------------------------------------------------------------------------


def commitment(secret: bytes) -> str:
    return hashlib.sha256(COMMITMENT_PREFIX + secret).hexdigest()


def dice_key(secret: bytes, contribution_a: bytes, contribution_b: bytes) -> bytes:
    return hmac.new(secret, KEY_PREFIX + contribution_a + contribution_b, hashlib.sha256).digest()


def die(key: bytes, number: int) -> int:
    """Die ``number`` (0-based over the whole game): 1..20."""
    attempt = 0
    while True:
        message = b"d20" + number.to_bytes(8, "big") + attempt.to_bytes(4, "big")
        value = int.from_bytes(hmac.new(key, message, hashlib.sha256).digest()[:4], "big")
        if value < ACCEPT_BELOW:
            return 1 + value % 20
        attempt += 1


# --- reading the record -------------------------------------------------------------------


def _field(container: Any, name: str, where: str, kind: type | tuple[type, ...]) -> Any:
    if not isinstance(container, dict) or name not in container:
        raise Failure(f"{where}.{name}: missing")
    value = container[name]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise Failure(f"{where}.{name}: expected {_kind_name(kind)}, found {value!r}")
    return value


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(k.__name__ for k in kinds)


def _hex32(value: Any, where: str) -> bytes:
    if not isinstance(value, str) or len(value) != 64 or not set(value) <= HEX_DIGITS:
        raise Failure(f"{where}: expected 64 lowercase hexadecimal characters, found {value!r}")
    return bytes.fromhex(value)


def _faces(values: Any, where: str) -> list[int]:
    if not isinstance(values, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 20 for v in values):
        raise Failure(f"{where}: expected a list of faces 1..20, found {values!r}")
    return values


# --- checking -----------------------------------------------------------------------------


def verify(record: Any) -> Summary:
    """Check ``record`` (parsed JSON); raises ``Failure`` at the first problem."""
    if not isinstance(record, dict):
        raise Failure("the record is not a JSON object")
    found = record.get("format")
    if found != FORMAT:
        raise Failure(f"format: expected {FORMAT!r}, found {found!r}")
    dice = _field(record, "dice", "record", dict)
    algorithm = dice.get("algorithm")
    if algorithm != ALGORITHM:
        raise Failure(f"dice.algorithm: expected {ALGORITHM!r}, found {algorithm!r}")
    secret = _hex32(dice.get("secret"), "dice.secret")
    published = dice.get("commitment")
    _hex32(published, "dice.commitment")
    if commitment(secret) != published:
        raise Failure(f"dice.commitment: {published} is not the commitment of dice.secret "
                      f"(SHA-256 of the prefix and the secret is {commitment(secret)})")
    contributions = _field(dice, "contributions", "dice", dict)
    events = _events(record)
    _check_revealed(events, dice)
    if _ended_before_any_roll(events, contributions):
        return Summary(0, len(events), 0, 0, published, record.get("fixed_dice") is True)
    raw = [_hex32(contributions.get(side), f"dice.contributions.{side}") for side in SIDES]
    key = dice_key(secret, raw[0], raw[1])
    _check_entropy(events, contributions)
    counter, rolling, untied = 0, 0, 0
    for index, event in events:
        if "dice" not in event:
            continue
        rolling += 1
        counter, tied = _check_rolls(index, event, key, counter)
        untied += 0 if tied else 1
    return Summary(counter, len(events), rolling, untied, published,
                   record.get("fixed_dice") is True)


def _events(record: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    entries = _field(record, "events", "record", list)
    events = []
    for position, entry in enumerate(entries, 1):
        where = f"events[{position - 1}]"
        index = _field(entry, "index", where, int)
        if index != position:
            raise Failure(f"{where}.index: expected {position}, found {index}")
        event = _field(entry, "event", where, dict)
        _field(event, "type", f"event {index}", str)
        events.append((index, event))
    if not events or events[-1][1]["type"] != "game_ended":
        raise Failure("events: the last event is not game_ended (the game is not over)")
    return events


def _check_revealed(events: list[tuple[int, dict[str, Any]]], dice: dict[str, Any]) -> None:
    """The record's dice block is what the game's end revealed."""
    index, ended = events[-1]
    revealed = _field(ended, "dice_revealed", f"event {index} (game_ended)", dict)
    for name in ("secret", "commitment", "contributions"):
        if revealed.get(name) != dice.get(name):
            raise Failure(f"dice.{name}: {dice.get(name)!r} differs from event {index} "
                          f"(game_ended) dice_revealed.{name}: {revealed.get(name)!r}")


def _ended_before_any_roll(events: list[tuple[int, dict[str, Any]]],
                           contributions: dict[str, Any]) -> bool:
    """A game conceded before both players chose their armies has no dice key and no die:
    a missing contribution is then the only correct record (and there is nothing to check
    but the commitment). A missing contribution beside a rolled die is a failure."""
    if all(contributions.get(side) for side in SIDES):
        return False
    rolled = next((index for index, event in events if "dice" in event), None)
    if rolled is not None:
        side = next(side for side in SIDES if not contributions.get(side))
        raise Failure(f"dice.contributions.{side} is missing, yet event {rolled} rolled dice")
    return True


def _check_entropy(events: list[tuple[int, dict[str, Any]]], contributions: dict[str, Any]) -> None:
    """Each contribution is the entropy its player sent with its army choice."""
    for index, event in events:
        if event["type"] != "army_chosen":
            continue
        side = event.get("side")
        if side in SIDES and event.get("entropy") != contributions[side]:
            raise Failure(f"dice.contributions.{side}: {contributions[side]} differs from the "
                          f"entropy of event {index} (army_chosen): {event.get('entropy')!r}")


def _check_rolls(index: int, event: dict[str, Any], key: bytes,
                 counter: int) -> tuple[int, bool]:
    """Check one rolling event; returns the die counter after it and whether its faces could
    be matched to what it shows."""
    kind = event["type"]
    where = f"event {index} ({kind})"
    dice = _field(event, "dice", where, dict)
    found_key = _field(dice, "key", f"{where} dice", str)
    if found_key != key.hex():
        raise Failure(f"{where}: dice.key is {found_key!r}, expected {key.hex()} (from the "
                      "secret and both contributions)")
    injected = _field(dice, "injected", f"{where} dice", list)
    if injected:
        raise Failure(f"{where}: dice.injected is {injected!r}, expected [] (a live game "
                      "never injects faces)")
    cursor = _field(dice, "cursor", f"{where} dice", int)
    drawn = _faces(_field(dice, "drawn", f"{where} dice", list), f"{where} dice.drawn")
    first = cursor - len(drawn)
    if first != counter:
        raise Failure(f"{where}: its dice are numbers {first}..{cursor - 1} "
                      f"(cursor {cursor}, {len(drawn)} drawn), expected them to start at die "
                      f"{counter}")
    for offset, face in enumerate(drawn):
        expected = die(key, counter + offset)
        if face != expected:
            raise Failure(f"{where}: die {counter + offset} (dice.drawn[{offset}]) is {face}, "
                          f"expected {expected}")
    return cursor, _tie(where, event, drawn)


def _tie(where: str, event: dict[str, Any], drawn: list[int]) -> bool:
    """The faces the event shows are the ones it drew (False: a kind this cannot tell)."""
    if event["type"] == "initiative_rolled":
        attempts = _field(event, "attempts", where, list)
        if not all(isinstance(attempt, list) for attempt in attempts):
            raise Failure(f"{where}: attempts: expected [A's face, B's face] pairs, "
                          f"found {attempts!r}")
        shown = _faces([face for attempt in attempts for face in attempt], f"{where} attempts")
        if shown != drawn:
            raise Failure(f"{where}: attempts show {shown}, expected the drawn dice {drawn}")
        return True
    if event["type"] == "classified_drawn":
        cards = _field(event, "cards", where, list)
        if len(drawn) != CLASSIFIED_DICE_PER_CARD * len(cards):
            raise Failure(f"{where}: {len(cards)} cards drawn with {len(drawn)} dice, expected "
                          f"{CLASSIFIED_DICE_PER_CARD} dice per card")
        return True
    if "outcome" not in event:
        return False
    outcome = _field(event, "outcome", where, dict)
    shown = []
    for n, roll in enumerate(_field(outcome, "rolls", f"{where} outcome", list)):
        dice = _field(roll, "dice", f"{where} outcome.rolls[{n}]", list)
        shown += _faces([d.get("face") if isinstance(d, dict) else d for d in dice],
                        f"{where} outcome.rolls[{n}].dice faces")
    for n, save in enumerate(_field(outcome, "saves", f"{where} outcome", list)):
        rolls = _field(save, "rolls", f"{where} outcome.saves[{n}]", list)
        shown += _faces([r.get("face") if isinstance(r, dict) else r for r in rolls],
                        f"{where} outcome.saves[{n}].rolls faces")
    if Counter(shown) != Counter(drawn):
        raise Failure(f"{where}: the rolls and saves show faces {sorted(shown)}, expected the "
                      f"drawn dice {sorted(drawn)} (sorted)")
    return True


# --- command line -------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1 or args[0] in ("-h", "--help"):
        print("usage: python -m server.verify RECORD.json   (- reads standard input)",
              file=sys.stderr)
        return 2
    try:
        if args[0] == "-":
            record = json.load(sys.stdin)
        else:
            with open(args[0], encoding="utf-8") as file:
                record = json.load(file)
    except (OSError, UnicodeDecodeError, ValueError) as error:
        print(f"cannot read {args[0]}: {error}", file=sys.stderr)
        return 2
    try:
        summary = verify(record)
    except Failure as failure:
        print(f"record FAILED: {failure}")
        return 1
    print(summary.line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
