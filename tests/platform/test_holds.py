"""A match's stake is held in the wallets from its start to its end.

One balance backs only the holds it covers: sitting and readying ask for the *available* balance,
the match start holds the stake of every human seat (all or none), a loss at one table is paid
from that table's hold and the free balance only, and the holds are released when the match
ends.  What a hand shows (Hand.deltas, the table's scores, the hand-end frame) is what was booked.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts import services as accounts
from accounts.models import Hold, LedgerEntry, Wallet
from games import services
from games.engine.state import Result
from games.models import Hand, Table
from tests.platform.live_helpers import rigged

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("instant_play")]
VARIANT = "zhejiang_caishen"


def player(name: str, balance: int = 1000) -> Any:
    """A user whose wallet holds ``balance`` (the 1000 grant, moved through the ledger)."""
    user = get_user_model().objects.create_user(name, password="pw-123456")
    wallet = Wallet.objects.get(user=user)
    if balance != wallet.balance:
        accounts.post(wallet, balance - wallet.balance, LedgerEntry.STAFF_DEBIT, note="test set-up")
    return user


def wallet(user: Any) -> Wallet:
    return Wallet.objects.get(user=user)


def holds_of(user: Any) -> list[tuple[str, int]]:
    return sorted(Hold.objects.filter(wallet__user=user, released_at__isnull=True).values_list("reference", "amount"))


def with_bots(owner: Any, stake: int, hands_total: int = 1, variant: str = VARIANT) -> Table:
    """``owner`` sits at a new table and fills it with (ready) bots; not ready yet."""
    table = services.create_table(owner, variant, {}, stake=stake, hands_total=hands_total)
    services.sit(table.pk, owner)
    services.add_bots(table.pk, owner)
    return table


def with_people(users: list[Any], stake: int, hands_total: int = 1) -> Table:
    table = services.create_table(users[0], VARIANT, {}, stake=stake, hands_total=hands_total)
    for u in users:
        services.sit(table.pk, u)
    return table


def status(table: Table) -> str:
    return Table.objects.get(pk=table.pk).status


def play_out(table: Table, until_hand: int | None = None) -> None:
    """Fire every deadline until the match ends (or hand ``until_hand`` is finished)."""
    for _ in range(600):
        row = Hand.objects.filter(table=table).order_by("-number").first()
        if until_hand is not None and row is not None and row.number >= until_hand and row.status == Hand.FINISHED:
            return
        t = Table.objects.get(pk=table.pk)
        if t.status == Table.FINISHED:
            return
        if t.ready_deadline is not None and t.pre_hand is not None:
            Table.objects.filter(pk=t.pk).update(ready_deadline=t.ready_deadline.replace(year=2000))
            services.wake("table", t.pk, services.deadline_token(t.ready_deadline.replace(year=2000)))
            continue
        assert row is not None and row.deadline_at is not None, "the match stalled"
        Hand.objects.filter(pk=row.pk).update(deadline_at=row.deadline_at.replace(year=2000))
        services.wake("hand", row.pk, row.seq)
    raise AssertionError("the match did not end")


def end_hand(table: Table, loser: Any, owed: int, winners: dict[Any, int]) -> Hand:
    """End the table's running hand with ``loser`` owing ``owed`` points to ``winners`` (user or
    chair -> points) and book it the way the scaled mode's worker does (settle_finished_hand)."""
    row = Hand.objects.filter(table=table).order_by("-number").first()
    assert row is not None and row.status == Hand.PLAYING
    seats = list(Table.objects.get(pk=table.pk).seats.all())
    chair_of = {s.user_id: s.position for s in seats if s.user_id is not None and not s.is_bot}
    points = [0, 0, 0, 0]
    points[row.engine_seat(chair_of[loser.pk])] = -owed
    for who, won in winners.items():
        chair = who if isinstance(who, int) else chair_of[who.pk]
        points[row.engine_seat(chair)] = won
    winner = max(range(4), key=lambda s: points[s])
    result = Result("win", winner=winner, deltas=points)
    Hand.objects.filter(pk=row.pk).update(
        status=Hand.FINISHED, result=result.to_json(), deadline_at=None, finished_at=timezone.now()
    )
    assert services.settle_finished_hand(row.pk)
    return Hand.objects.get(pk=row.pk)


