"""Pre-hand choices on the platform: 温州 买底/顶底 in order, 东北 飘, defaults on timeout."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from games import services
from games.models import Hand, Table

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("instant_play")]


def four_people(variant: str) -> tuple[Table, list[Any]]:
    User = get_user_model()
    users = [User.objects.create_user(f"u{i}", password="pw-123456") for i in range(4)]
    table = services.create_table(users[0], variant, {}, stake=1)
    for u in users:
        services.sit(table.pk, u)
    for u in users:
        services.set_ready(table.pk, u)
    table.refresh_from_db()
    return table, users


def test_wenzhou_dealer_buys_then_others_counter_then_deal() -> None:
    table, users = four_people("wenzhou")
    assert table.status == Table.PLAYING and not Hand.objects.filter(table=table).exists()
    info = services.state_for(table, users[1])["table"]["pre_hand"]
    assert info["key"] == "buy_base" and info["asked"] == [0] and info["choices"] == [False, True]
    with pytest.raises(services.Refused, match="not yours"):
        services.choose(table.pk, users[1], "buy_base", True)
    with pytest.raises(services.Refused, match="choose one of"):
        services.choose(table.pk, users[0], "buy_base", 1)  # a number is not a yes
    services.choose(table.pk, users[0], "buy_base", True)
    table.refresh_from_db()
    assert table.pre_hand is not None and table.pre_hand["questions"][table.pre_hand["index"]]["key"] == "counter_base"
    services.choose(table.pk, users[1], "counter_base", True)
    services.choose(table.pk, users[2], "counter_base", False)
    assert not Hand.objects.filter(table=table).exists()
    services.choose(table.pk, users[3], "counter_base", False)
    table.refresh_from_db()
    assert table.pre_hand is None
    hand = Hand.objects.get(table=table)
    assert hand.snapshot["context"] == {"buy_base": True, "counter_base": ["S"]}


def test_dongbei_piao_defaults_on_timeout_and_bots_bet_nothing() -> None:
    owner = get_user_model().objects.create_user("owner", password="pw-123456")
    table = services.create_table(owner, "dongbei", {}, stake=1)
    services.sit(table.pk, owner)
    services.add_bots(table.pk, owner)
    services.set_ready(table.pk, owner)
    table.refresh_from_db()
    info = services.state_for(table, owner)["table"]["pre_hand"]
    assert info["key"] == "piao" and sorted(info["asked"]) == [0, 1, 2, 3]
    assert info["answers"] == {"1": 0, "2": 0, "3": 0}  # the bots answered at once
    assert table.ready_deadline is not None
    token = int(table.ready_deadline.timestamp() * 1000)
    assert not services.wake("table", table.pk, token)  # early: nothing
    Table.objects.filter(pk=table.pk).update(ready_deadline=timezone.now().replace(year=2000))
    table.refresh_from_db()
    assert table.ready_deadline is not None
    assert services.wake("table", table.pk, int(table.ready_deadline.timestamp() * 1000))
    hand = Hand.objects.get(table=table)
    assert hand.snapshot["context"] == {"piao": {}}


def test_dongbei_piao_answer_reaches_the_hand() -> None:
    table, users = four_people("dongbei")
    for i, u in enumerate(users):
        services.choose(table.pk, u, "piao", 5 if i == 2 else 0)
    hand = Hand.objects.get(table=table)
    wind = "ESWN"[hand.engine_seat(2)]  # 东北 rolls a die for the first dealer
    assert hand.snapshot["context"] == {"piao": {wind: 5}}


def test_no_question_rule_sets_deal_at_once() -> None:
    table, _ = four_people("zhejiang_caishen")
    assert Hand.objects.filter(table=table).count() == 1 and table.pre_hand is None
