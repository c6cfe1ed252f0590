"""Wallets and the ledger: grants, balances, the never-negative rule, capped and idempotent settlement."""

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Sum

from accounts import services
from accounts.models import Hold, LedgerEntry, Profile, Wallet


def make_user(username, balance=None):
    """A user with a wallet; ``balance`` replaces the starting grant through the ledger."""
    user = get_user_model().objects.create_user(username, password="pw-for-tests-1")
    if balance is not None:
        wallet = user.wallet
        diff = balance - wallet.balance
        if diff:
            services.post(
                wallet, diff, LedgerEntry.STAFF_CREDIT if diff > 0 else LedgerEntry.STAFF_DEBIT, note="set up"
            )
    return user


def wallet_of(user):
    return Wallet.objects.get(user=user)


@pytest.mark.django_db
def test_a_new_user_gets_profile_wallet_and_one_grant_row(settings):
    settings.CAISHEN_STARTING_GRANT = 1234

    user = get_user_model().objects.create_user("newbie", password="pw-for-tests-1")

    assert Profile.objects.filter(user=user).exists()
    wallet = wallet_of(user)
    assert wallet.balance == 1234
    (entry,) = LedgerEntry.objects.filter(wallet=wallet)
    assert (entry.amount, entry.balance_after, entry.reason, entry.reference) == (
        1234,
        1234,
        LedgerEntry.GRANT,
        "grant",
    )


@pytest.mark.django_db
def test_open_account_twice_grants_once():
    user = make_user("twice")

    services.open_account(user)

    assert LedgerEntry.objects.filter(wallet__user=user, reason=LedgerEntry.GRANT).count() == 1


@pytest.mark.django_db
def test_a_zero_grant_writes_no_row(settings):
    settings.CAISHEN_STARTING_GRANT = 0

    user = make_user("nogrant")

    assert wallet_of(user).balance == 0
    assert not LedgerEntry.objects.filter(wallet__user=user).exists()


@pytest.mark.django_db
def test_balance_is_the_sum_of_entries_and_each_row_carries_the_running_balance():
    user = make_user("runner")
    wallet = wallet_of(user)
    for amount in (50, -300, 7, -757):
        services.post(wallet, amount, LedgerEntry.HAND, note="x")

    wallet.refresh_from_db()
    total = LedgerEntry.objects.filter(wallet=wallet).aggregate(total=Sum("amount"))["total"]
    assert wallet.balance == total == 0
    running = 0
    for entry in LedgerEntry.objects.filter(wallet=wallet).order_by("id"):
        running += entry.amount
        assert entry.balance_after == running


@pytest.mark.django_db
def test_staff_adjust_posts_credit_and_debit_rows_with_author_and_note():
    staff = get_user_model().objects.create_user("clerk", password="pw-for-tests-1", is_staff=True)
    wallet = wallet_of(make_user("player"))

    credit = services.adjust(wallet, 250, "  tournament prize  ", by=staff)
    debit = services.adjust(wallet, -50, "correction", by=staff)

    assert (credit.reason, credit.amount, credit.note, credit.created_by) == (
        LedgerEntry.STAFF_CREDIT,
        250,
        "tournament prize",
        staff,
    )
    assert (debit.reason, debit.amount, debit.balance_after) == (LedgerEntry.STAFF_DEBIT, -50, 1200)
    assert wallet_of(wallet.user).balance == 1200


@pytest.mark.django_db
@pytest.mark.parametrize("amount, note", [(0, "reason"), (5, "   ")])
def test_staff_adjust_needs_an_amount_and_a_reason(amount, note):
    wallet = wallet_of(make_user("player"))

    with pytest.raises(ValueError):
        services.adjust(wallet, amount, note, by=wallet.user)

    assert LedgerEntry.objects.filter(wallet=wallet).count() == 1


@pytest.mark.django_db
def test_a_debit_below_zero_is_refused_and_changes_nothing():
    wallet = wallet_of(make_user("poor", balance=30))
    rows = LedgerEntry.objects.count()

    with pytest.raises(services.InsufficientFunds):
        services.adjust(wallet, -31, "too much", by=wallet.user)

    assert wallet_of(wallet.user).balance == 30
    assert LedgerEntry.objects.count() == rows