def booked(row: Hand) -> dict[int, int]:
    return dict(LedgerEntry.objects.filter(reference=f"hand:{row.pk}").values_list("wallet_id", "amount"))


# ------------------------------------------------------------------ one balance, many tables
def test_one_balance_at_six_tables_starts_only_the_matches_it_covers() -> None:
    me = player("six")  # 1000 units; stake 20 x CAISHEN_SIT_MULTIPLE 20 = 400 per match
    tables = [with_bots(me, stake=20) for _ in range(6)]  # sitting holds nothing yet

    outcomes = []
    for table in tables:
        try:
            services.set_ready(table.pk, me)
            outcomes.append("started")
        except services.Refused as exc:
            outcomes.append(str(exc))

    assert outcomes[:2] == ["started", "started"]
    for refusal in outcomes[2:]:
        assert refusal == (
            "you need 400 available to play at this table (you have 200 available: "
            "800 of your balance of 1000 is held by your other matches)"
        )
    assert [status(t) for t in tables] == [Table.PLAYING] * 2 + [Table.WAITING] * 4
    assert holds_of(me) == [(f"table:{tables[0].pk}", 400), (f"table:{tables[1].pk}", 400)]
    w = wallet(me)
    assert (w.balance, w.held, w.available) == (1000, 800, 200)
    # Sitting asks for the available balance too.
    seventh = services.create_table(me, VARIANT, {}, stake=20)
    with pytest.raises(services.Refused, match="you have 200 available: 800 of your balance"):
        services.sit(seventh.pk, me)


