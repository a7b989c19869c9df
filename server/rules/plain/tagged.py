"""Tagged unions: the base of the dataclasses that travel as one of several (commands,
events, skills), told apart in plain data by their ``"type"`` key."""

from __future__ import annotations

from typing import Any, ClassVar


class Tagged:
    """Base for dataclasses that travel inside a tagged union (commands, events, skills).

    Each concrete subclass sets ``TYPE``; ``to_plain`` writes it as the ``"type"`` key and
    ``from_plain`` on the union's base class reads it back to pick the subclass.
    """

    TYPE: ClassVar[str] = ""
    _registry: ClassVar[dict[str, type[Tagged]]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "_registry" not in cls.__dict__ and not cls.__dict__.get("TYPE"):
            # A new union base (e.g. Command, Event): it gets its own registry.
            cls._registry = {}
            return
        tag = cls.__dict__.get("TYPE")
        if tag:
            known = cls._registry.get(tag)
            # dataclass(slots=True) re-creates the class: the same class may register twice.
            if known is not None and known.__qualname__ != cls.__qualname__:
                raise TypeError(f"duplicate tag {tag!r} for {cls.__name__}")
            cls._registry[tag] = cls

    @classmethod
    def tags(cls) -> tuple[str, ...]:
        return tuple(sorted(cls._registry))

    @classmethod
    def class_for(cls, tag: str) -> type[Tagged] | None:
        return cls._registry.get(tag)

