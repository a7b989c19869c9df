"""Write client-js/test/fixtures/record.json: a small game record whose dice are made by the
server's own functions (server.rules.combat.dice: commitment, dice_key, die_face), for the unit
tests of client-js/src/verify.js. The events are synthetic: only their types, ``dice``
fields and the faces they show matter to a verifier (``python -m server.verify`` accepts the
file too). The secret and contributions are fixed, so the file is stable.

Run from the repository root: ``.venv/bin/python client-js/test/make_record_fixture.py``.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
# Only the dice functions are needed: never trip over compiled rules modules older than
# their sources while other parts of the rules core are being edited.
os.environ.setdefault("REFEREE_PURE_PYTHON", "1")

from server.rules.combat.dice import commitment, dice_key, die_face  # noqa: E402

SECRET = hashlib.sha256(b"client-js record fixture: secret").hexdigest()
CONTRIBUTIONS = {
    "A": hashlib.sha256(b"client-js record fixture: player A").hexdigest(),
    "B": hashlib.sha256(b"client-js record fixture: player B").hexdigest(),
}


def main() -> None:
    key = dice_key(SECRET, CONTRIBUTIONS["A"], CONTRIBUTIONS["B"])
    raw = bytes.fromhex(key)
    cursor = 0
    events: list[dict[str, object]] = []

    def rolled(kind: str, count: int, **fields: object) -> None:
        """An event that generated ``count`` dice, showing them as the server's events do:
        the initiative's attempts in pairs, an Order's faces in its rolls and saves."""
        nonlocal cursor
        drawn = [die_face(raw, cursor + i) for i in range(count)]
        cursor += count
        if kind == "initiative_rolled":
            fields["attempts"] = [drawn[i:i + 2] for i in range(0, count, 2)]
        else:
            attack, save = drawn[:max(1, count - 1)], drawn[max(1, count - 1):]
            fields["outcome"] = {"rolls": [{"trooper": "A-t5", "dice": [{"face": f} for f in attack]}],
                                 "saves": [{"trooper": "B-t3", "rolls": [{"face": f} for f in save]}]
                                 if save else [],
                                 "effects": []}
        events.append({"type": kind, **fields,
                       "dice": {"key": key, "cursor": cursor, "injected": [], "drawn": drawn}})

    events.append({"type": "army_chosen", "side": "A", "army": "helion-c1-patrol",
                   "entropy": CONTRIBUTIONS["A"]})
    events.append({"type": "army_chosen", "side": "B", "army": "vesper-c1-cell",
                   "entropy": CONTRIBUTIONS["B"]})
    rolled("initiative_rolled", 2)
    events.append({"type": "initiative_settled", "first": "A"})
    rolled("order_resolved", 4, order=1)
    # An event that rolls nothing new still carries the generator's state.
    events.append({"type": "order_resolved", "order": 2,
                   "outcome": {"rolls": [], "saves": [], "effects": []},
                   "dice": {"key": key, "cursor": cursor, "injected": [], "drawn": []}})
    rolled("order_resolved", 5, order=3)
    rolled("order_resolved", 1, order=4)
    for order in range(5, 13):  # a few dozen more dice
        rolled("order_resolved", 3 + order % 4, order=order)
    revealed = {"secret": SECRET, "commitment": commitment(SECRET), "contributions": CONTRIBUTIONS}
    events.append({"type": "game_ended", "result": {"winner": "B", "points": {"A": 0, "B": 0},
                                                     "reason": "concession"},
                   "dice_revealed": revealed})
    record = {
        "format": "infinity-referee-record/1",
        "room": "0-fixture",
        "created_ms": 1795000000000,
        "settings": {"ruleset": "codeone", "aro_window_s": 30.0, "visibility": "public",
                     "spectator_delay_s": 0.0},
        "fixed_dice": False,
        "dice": {"algorithm": "hmac-sha256-d20/v1", **revealed},
        "armies": {"A": "helion-c1-patrol", "B": "vesper-c1-cell"},
        "result": {"winner": "B", "points": {"A": 0, "B": 0}, "reason": "concession"},
        "events": [{"index": i + 1, "event": e} for i, e in enumerate(events)],
    }
    out = ROOT / "client-js" / "test" / "fixtures" / "record.json"
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {out.relative_to(ROOT)}: {cursor} dice, key {key[:16]}...")


if __name__ == "__main__":
    main()