def test_the_wallet_page_and_the_api_show_what_is_held() -> None:
    me = player("shown")
    tables = [with_bots(me, stake=15) for _ in range(2)]  # 300 each
    for table in tables:
        services.set_ready(table.pk, me)
    client = Client()
    client.force_login(me)

    html = client.get(reverse("accounts:wallet"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    account = client.get("/api/account/").json()

    assert "data-wallet-balance>1000<" in html
    assert "data-wallet-held>600<" in html and "data-wallet-available>400<" in html
    for table in tables:  # in player words; the stored reference only as the tooltip
        assert f'title="table:{table.pk}">Match at table {table.pk}<' in html
        assert f"table {table.pk}, stake 15" in html
    assert (account["balance"], account["held"], account["available"]) == (1000, 600, 400)
    chinese = client.get(reverse("accounts:wallet"), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "进行中对局冻结" in chinese and "可用" in chinese


def test_the_hold_is_released_when_the_match_ends_and_the_balance_is_free_again() -> None:
    me = player("ender")
    table = with_bots(me, stake=20)
    services.set_ready(table.pk, me)
    assert holds_of(me) == [(f"table:{table.pk}", 400)]

    play_out(table)

    assert status(table) == Table.FINISHED
    assert holds_of(me) == []
    w = wallet(me)
    assert w.held == 0 and w.available == w.balance
    assert Hold.objects.get(wallet=w).released_at is not None
    # What the match held is free for the next one.
    again = with_bots(me, stake=int(w.balance) // 20)
    services.set_ready(again.pk, me)
    assert status(again) == Table.PLAYING


def test_a_seat_committed_elsewhere_meanwhile_is_unreadied_and_the_match_waits() -> None:
    me = player("busy")
    others = [player(f"other{i}") for i in range(3)]
    table = with_people([me, *others], stake=30)  # 600 per seat
    services.set_ready(table.pk, me)  # 1000 available: fine
    elsewhere = with_bots(me, stake=30)
    services.set_ready(elsewhere.pk, me)  # that match holds 600 of the 1000

    for u in others:
        services.set_ready(table.pk, u)  # the last one's ready stands, but the match cannot start

    assert status(table) == Table.WAITING
    seats = {s.user_id: s.ready for s in Table.objects.get(pk=table.pk).seats.all()}
    assert seats[me.pk] is False and all(seats[u.pk] for u in others)
    assert Table.objects.get(pk=table.pk).ready_deadline is not None  # the unready seat's countdown
    assert holds_of(me) == [(f"table:{elsewhere.pk}", 600)]
    assert not Hold.objects.filter(reference=f"table:{table.pk}").exists()
    with pytest.raises(services.Refused, match="you have 400 available: 600 of your balance of 1000 is held"):
        services.set_ready(table.pk, me)


def test_a_caller_whose_stake_was_committed_meanwhile_is_refused_and_left_unready(monkeypatch: Any) -> None:
    me = player("racer")
    others = [player(f"mate{i}") for i in range(3)]
    table = with_people([me, *others], stake=30)
    for u in others:
        services.set_ready(table.pk, u)
    original = services.match.start_match

    def committed_meanwhile(t: Table, first_hand: Any = None) -> Any:
        # Another table took 600 of my 1000 between my ready's check and the match's holds.
        assert accounts.take_holds("table:elsewhere", {wallet(me).pk: 600}) == {}
        return original(t, first_hand)

    monkeypatch.setattr(services.match, "start_match", committed_meanwhile)

    with pytest.raises(services.Refused, match="you need 600 available to play at this table"):
        services.set_ready(table.pk, me)

    assert status(table) == Table.WAITING
    assert Table.objects.get(pk=table.pk).seats.get(user=me).ready is False
    assert holds_of(me) == [("table:elsewhere", 600)]
    assert not Hold.objects.filter(reference=f"table:{table.pk}").exists()


def test_a_player_emptied_at_another_table_pays_this_table_only_its_hold() -> None:
    me = player("loser")
    a_mates = [player(f"a{i}") for i in range(3)]
    b_mates = [player(f"b{i}") for i in range(3)]
    a, b = with_people([me, *a_mates], stake=20), with_people([me, *b_mates], stake=20)  # 400 each
    for table, mates in ((a, a_mates), (b, b_mates)):
        for u in [me, *mates]:
            services.set_ready(table.pk, u)
    assert holds_of(me) == [(f"table:{a.pk}", 400), (f"table:{b.pk}", 400)]

    # At A I owe 60 points x 20 = 1200: A may take my balance less B's hold, 600.
    row_a = end_hand(a, me, 60, {u: 20 for u in a_mates})
    assert booked(row_a)[wallet(me).pk] == -600
    assert wallet(me).balance == 400 and holds_of(me) == [(f"table:{b.pk}", 400)]  # A's released

    # At B I owe 1200 again: B's winners still get what B's hold covers.
    row_b = end_hand(b, me, 60, {u: 20 for u in b_mates})
    rows = booked(row_b)
    assert rows[wallet(me).pk] == -400
    assert sorted(rows[wallet(u).pk] for u in b_mates) == [133, 133, 134]
    assert sum(rows.values()) == 0
    assert wallet(me).balance == 0 and holds_of(me) == []
    assert row_b.deltas == {str(s.position): rows.get(wallet(s.user).pk, 0) for s in b.seats.all()}


def test_score_only_tables_and_bots_hold_nothing() -> None:
    people = [player(f"t{i}") for i in range(4)]
    score_only = services.create_table(people[0], VARIANT, {}, stake=0, hands_total=1, score_only=True)
    for u in people:
        services.sit(score_only.pk, u)
    for u in people:
        services.set_ready(score_only.pk, u)
    assert status(score_only) == Table.PLAYING
    assert not Hold.objects.exists()

    me = player("botmate")
    table = with_bots(me, stake=5)
    services.set_ready(table.pk, me)
    assert status(table) == Table.PLAYING
    assert list(Hold.objects.values_list("wallet__user", "amount")) == [(me.pk, 100)]  # none for the house


def test_an_escape_penalty_never_takes_another_tables_hold() -> None:
    me = player("runner", balance=500)
    other = with_bots(me, stake=20)
    services.set_ready(other.pk, me)  # holds 400 of my 500
    table = with_bots(me, stake=3, hands_total=2, variant="dongbei")  # holds 60; the penalty is 100 x 3
    services.set_ready(table.pk, me)
    services.choose(table.pk, me, "piao", 0)  # the pre-hand 飘 question
    assert Hand.objects.get(table=table).status == Hand.PLAYING
    assert holds_of(me) == sorted([(f"table:{other.pk}", 400), (f"table:{table.pk}", 60)])

    services.stand(table.pk, me)

    penalty = LedgerEntry.objects.get(wallet__user=me, reference__startswith="escape-penalty:")
    before = penalty.balance_after - penalty.amount
    assert -penalty.amount == min(300, before - 400)  # this table's hold plus the free balance only
    assert penalty.balance_after >= 400
    assert (f"table:{other.pk}", 400) in holds_of(me)
    # Once the hand I left is booked, a house bot plays my chair: my hold there is released.
    play_out(table, until_hand=1)
    assert holds_of(me) == [(f"table:{other.pk}", 400)]
    assert wallet(me).balance >= 400


# ------------------------------------------------------ what a hand shows is what was booked
def test_shown_deltas_are_the_booked_amounts_when_a_loss_is_capped() -> None:
    me = player("short", balance=30)  # stake 1: the match holds 20 of it
    table = with_bots(me, stake=1, hands_total=2)
    services.set_ready(table.pk, me)
    chairs = [s.position for s in table.seats.all() if s.is_bot]

    # I owe 100 and can pay 30; two bots won 60 and 40.
    row = end_hand(table, me, 100, {chairs[0]: 60, chairs[1]: 40})

    rows = booked(row)
    house = accounts.system_wallet()
    mine = str(table.seats.get(user=me).position)
    assert rows == {wallet(me).pk: -30, house.pk: 30}
    expected = {mine: -30, str(chairs[0]): 18, str(chairs[1]): 12, str(chairs[2]): 0}
    assert row.deltas == expected
    assert sum(row.deltas.values()) == 0
    assert sum(row.deltas[str(c)] for c in chairs) == rows[house.pk]  # the bots share the house's row
    assert Table.objects.get(pk=table.pk).scores == expected
    # The hand-end frame (a socket's snapshot) shows the same.
    frame = services.state_for(Table.objects.get(pk=table.pk), me)
    assert frame["hand"]["deltas"] == expected and frame["table"]["scores"] == expected


def test_a_capped_hand_settled_inline_shows_what_was_booked(settings: Any) -> None:
    settings.CAISHEN_SIT_MULTIPLE = 0  # nothing asked or held: a loss can exceed the balance
    me = player("inline", balance=3)
    table = services.create_table(me, VARIANT, {}, stake=5, hands_total=1)
    services.sit(table.pk, me, 0)
    table.seats.exclude(position=0).update(is_bot=True, ready=True)
    table.seats.filter(position=0).update(ready=True)
    table.refresh_from_db()
    row = services.start_match(table, first_hand=rigged())  # I am East and must discard
    assert row is not None and row.engine_seat(0) == 0

    # South (a bot) wins on my 6s: I owe 5 and can pay 3; the step settles inline.
    services.submit(row.pk, me, {"do": "discard", "tile": "6s"}, Hand.objects.get(pk=row.pk).seq)

    row = Hand.objects.get(pk=row.pk)
    assert row.status == Hand.FINISHED and row.settled
    assert row.result is not None and row.result["winner"] == "S"
    house = accounts.system_wallet()
    assert booked(row) == {wallet(me).pk: -3, house.pk: 3}
    assert row.deltas == {"0": -3, "1": 3, "2": 0, "3": 0}
    assert Table.objects.get(pk=table.pk).scores == row.deltas