@pytest.mark.django_db
def test_the_database_refuses_a_negative_balance_even_bypassing_services():
    wallet = wallet_of(make_user("bypass"))

    with pytest.raises(IntegrityError), transaction.atomic():
        Wallet.objects.filter(pk=wallet.pk).update(balance=-1)

    wallet.balance = -5
    with pytest.raises(IntegrityError), transaction.atomic():
        wallet.save()

    assert wallet_of(wallet.user).balance == 1000


@pytest.mark.django_db
def test_the_system_wallet_is_unique():
    first = services.system_wallet()

    assert services.system_wallet() == first
    with pytest.raises(IntegrityError), transaction.atomic():
        Wallet.objects.create(kind=Wallet.KIND_SYSTEM)


# --- capped_movements: hand-computed cases --------------------------------------------------------


@pytest.mark.parametrize(
    "deltas, balances, expected",
    [
        pytest.param(
            {1: -10, 2: -5, 3: 15, 4: 0},
            {1: 100, 2: 100, 3: 0, 4: 0},
            {1: -10, 2: -5, 3: 15, 4: 0},
            id="everyone-covers",
        ),
        pytest.param(
            {1: -10, 2: 10, 3: 0, 4: 0},
            {1: 10, 2: 0, 3: 0, 4: 0},
            {1: -10, 2: 10, 3: 0, 4: 0},
            id="exactly-the-balance",
        ),
        pytest.param(
            {1: -12, 2: 4, 3: 4, 4: 4},
            {1: 0, 2: 50, 3: 50, 4: 50},
            {1: 0, 2: 0, 3: 0, 4: 0},
            id="loser-with-nothing-pays-nothing",
        ),
        pytest.param(
            # 5 collected of 10 owed: 3*5//10=1, 1, 4*5//10=2 -> 4; the one left goes to the largest winner.
            {1: -10, 2: 3, 3: 3, 4: 4},
            {1: 5, 2: 0, 3: 0, 4: 0},
            {1: -5, 2: 1, 3: 1, 4: 3},
            id="remainder-to-largest-winner",
        ),
        pytest.param(
            # 4 of 9: 3*4//9 = 1 each -> 3; one left, the winners tie, the lowest wallet id takes it.
            {1: -9, 2: 3, 3: 3, 4: 3},
            {1: 4, 2: 0, 3: 0, 4: 0},
            {1: -4, 2: 2, 3: 1, 4: 1},
            id="remainder-tie-by-id",
        ),
        pytest.param(
            # 5 of 20: 7*5//20=1, 1, 6*5//20=1 -> 3; two left: the two 7s.
            {1: -20, 2: 7, 3: 7, 4: 6},
            {1: 5, 2: 0, 3: 0, 4: 0},
            {1: -5, 2: 2, 3: 2, 4: 1},
            id="two-remainders",
        ),
        pytest.param(
            # One of two losers is capped: 2 + 4 = 6 of 12 reach the single winner.
            {1: -8, 2: -4, 3: 12, 4: 0},
            {1: 2, 2: 100, 3: 0, 4: 0},
            {1: -2, 2: -4, 3: 6, 4: 0},
            id="one-of-two-losers-capped",
        ),
        pytest.param(
            # Self-drawn win paid by three, two broke: 0 + 0 + 8 = 8 of 24.
            {1: 24, 2: -8, 3: -8, 4: -8},
            {1: 0, 2: 0, 3: 0, 4: 8},
            {1: 8, 2: 0, 3: 0, 4: -8},
            id="self-draw-two-broke",
        ),
    ],
)
def test_capped_movements(deltas, balances, expected):
    moves = services.capped_movements(deltas, balances)

    assert moves == expected
    assert sum(moves.values()) == 0
    assert all(balances[w] + moves[w] >= 0 for w in moves)
    assert all(abs(moves[w]) <= abs(deltas[w]) for w in moves)


def test_capped_movements_refuses_deltas_that_do_not_sum_to_zero():
    with pytest.raises(ValueError):
        services.capped_movements({1: -3, 2: 2}, {1: 10, 2: 10})


# --- settle ---------------------------------------------------------------------------------------


def four_wallets(balances):
    return [wallet_of(make_user(f"p{i}", balance=b)) for i, b in enumerate(balances)]


