"""``Hand.views``: the fan-out's batched rendering gives each reader exactly its own view.

The batch shares what everyone may see between the views; these properties check, at every
step of random bot hands in every rule set, that sharing leaks nothing and changes nothing:
the batch equals the views rendered one by one (deep copies, so no view was changed by
rendering another), a reader's own entry alone carries concealed tiles, and the claim window
reaches only the seats that may answer.
"""

from __future__ import annotations

import copy
import random

from hypothesis import given
from hypothesis import strategies as st

from games.engine.driver import turn
from games.engine.tiles import format_tiles
from games.engine.variants import get_variant
from tests.engine.test_properties import PROPS, bot_mixes, rng_seeds, seeds, steps, variant_keys

READERS = [None, 0, 1, 2, 3]


def check_views(hand) -> None:  # type: ignore[no-untyped-def]
    one_by_one = {r: copy.deepcopy(hand.view(r)) for r in READERS}
    batch = hand.views(READERS)
    assert batch == one_by_one
    # A step hands the views the legal actions its driver computed: the same views.
    assert hand.views(READERS, legal=turn(hand).legal) == one_by_one
    waiting = set(hand.window.waiting_on()) if hand.window is not None else set()
    for reader, view in batch.items():
        for i, entry in enumerate(view["players"]):
            mine = reader == i
            assert (entry["hand"] is not None) == mine
            if mine:
                assert entry["hand"] == format_tiles(hand.players[i].hand)
                # Built from the public entry: what the seat's own rendering gives, key order too.
                whole = hand._player_view(i, own=True)
                assert entry == whole and list(entry) == list(whole)
            else:
                assert entry == batch[None]["players"][i]  # what everyone sees of seat i
                assert entry["drawn"] is None
        assert (view["window"] is not None) == (reader is not None and hand.window is not None and reader in waiting)
        assert (view["legal_actions"] == []) or reader is not None


@PROPS
@given(variant=variant_keys, seed=seeds, bots=bot_mixes, rng_seed=rng_seeds, every=st.integers(1, 4))
def test_batched_views_equal_the_views_one_by_one(
    variant: str, seed: str, bots: list[str], rng_seed: int, every: int
) -> None:
    hand = get_variant(variant).new_hand(seed=seed)
    check_views(hand)
    for n, _ in enumerate(steps(hand, bots, random.Random(rng_seed))):
        if n % every == 0 or hand.ended:
            check_views(hand)
    check_views(hand)  # the ended hand: everything revealed, to everyone alike
