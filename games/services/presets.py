"""The server's side of a player's table settings: auto-win, 摸切, auto-pass.

Taken by the server, not the page, so that they work under lag and keep claim protection whole
(docs/ui.md, "Table settings").  What is decided here:

- **auto-win** (``auto_win``): a legal win is taken the moment it is offered — on one's own turn
  (自摸) or in a claim window (a win on the discard).
- **摸切** (``tsumogiri``): on one's own turn, when every legal action is a discard (no win, no
  kong), the tile just drawn is discarded at once.
- **auto-pass** (``auto_pass_claims``): a claim window the seat could claim in is treated as if it
  had nothing to claim: it passes after the uniform pause (or at the protected window's one
  deadline), never sooner — a quicker answer would tell the others who held a claim — and the
  pass is not counted as a timeout.  Until then the player's own answer is taken as usual.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from games.engine import DISCARD, WIN, Action, Turn
from games.models import PlayerTableSettings
from games.runtime.prepared import PreparedSelect

AUTOMATIC_FIELDS = ("auto_pass_claims", "auto_win", "tsumogiri")
SEATS = 4
# Read on every step where a person owes a decision: compiled once (games.runtime.prepared; through
# the ORM, compiling this filter cost a sixth of the database thread under load), for the four
# chairs' users, padded with an id no account has.
_ROWS = PreparedSelect(
    lambda *ids: PlayerTableSettings.objects.filter(user_id__in=ids).only("user_id", *AUTOMATIC_FIELDS),
    arity=SEATS,
)
NO_USER = 0  # (ids start at 1)


def load(user_ids: Iterable[int | None]) -> dict[int, PlayerTableSettings]:
    """The settings rows of these users that switch on any automatic action, by user id."""
    ids = list(dict.fromkeys(u for u in user_ids if u is not None))
    if not ids:
        return {}
    if len(ids) > SEATS:
        raise ValueError(f"the settings of at most {SEATS} users are read at once, not {len(ids)}")
    rows = _ROWS(*ids, *[NO_USER] * (SEATS - len(ids)))
    return {r.user_id: r for r in rows if r.auto_pass_claims or r.auto_win or r.tsumogiri}


def from_flags(
    flags: Mapping[int, tuple[bool, bool, bool]], user_ids: Iterable[int | None]
) -> dict[int, PlayerTableSettings]:
    """What :func:`load` answers for these users, from their (auto-pass, auto-win, 摸切) flags
    read with the step's revisions (games.runtime.live_rows.step_check): no second query."""
    out: dict[int, PlayerTableSettings] = {}
    for user_id in user_ids:
        if user_id is None:
            continue
        found = flags.get(user_id)
        if found is not None and any(found):
            auto_pass_claims, auto_win, tsumogiri = found
            out[user_id] = PlayerTableSettings(
                user_id=user_id, auto_pass_claims=auto_pass_claims, auto_win=auto_win, tsumogiri=tsumogiri
            )
    return out


def immediate_action(t: Turn, seat: int, prefs: PlayerTableSettings | None) -> Action | None:
    """The action the seat's settings take for it now, at once (auto-win, 摸切), if any."""
    if prefs is None or seat not in t.legal or t.asked:
        return None
    legal = t.legal[seat]
    if prefs.auto_win:
        win = next((a for a in legal if a.kind == WIN), None)
        if win is not None:
            return win
    if prefs.tsumogiri and not t.in_window and seat == t.hand.turn:
        drawn = t.hand.players[seat].drawn
        if drawn is not None and all(a.kind == DISCARD for a in legal):
            own = Action(seat, DISCARD, drawn)
            if own in legal:
                return own
    return None


def passes_claims(prefs: PlayerTableSettings | None) -> bool:
    return prefs is not None and prefs.auto_pass_claims