@pytest.mark.django_db
def test_settle_writes_zero_sum_rows_once():
    a, b, c, d = four_wallets([100, 100, 100, 100])
    deltas = {a.pk: -12, b.pk: 16, c.pk: -2, d.pk: -2}

    first = services.settle("hand:1", deltas, note="table 1 hand 1")
    rows = LedgerEntry.objects.count()
    second = services.settle("hand:1", deltas, note="table 1 hand 1")

    assert LedgerEntry.objects.count() == rows
    assert sorted(e.pk for e in first) == sorted(e.pk for e in second)
    entries = LedgerEntry.objects.filter(reference="hand:1")
    assert entries.count() == 4
    assert sum(e.amount for e in entries) == 0
    assert {e.wallet_id: e.amount for e in entries} == deltas
    assert all(e.reason == LedgerEntry.HAND for e in entries)
    assert [wallet_of(w.user).balance for w in (a, b, c, d)] == [88, 116, 98, 98]


@pytest.mark.django_db
def test_settle_caps_a_loss_at_the_balance_and_shares_it_pro_rata():
    a, b, c, d = four_wallets([5, 0, 0, 0])
    deltas = {a.pk: -10, b.pk: 3, c.pk: 3, d.pk: 4}

    services.settle("hand:2", deltas)

    balances = [wallet_of(w.user).balance for w in (a, b, c, d)]
    assert balances == [0, 1, 1, 3]
    assert sum(LedgerEntry.objects.filter(reference="hand:2").values_list("amount", flat=True)) == 0


@pytest.mark.django_db
def test_settle_with_a_broke_loser_writes_nothing_and_stays_done():
    a, b, c, d = four_wallets([0, 10, 10, 10])
    deltas = {a.pk: -12, b.pk: 4, c.pk: 4, d.pk: 4}

    assert services.settle("hand:3", deltas) == []
    assert services.settle("hand:3", deltas) == []

    assert [wallet_of(w.user).balance for w in (a, b, c, d)] == [0, 10, 10, 10]
    assert not LedgerEntry.objects.filter(reference="hand:3").exists()


@pytest.mark.django_db
def test_settle_refuses_deltas_that_do_not_sum_to_zero():
    a, b, _c, _d = four_wallets([10, 10, 10, 10])

    with pytest.raises(ValueError):
        services.settle("hand:4", {a.pk: -3, b.pk: 2})

    assert not LedgerEntry.objects.filter(reference="hand:4").exists()


# --- holds ------------------------------------------------------------------------------------------


def active(wallet):
    return sorted(Hold.objects.filter(wallet=wallet, released_at__isnull=True).values_list("reference", "amount"))


@pytest.mark.django_db
def test_take_holds_is_all_or_none_and_counts_only_what_is_available():
    a, b, _c, _d = four_wallets([1000, 300, 0, 0])

    assert services.take_holds("table:1", {a.pk: 400, b.pk: 400}) == {b.pk: 300}
    assert not Hold.objects.exists()  # a's hold was not taken either

    assert services.take_holds("table:1", {a.pk: 400}) == {}
    assert services.take_holds("table:2", {a.pk: 400}) == {}
    # 1000 backs two holds of 400: 200 is left for a third.
    assert services.take_holds("table:3", {a.pk: 400}) == {a.pk: 200}
    a.refresh_from_db()
    assert (a.balance, a.held, a.available) == (1000, 800, 200)
    assert services.take_holds("table:1", {a.pk: 400}) == {}  # already held there: kept, not doubled
    assert active(a) == [("table:1", 400), ("table:2", 400)]


@pytest.mark.django_db
def test_release_holds_frees_the_units_and_is_idempotent():
    a, b, _c, _d = four_wallets([1000, 500, 0, 0])
    services.take_holds("table:1", {a.pk: 400, b.pk: 400})
    services.take_holds("table:2", {a.pk: 400})

    assert services.release_holds("table:1", [b.pk]) == 1
    assert active(b) == [] and active(a) == [("table:1", 400), ("table:2", 400)]
    assert services.release_holds("table:1") == 1
    assert services.release_holds("table:1") == 0
    a.refresh_from_db()
    assert (a.held, a.available) == (400, 600)
    assert Hold.objects.filter(reference="table:1", released_at__isnull=False).count() == 2


