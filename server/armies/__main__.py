"""``python -m server.armies coverage DATA_DIR``: how much of an army data folder the referee
plays (docs/armies.md, "The coverage report").

Exit code 0 with the report on standard output; 2 with one line on standard error when the
folder is not army data (or the command line is wrong).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from server.node.army_data_folder import load_army_data
from server.rules.armies.army_coverage import TOP_ITEMS, army_coverage, coverage_report
from server.rules.armies.army_data import ArmyDataError

USAGE_ERROR = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m server.armies",
                                     description="Tools over the operator's army data.")
    commands = parser.add_subparsers(dest="command", required=True)
    coverage = commands.add_parser(
        "coverage", help="how many options of the army data the referee plays in full")
    coverage.add_argument("data_dir", type=Path, help="the army data folder (REFEREE_ARMY_DATA)")
    coverage.add_argument("--top", type=int, default=TOP_ITEMS,
                          help=f"how many unmapped items to list (default {TOP_ITEMS})")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = _parser().parse_args(argv)
    try:
        data = load_army_data(arguments.data_dir)
    except ArmyDataError as error:
        print(f"error: {arguments.data_dir} is not army data: {error.problem}", file=sys.stderr)
        return USAGE_ERROR
    print(coverage_report(army_coverage(data), max(arguments.top, 0)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
