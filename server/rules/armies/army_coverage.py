"""How much of the operator's army data the referee plays (docs/armies.md, "The coverage
report"): every option of every profile group of every faction document is converted as an
army code would bring it (no customisations), and counted as fully refereed when nothing of
it is not refereed; the unmapped items are counted once per option that carries them, so the
catalogue can grow where it matters. ``python -m server.armies coverage DATA_DIR`` prints it.

Implementation module: no rule section.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from server.rules.armies.army_data import ArmyData, ArmyDataError
from server.rules.armies.trooper_conversion import TrooperConversionError, convert_trooper

TOP_ITEMS = 20


@dataclass(frozen=True, slots=True)
class FactionCoverage:
    """One faction document's options: how many, how many fully refereed, and how many the
    engine cannot field at all (a characteristic the data leaves empty, no Order)."""

    faction_id: int
    name: str
    options: int
    fully_refereed: int
    unconvertible: int


@dataclass(frozen=True, slots=True)
class Coverage:
    factions: tuple[FactionCoverage, ...]
    items: tuple[tuple[str, int], ...]
    """Every unmapped item ("equipment: Glare Visor") with the number of options carrying
    it, most frequent first (ties by name)."""

    @property
    def options(self) -> int:
        return sum(faction.options for faction in self.factions)

    @property
    def fully_refereed(self) -> int:
        return sum(faction.fully_refereed for faction in self.factions)

    @property
    def unconvertible(self) -> int:
        return sum(faction.unconvertible for faction in self.factions)


def army_coverage(data: ArmyData) -> Coverage:
    counts: Counter[str] = Counter()
    factions: list[FactionCoverage] = []
    for faction_id in data.faction_ids:
        options = fully = unconvertible = 0
        for unit in data.units(faction_id):
            for group in unit.groups:
                for option in group.options:
                    options += 1
                    try:
                        trooper = data.trooper(faction_id, unit.id, group.id, option.id)
                        converted = convert_trooper(data, trooper)
                    except (ArmyDataError, TrooperConversionError):
                        unconvertible += 1
                        continue
                    keys = {f"{item.kind.value}: {item.name}" for item in converted.not_refereed}
                    counts.update(keys)
                    fully += not keys
        factions.append(FactionCoverage(faction_id, data.faction(faction_id).name, options,
                                        fully, unconvertible))
    items = tuple(sorted(counts.items(), key=lambda pair: (-pair[1], pair[0])))
    return Coverage(tuple(factions), items)


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def _options_line(fully: int, options: int, unconvertible: int) -> str:
    line = f"{fully} of {options} options fully refereed ({_share(fully, options)})"
    if unconvertible:
        line += f", {unconvertible} cannot be fielded at all"
    return line


def coverage_report(coverage: Coverage, top: int = TOP_ITEMS) -> str:
    """The report as text, one faction a line, the total, then the ``top`` unmapped items."""
    lines = ["Army data coverage: options the referee plays in full, per faction."]
    lines += [f"  {faction.faction_id} {faction.name}: "
              f"{_options_line(faction.fully_refereed, faction.options, faction.unconvertible)}"
              for faction in coverage.factions]
    lines.append(f"Total: {_options_line(coverage.fully_refereed, coverage.options, coverage.unconvertible)}")
    shown = coverage.items[:top]
    lines.append(f"Most frequent items not refereed (options carrying them), top {len(shown)} "
                 f"of {len(coverage.items)}:")
    lines += [f"  {count:5d}  {item}" for item, count in shown]
    return "\n".join(lines)
