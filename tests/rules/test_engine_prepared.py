"""Everything a game needs is ready when the engine is made, not at its first use in a game,
where the cost fell on the player whose command first needed it: every module (the combat
resolution was imported at the first roll: 25 ms in a server that writes no bytecode), and
every event's, command's and the state's plain-data converters, both ways
(``engine.prepare``: a converter made at a type's first use reads the type hints
and compiles generated source, 6 ms for the first roll's events). Checked in a fresh
interpreter, where nothing was converted yet.

Implementation test: no rule section."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHECK = textwrap.dedent("""
    from server.rules import engine
    from server.rules.plain import decoding, encoding
    from server.rules.commands import Command
    from server.rules.events import Event
    from server.rules.state import GameState
    classes = [*Event._registry.values(), *Command._registry.values(), GameState]
    assert not any(c in encoding.TO_PLAIN or c in decoding.DECODER_OF_CLASS for c in classes)
    assert engine.prepare() > len(classes)  # (and what their fields hold)
    missing = [c.__name__ for c in classes
               if c not in encoding.TO_PLAIN or c not in decoding.DECODER_OF_CLASS]
    assert not missing, missing
    # A game's conversions then make no converter of their own.
    from testkit.scripted_game import plan
    from server.rooms.rules_engine import RulesCoreEngine
    import dataclasses, enum
    def costly(kinds):  # (a str's or an int's converter is one dict entry, nothing made)
        return {k for k in kinds if isinstance(k, type)
                and (dataclasses.is_dataclass(k) or issubclass(k, enum.Enum))}
    made = (costly(encoding.TO_PLAIN), costly(decoding.DECODER_OF_CLASS))
    import sys
    modules = set(sys.modules)
    rules = RulesCoreEngine()
    state = rules.new_game("codeone", 7, "sample-open-codeone")
    for side, body in plan(7).commands(clock_closes_windows=True):
        verdict = rules.decide(state, side, rules.parse_command(body))
        assert verdict.events is not None, (body, verdict.code)
        for event in verdict.events:
            plain = encoding.to_plain(event)
            assert decoding.from_plain(Event, plain) == event
        state = rules.apply_all(state, verdict.events)
    plain = rules.state_to_plain(state)
    assert rules.state_from_plain(plain) == state
    new = (costly(encoding.TO_PLAIN) - made[0], costly(decoding.DECODER_OF_CLASS) - made[1])
    assert new == (set(), set()), new
    imported = sorted(m for m in set(sys.modules) - modules if m.startswith("server."))
    assert not imported, imported
    print("ok")
""")


def test_modules_and_converters_are_ready_before_a_game_needs_them() -> None:
    done = subprocess.run([sys.executable, "-c", CHECK], cwd=ROOT, capture_output=True,
                          text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
