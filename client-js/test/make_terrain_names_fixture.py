"""Write client-js/test/fixtures/terrain-names.json: how the rules core names every piece of
every shipped table (``server.rules.table.terrain_names``), for client-js/app/terrain-names.js
to match (test/terrain-names.test.js); tests/rules/table/test_table_messages.py checks that the
file is current.

Run from the repository root: ``.venv/bin/python client-js/test/make_terrain_names_fixture.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "client-js" / "test" / "fixtures" / "terrain-names.json"


def names() -> dict[str, dict[str, str]]:
    sys.path.insert(0, str(ROOT))
    from server.rules.table.table_catalogue import shipped
    from server.rules.table.terrain_names import terrain_name

    return {item.layout.id: {piece.id: terrain_name(piece, item.layout.table)
                             for piece in item.layout.table.terrain}
            for item in shipped()}


if __name__ == "__main__":
    FIXTURE.write_text(json.dumps(names(), indent=1) + "\n", encoding="utf-8")
