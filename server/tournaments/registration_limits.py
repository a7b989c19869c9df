"""Who may register in a tournament themselves now (docs/tournaments.md, "Registration
limits").

Registering costs nothing but a place, and anyone may: one client filled a public
tournament's 256 places in seconds. So a player who registers themselves (no organizer
token) counts against two limits, both by client address (``server.lobby.admission``'s
``client_address``: behind our nginx the forwarded address, an IPv6 address by its /64):

- **per address, on each node**: a token bucket (``client_registration_burst`` at once,
  ``client_registrations_per_hour`` sustained), over all tournaments: over it, 429
  ``too_many_registrations`` with ``Retry-After``. Every attempt counts, whatever it gets.
- **per address, per tournament**: at most ``registrations_per_address`` places held at
  once by players registered from one address (409 ``registrations_per_address``). The
  log records, with each self-registration, ``registrant``: a hash of the tournament id and
  the address (never the address, never shown), so every node counts the same.

The organizer adds players with the organizer token beyond both, and may close
registration (``close_registration``).
"""

from __future__ import annotations

import hashlib

from server.config import Settings
from server.lobby.admission import AddressBudget, TrustedProxies


def registrant(tournament_id: str, client: str) -> str:
    """The key a self-registration is recorded under: the address can't be read back from
    it without guessing, and it differs between tournaments."""
    return hashlib.sha256(f"registrant:{tournament_id}:{client}".encode()).hexdigest()[:32]


class RegistrationAdmission(AddressBudget):
    """The per-address registration budget of one node."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings.client_registrations_per_hour,
                         settings.client_registration_burst, settings.client_table_size,
                         "too_many_registrations", "registrations",
                         ", or ask the organizer to add you")
        self.trusted = TrustedProxies(settings.trusted_proxies)
        self.per_tournament = settings.registrations_per_address


def registration_admission_for(state: object, settings: Settings) -> RegistrationAdmission:
    """The app's one ``RegistrationAdmission`` (on ``app.state``, made at first use)."""
    admission = getattr(state, "registration_admission", None)
    if not isinstance(admission, RegistrationAdmission):
        admission = RegistrationAdmission(settings)
        setattr(state, "registration_admission", admission)  # noqa: B010 (Starlette's State)
    return admission
