"""The lobby: listing and filtering tables, creating one through the form, joining by code, the table page."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from games import services
from games.engine.variants import all_variants
from games.models import Hand, Seat, Table
from games.web.forms import form_options

pytestmark = pytest.mark.django_db
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
VARIANT = "zhejiang_caishen"


@pytest.fixture(autouse=True)
def live_settings(settings: Any) -> None:
    settings.CAISHEN_BOT_DELAY = 0
    settings.CAISHEN_SWEEP_SECONDS = 0


@pytest.fixture
def users() -> list[Any]:
    User = get_user_model()
    return [User.objects.create_user(f"u{i}", password="pw-123456") for i in range(5)]


def signed_in(user: Any) -> Client:
    c = Client()
    c.force_login(user)
    return c


def row_ids(html: str) -> set[int]:
    return {int(m) for m in re.findall(r'<tr data-table="(\d+)"', html)}


def form_data(**overrides: Any) -> dict[str, Any]:
    data = {
        "variant": VARIANT,
        "stake": 2,
        "hands_total": 4,
        "turn_seconds": 20,
        "claim_seconds": 8,
        "opt_multiplier_kong_bloom": 2,
        "opt_multiplier_four_wilds": 2,
        "opt_multiplier_heaven": 4,
        "opt_multiplier_earth": 4,
        "opt_robbing_kong_multiplier": 12,
    }
    data.update(overrides)
    return data


# ------------------------------------------------------------------------------- listing
def test_the_lobby_lists_public_tables_and_filters_them(client: Any, users: list[Any]) -> None:
    waiting = services.create_table(users[0], VARIANT, stake=3, hands_total=8)
    playing = services.create_table(users[1], VARIANT)
    services.sit(playing.pk, users[1])
    services.add_bots(playing.pk, users[1])
    services.set_ready(playing.pk, users[1])
    private = services.create_table(users[2], VARIANT, is_private=True)
    finished = services.create_table(users[3], VARIANT)
    Table.objects.filter(pk=finished.pk).update(status=Table.FINISHED)

    html = client.get(reverse("games:lobby"), **EN).content.decode()

    assert row_ids(html) == {waiting.pk, playing.pk}
    row = re.search(rf'<tr data-table="{waiting.pk}".*?</tr>', html, re.S).group(0)  # type: ignore[union-attr]
    assert "Caishen Mahjong" in row and ">3<" in row and ">8<" in row and "0 / 4" in row and "Waiting" in row
    assert reverse("games:table", args=[waiting.pk]) in row
    playing_row = re.search(rf'<tr data-table="{playing.pk}".*?</tr>', html, re.S).group(0)  # type: ignore[union-attr]
    assert "4 / 4" in playing_row and "Playing" in playing_row
    assert private.room_code not in html

    only_waiting = client.get(reverse("games:lobby"), {"status": "waiting"}).content.decode()
    assert row_ids(only_waiting) == {waiting.pk}
    only_playing = client.get(reverse("games:lobby"), {"status": "playing", "variant": VARIANT}).content.decode()
    assert row_ids(only_playing) == {playing.pk}
    assert row_ids(client.get(reverse("games:lobby"), {"variant": "dongbei"}).content.decode()) == set()


def test_the_lobby_shows_your_own_private_tables(users: list[Any]) -> None:
    private = services.create_table(users[0], VARIANT, is_private=True)
    services.sit(private.pk, users[1])

    html = signed_in(users[1]).get(reverse("games:lobby"), **EN).content.decode()

    assert "Your tables" in html
    assert private.pk in row_ids(html)
    assert "1 / 4" in html


# ------------------------------------------------------------------------------ creating
def test_creating_needs_sign_in(client: Any) -> None:
    response = client.get(reverse("games:create"))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("accounts:login"))


def test_the_create_form_is_generated_from_the_schema(users: list[Any]) -> None:
    html = signed_in(users[0]).get(reverse("games:create"), {"variant": VARIANT}, **EN).content.decode()

    # int → number with min/max, bool → checkbox; HOUSE options carry the mark.
    heaven = re.search(r"<input[^>]*name=\"opt_multiplier_heaven\"[^>]*>", html).group(0)  # type: ignore[union-attr]
    assert 'type="number"' in heaven and 'min="1"' in heaven and 'max="100"' in heaven and 'value="4"' in heaven
    assert 'data-house="true"' in heaven
    wild = re.search(r"<input[^>]*name=\"opt_ron_on_discarded_wild\"[^>]*>", html).group(0)  # type: ignore[union-attr]
    assert 'type="checkbox"' in wild and "checked" not in wild
    robbing = re.search(r"<input[^>]*name=\"opt_robbing_kong_multiplier\"[^>]*>", html).group(0)  # type: ignore[union-attr]
    assert "data-house" not in robbing
    assert "house rule" in html
    for name in ("stake", "hands_total", "turn_seconds", "claim_seconds", "is_private"):
        assert f'name="{name}"' in html
    assert 'name="opt_base"' not in html  # the stake is the 底分


def test_creating_a_table_through_the_form(users: list[Any]) -> None:
    c = signed_in(users[0])

    response = c.post(reverse("games:create"), form_data(opt_multiplier_heaven=6, opt_ron_on_discarded_wild="on"))

    table = Table.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("games:table", args=[table.pk])
    assert table.owner == users[0]
    assert table.stake == 2 and table.hands_total == 4 and not table.is_private
    assert table.options["multiplier_heaven"] == 6
    assert table.options["ron_on_discarded_wild"] is True
    assert table.options["added_kong_just_drawn_only"] is False
    assert table.options["base"] == 1
    assert c.get(response["Location"]).status_code == 200


def test_invalid_options_show_the_reason_next_to_the_form(users: list[Any]) -> None:
    response = signed_in(users[0]).post(reverse("games:create"), form_data(opt_multiplier_heaven=0), **EN)

    assert response.status_code == 400
    assert not Table.objects.exists()
    html = response.content.decode()
    assert escape("option 'multiplier_heaven' must be at least 1, got 0") in html
    assert "data-refused" in html
    assert 'value="0"' in html  # the form keeps what was typed


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("stake", 0, "greater than or equal to 1"),
        ("hands_total", 99, "less than or equal to 64"),
        ("turn_seconds", 2, "greater than or equal to 5"),
    ],
)
def test_table_terms_are_refused_next_to_their_field(users: list[Any], field: str, value: int, reason: str) -> None:
    """The services' bounds are the fields' own: the error sits at its field, translated."""
    response = signed_in(users[0]).post(reverse("games:create"), form_data(**{field: value}), **EN)

    assert response.status_code == 400
    assert escape(reason) in response.content.decode()
    assert not Table.objects.exists()


def test_every_wrong_term_is_said_at_once_in_the_readers_language(users: list[Any]) -> None:
    bad = {"stake": 0, "hands_total": 99, "turn_seconds": 2, "claim_seconds": 999}
    zh = signed_in(users[0]).post(reverse("games:create"), form_data(**bad), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert zh.status_code == 400
    html = zh.content.decode()
    assert html.count('class="field-errors"') == 4
    assert "Ensure this value" not in html and "确保该值" in html


def test_a_stake_no_wallet_could_cover_is_refused(users: list[Any]) -> None:
    """Every account holds 1000: stake 51 needs 1020 per seat (x CAISHEN_SIT_MULTIPLE 20)."""
    response = signed_in(users[0]).post(reverse("games:create"), form_data(stake=51), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 400
    assert "底分 51 无人能坐" in response.content.decode()
    assert not Table.objects.exists()


def test_a_private_table_opens_for_its_creator(users: list[Any]) -> None:
    c = signed_in(users[0])

    response = c.post(reverse("games:create"), form_data(is_private="on"))

    table = Table.objects.get()
    assert table.is_private
    page = c.get(response["Location"])
    assert page.status_code == 200
    assert table.room_code in page.content.decode()


# ----------------------------------------------------------------- private tables, codes
def test_a_private_table_is_404_for_strangers(client: Any, users: list[Any]) -> None:
    table = services.create_table(users[0], VARIANT, is_private=True)
    services.sit(table.pk, users[1])
    url = reverse("games:table", args=[table.pk])

    assert client.get(url).status_code == 404
    assert signed_in(users[2]).get(url).status_code == 404
    assert signed_in(users[0]).get(url).status_code == 200  # the owner
    assert signed_in(users[1]).get(url).status_code == 200  # a player
    assert signed_in(users[2]).post(reverse("games:sit", args=[table.pk])).status_code == 404


def test_joining_by_room_code_opens_the_private_table(users: list[Any]) -> None:
    table = services.create_table(users[0], VARIANT, is_private=True)
    c = signed_in(users[2])

    response = c.post(reverse("games:join"), {"room_code": f" {table.room_code.lower()} "})

    assert response.status_code == 302
    assert response["Location"] == reverse("games:table", args=[table.pk])
    assert c.get(response["Location"]).status_code == 200
    c.post(reverse("games:sit", args=[table.pk]))
    assert Seat.objects.get(table=table, user=users[2]).position == 0


def test_an_unknown_room_code_is_refused_on_the_lobby(users: list[Any]) -> None:
    response = signed_in(users[0]).post(reverse("games:join"), {"room_code": "ZZZZ22"}, **EN)

    assert response.status_code == 400
    assert "No table has this room code." in response.content.decode()


# ---------------------------------------------------------------------------- table page
def test_the_table_page_context(users: list[Any]) -> None:
    table = services.create_table(users[0], VARIANT)
    services.sit(table.pk, users[1])

    owner = signed_in(users[0]).get(reverse("games:table", args=[table.pk]))
    player = signed_in(users[1]).get(reverse("games:table", args=[table.pk]))

    assert owner.context["ws_path"] == f"/ws/table/{table.pk}/"
    assert owner.context["is_owner"] is True and owner.context["seated"] is False
    assert player.context["is_owner"] is False and player.context["seated"] is True
    assert player.context["table"] == table
    state = player.context["initial_state"]
    assert state["you"] == 0 and state["table"]["id"] == table.pk
    embedded = re.search(r'<script id="initial-state" type="application/json">(.*?)</script>', player.content.decode())
    assert embedded is not None and json.loads(embedded.group(1))["you"] == 0


def test_anyone_may_watch_a_public_table(client: Any, users: list[Any]) -> None:
    table = services.create_table(users[0], VARIANT)

    response = client.get(reverse("games:table", args=[table.pk]))

    assert response.status_code == 200
    assert response.context["seated"] is False and response.context["initial_state"]["you"] is None
    assert client.get(reverse("games:table", args=[table.pk + 100])).status_code == 404


# -------------------------------------------------------------------- seat actions (forms)
def test_sitting_needs_sign_in(client: Any, users: list[Any]) -> None:
    table = services.create_table(users[0], VARIANT)

    response = client.post(reverse("games:sit", args=[table.pk]))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("accounts:login"))
    assert not Seat.objects.filter(table=table, user__isnull=False).exists()


def test_sit_ready_and_bots_through_the_page_forms_start_the_match(users: list[Any]) -> None:
    table = services.create_table(users[0], VARIANT)
    owner = signed_in(users[0])

    assert owner.post(reverse("games:sit", args=[table.pk]), {"position": "2"}).status_code == 302
    assert Seat.objects.get(table=table, user=users[0]).position == 2
    owner.post(reverse("games:bots", args=[table.pk]))
    owner.post(reverse("games:ready", args=[table.pk]))

    table.refresh_from_db()
    assert table.status == Table.PLAYING
    assert Hand.objects.filter(table=table).exists()


def test_the_page_form_fills_with_bots_of_the_chosen_level(users: list[Any]) -> None:
    table = services.create_table(users[0], VARIANT)
    owner = signed_in(users[0])
    owner.post(reverse("games:sit", args=[table.pk]), {"position": "0"})

    owner.post(reverse("games:bots", args=[table.pk]), {"level": "easy"})

    assert list(Seat.objects.filter(table=table, is_bot=True).values_list("bot_level", flat=True)) == ["easy"] * 3


def test_an_unknown_bot_level_is_refused(users: list[Any]) -> None:
    table = services.create_table(users[0], VARIANT)
    services.sit(table.pk, users[0])

    with pytest.raises(services.Refused) as refused:
        services.add_bots(table.pk, users[0], "expert")

    assert refused.value.code == "bot_level"
    assert not Seat.objects.filter(table=table, is_bot=True).exists()


def test_a_refused_seat_action_is_flashed_on_the_table_page(users: list[Any]) -> None:
    table = services.create_table(users[0], VARIANT)
    stranger = signed_in(users[1])

    response = stranger.post(reverse("games:bots", args=[table.pk]), follow=True, **EN)

    assert "only the table&#x27;s owner may add bots" in response.content.decode()
    assert not Seat.objects.filter(table=table, is_bot=True).exists()


@pytest.mark.parametrize("variant", all_variants(), ids=lambda v: v.key)
def test_every_rule_set_can_be_created_with_its_defaults(users: list[Any], variant: Any) -> None:
    c = signed_in(users[0])
    page = c.get(reverse("games:create"), {"variant": variant.key}).content.decode()
    data: dict[str, Any] = {k: v for k, v in form_data().items() if not k.startswith("opt_")}
    data["variant"] = variant.key
    for option in form_options(variant):
        assert f'name="opt_{option.key}"' in page
        if option.type is bool:
            if option.default:
                data[f"opt_{option.key}"] = "on"
        else:
            data[f"opt_{option.key}"] = str(option.default)

    response = c.post(reverse("games:create"), data)

    assert response.status_code == 302, response.content.decode()[:2000]
    table = Table.objects.get()
    assert table.variant == variant.key
    assert table.options == variant.validate_options({})


def test_the_create_page_starts_with_the_first_rule_set_of_the_spec(users: list[Any]) -> None:
    response = signed_in(users[0]).get(reverse("games:create"))

    assert response.context["variant"].key == VARIANT  # §D0