@pytest.mark.django_db
def test_settle_pays_from_this_tables_hold_and_the_free_balance_never_another_tables_hold():
    a, b, c, d = four_wallets([1000, 0, 0, 0])
    services.take_holds("table:1", {a.pk: 400})
    services.take_holds("table:2", {a.pk: 400})

    # At table 1, a owes 1200: payable is 1000 less table 2's hold.
    services.settle("hand:10", {a.pk: -1200, b.pk: 600, c.pk: 600}, hold="table:1")

    a.refresh_from_db()
    assert a.balance == 400
    assert active(a) == [("table:1", 0), ("table:2", 400)]  # the loss came out of table 1's hold first
    assert [wallet_of(w.user).balance for w in (b, c)] == [300, 300]

    # At table 2, a owes 1200 again: table 2's winners get what its hold covers.
    services.settle("hand:11", {a.pk: -1200, d.pk: 1200}, hold="table:2")

    a.refresh_from_db()
    assert a.balance == 0 and wallet_of(d.user).balance == 400
    assert active(a) == [("table:1", 0), ("table:2", 0)]


@pytest.mark.django_db
def test_settle_without_a_hold_pays_only_from_the_free_balance():
    a, b, _c, _d = four_wallets([1000, 0, 0, 0])
    services.take_holds("table:1", {a.pk: 700})

    services.settle("escape-penalty:9", {a.pk: -500, b.pk: 500})

    a.refresh_from_db()
    assert a.balance == 700 and a.available == 0 and active(a) == [("table:1", 700)]


@pytest.mark.django_db
def test_a_staff_debit_below_the_holds_leaves_settlement_capped_and_never_negative():
    a, b, _c, _d = four_wallets([1000, 0, 0, 0])
    staff = get_user_model().objects.create_user("boss", password="pw-for-tests-1", is_staff=True)
    services.take_holds("table:1", {a.pk: 400})
    services.take_holds("table:2", {a.pk: 400})
    with pytest.raises(services.HeldFunds):
        services.adjust(a, -900, "chargeback", by=staff)  # it would take what the matches hold
    # A staff member releases table 1's hold first, on purpose and with a reason; the debit may
    # then take what table 2 does not hold.
    hold = Hold.objects.get(reference="table:1", wallet=a)
    services.change_hold(hold.pk, None, "chargeback confirmed by the bank", by=staff)
    with pytest.raises(services.HeldFunds):
        services.adjust(a, -601, "chargeback", by=staff)
    services.adjust(a, -600, "chargeback", by=staff)

    services.settle("hand:12", {a.pk: -300, b.pk: 300}, hold="table:1")

    # Table 1 (its hold released) may take the balance less table 2's hold: 400 - 400, so nothing;
    # never below zero, and table 2's hold is whole.
    a.refresh_from_db()
    assert a.balance == 400 and wallet_of(b.user).balance == 0
    assert a.available == 0


@pytest.mark.parametrize(
    ("total", "claims", "expected"),
    [
        pytest.param(100, {1: 60, 2: 40, 3: 0}, {1: 60, 2: 40, 3: 0}, id="booked-as-claimed"),
        pytest.param(30, {1: 60, 2: 40, 3: 0}, {1: 18, 2: 12, 3: 0}, id="net-winner-cut-pro-rata"),
        pytest.param(31, {1: 60, 2: 40, 3: 0}, {1: 19, 2: 12, 3: 0}, id="remainder-to-the-largest"),
        # A bot lost 10 and two won 20 each (net +30), the house got 12: the loser still paid 10,
        # the winners share 22.
        pytest.param(12, {1: -10, 2: 20, 3: 20}, {1: -10, 2: 11, 3: 11}, id="own-loser-pays-in-full"),
        # A net loser (the house broke) paid 40 of 100 owed by its two bots.
        pytest.param(-40, {1: -75, 2: -25}, {1: -30, 2: -10}, id="net-loser-cut-pro-rata"),
        pytest.param(0, {}, {}, id="nobody"),
    ],
)
def test_split_movement(total, claims, expected):
    parts = services.split_movement(total, claims)

    assert parts == expected
    assert sum(parts.values()) == total
