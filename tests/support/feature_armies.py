"""Army lists made for the liveness tests from the shipped ones, each with features the
shipped lists of its format lack or never combine (``tests/rules/test_liveness.py``).

- ``hidden-c1-cell`` (CodeOne): the shipped CodeOne lists have no Hidden Deployment; here the
  Lieutenant (the boss) and the camouflaged ghost may deploy hidden, so the game starts in
  Loss of Lieutenant while the boss stays hidden.
- ``hidden-vanguard`` (N5): the Controller of the drones (the tinker) has Hidden Deployment,
  so its Peripherals stand on the table while it may be hidden; the scout has Camouflage and
  Hidden Deployment both; a berserker unit is Impetuous beside the drones.
- ``hidden-raiders`` (N5): the Lieutenant has Hidden Deployment and Camouflage.
- ``deploying-vanguard`` (N5): Infiltration, Forward Deployment, Chain of Command, Climbing
  Plus and Super-Jump (issue 36) on the Helion list, whose troopers play differently from
  the Orrery and Petrel ones that ship these skills (an Infiltrating HI, a Forward Deployed
  line trooper, a Chain of Command Hacker).

They are built from the shipped JSON files and validated by ``load_army_list`` like any
army file; they are chosen by applying the ``army_chosen`` event (the ``choose_army``
command only names shipped lists).
"""

from __future__ import annotations

import copy
import json
from functools import cache
from importlib import resources
from typing import Any

from server.rules.armies.army_catalogue import load_weapons
from server.rules.armies.army_list import ArmyList, load_army_list


def _shipped(army_id: str) -> dict[str, Any]:
    path = resources.files("server.rules.data").joinpath("armies").joinpath(f"{army_id}.json")
    with path.open("r", encoding="utf-8") as stream:
        data: dict[str, Any] = json.load(stream)
    return copy.deepcopy(data)


def _unit(data: dict[str, Any], unit_id: str) -> dict[str, Any]:
    unit: dict[str, Any] = next(u for u in data["units"] if u["id"] == unit_id)
    return unit


def _hidden_c1_cell() -> dict[str, Any]:
    data = _shipped("vesper-c1-cell")
    data.update(id="hidden-c1-cell", name="Hidden Cell (CodeOne, test list)")
    _unit(data, "boss")["hidden_deployment"] = True
    _unit(data, "ghost")["hidden_deployment"] = True
    return data


def _hidden_vanguard() -> dict[str, Any]:
    data = _shipped("helion-vanguard")
    data.update(id="hidden-vanguard", name="Hidden Vanguard (test list)")
    _unit(data, "tinker")["hidden_deployment"] = True
    _unit(data, "pathfinder")["hidden_deployment"] = True
    berserker = copy.deepcopy(_unit(_shipped("vesper-raiders"), "razorback"))
    data["units"].append(berserker)
    lancer = next(e for e in data["entries"] if e["unit"] == "lancer")
    lancer["unit"] = "razorback"
    data["points"] = 310  # the Razorback costs 2 more than the Lancer it replaces
    return data


def _hidden_raiders() -> dict[str, Any]:
    data = _shipped("vesper-raiders")
    data.update(id="hidden-raiders", name="Hidden Raiders (test list)")
    boss = _unit(data, "boss")
    boss.update(hidden_deployment=True, camouflage=3, mimetism=3)
    return data


def _deploying_vanguard() -> dict[str, Any]:
    """Issue 36's deployment and movement skills: Infiltration (the bulwark, and the
    camouflaged pathfinder), Forward Deployment +4 (the lancers), Chain of Command (the
    adept), Climbing Plus (the spray lancer), Super-Jump (the stormdrop)."""
    data = _shipped("helion-vanguard")
    data.update(id="deploying-vanguard", name="Deploying Vanguard (test list)")
    _unit(data, "bulwark")["infiltration"] = True
    _unit(data, "pathfinder")["infiltration"] = True
    _unit(data, "lancer")["forward_deployment"] = 4
    _unit(data, "adept")["chain_of_command"] = True
    _unit(data, "lancer_spray")["climbing_plus"] = True
    _unit(data, "stormdrop")["super_jump"] = True
    return data


@cache
def feature_armies() -> dict[str, ArmyList]:
    weapons = load_weapons()
    return {army.id: army for army in (load_army_list(make(), weapons) for make in
                                        (_hidden_c1_cell, _hidden_vanguard, _hidden_raiders,
                                         _deploying_vanguard))}
