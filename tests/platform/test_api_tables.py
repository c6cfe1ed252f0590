"""The games REST API: rule sets, tables and seat actions, joining by code, finished hands."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from accounts.models import Wallet
from games import services
from games.engine.tiles import parse_tiles
from games.engine.variants import get_variant
from games.models import Hand, Seat, Table
from games.records.rebuild import event_log

pytestmark = pytest.mark.django_db
VARIANT = "zhejiang_caishen"

# A rigged hand for the hand record: E discards N, S draws 5s and wins by self-draw (wild 3p).
RIGGED = {
    "E": "1m 4m 7m 2p 5p 8p 1s 4s 7s E S W N C",
    "S": "123m 456m 789p 234s 5s",
    "W": "2m 5m 8m 1p 4p 7p 2s 5s 8s E S W F",
    "N": "9m 9p 9s 6m 6p 6s 8m 7s P F C C W",
}


@pytest.fixture(autouse=True)
def live_settings(settings: Any) -> None:
    settings.CAISHEN_BOT_DELAY = 0
    settings.CAISHEN_SWEEP_SECONDS = 0
    settings.CAISHEN_DISCARD_PAUSE = 0  # seats with nothing to claim pass at once
    settings.CAISHEN_CLAIM_PROTECTION = "pause"  # quick windows (the uniform one: test_claim_protection.py)
    settings.CAISHEN_SPECTATOR_DELAY = 0  # watchers here read the table as it is


@pytest.fixture
def users() -> list[Any]:
    User = get_user_model()
    return [User.objects.create_user(f"u{i}", password="pw-123456") for i in range(5)]


def api(user: Any | None = None, language: str = "en") -> APIClient:
    """A client reading English by default (the details below are the English reasons); the
    API answers in the Accept-Language's language (test_lobby_refusals_are_translated)."""
    c = APIClient(HTTP_ACCEPT_LANGUAGE=language)
    if user is not None:
        c.force_authenticate(user)
        c.force_login(user)  # the session too: room codes live there
    return c


def create(user: Any, **body: Any) -> dict[str, Any]:
    response = api(user).post("/api/tables/", {"variant": VARIANT, **body}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


# ------------------------------------------------------------------------------ rule sets
def test_rulesets_list_and_detail_with_options_schema() -> None:
    listed = api().get("/api/rulesets/")

    assert listed.status_code == 200
    keys = [r["key"] for r in listed.json()]
    assert VARIANT in keys
    detail = api().get(f"/api/rulesets/{VARIANT}/").json()
    variant = get_variant(VARIANT)
    assert detail["display_name"] == variant.display_name
    assert detail["source"] == variant.source and detail["spec_section"] == "D0"
    assert detail["rules_url"] == f"/rules/{VARIANT}/"
    options = {o["key"]: o for o in detail["options"]}
    assert options["multiplier_heaven"] == {
        "key": "multiplier_heaven",
        "type": "int",
        "default": 4,
        "label": "天和 multiplier",
        "choices": [],
        "minimum": 1,
        "maximum": 100,
        "house": True,
        "help": "",
    }
    assert options["robbing_kong_multiplier"]["house"] is False
    assert options["ron_on_discarded_wild"]["type"] == "bool"


def test_an_unknown_ruleset_is_404() -> None:
    response = api().get("/api/rulesets/nothing/")

    assert response.status_code == 404
    assert response.json() == {"detail": "no rule set 'nothing'"}


# -------------------------------------------------------------------------------- create
def test_create_a_table(users: list[Any]) -> None:
    body = create(users[0], options={"multiplier_heaven": 8}, stake=5, hands_total=2, turn_seconds=30)

    table = Table.objects.get(pk=body["id"])
    assert table.owner == users[0] and table.stake == 5 and table.hands_total == 2 and table.turn_seconds == 30
    assert table.claim_seconds == 8 and not table.is_private
    assert table.options["multiplier_heaven"] == 8 and table.options["multiplier_earth"] == 4
    assert body["status"] == "waiting" and body["seats_taken"] == 0 and body["room_code"] is None
    assert body["url"] == f"/tables/{table.pk}/" and body["owner"] == "u0"


def test_create_a_private_table_answers_its_room_code(users: list[Any]) -> None:
    body = create(users[0], is_private=True)

    assert body["is_private"] is True
    assert body["room_code"] == Table.objects.get(pk=body["id"]).room_code


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ({"options": {"multiplier_heaven": 0}}, "option 'multiplier_heaven' must be at least 1, got 0"),
        ({"options": {"ron_on_discarded_wild": 1}}, "option 'ron_on_discarded_wild' must be true or false, got 1"),
        ({"options": {"nope": 1}}, "unknown option 'nope' for zhejiang_caishen"),
        ({"variant": "mystery"}, "unknown variant 'mystery'"),
        ({"stake": 0}, "the stake must be at least 1"),
        ({"hands_total": 0}, "a match has 1 to 64 hands"),
        ({"claim_seconds": 500}, "time limits: 5–300 s per turn, 3–120 s per claim"),
    ],
)
def test_create_refusals_answer_400_with_the_reason(users: list[Any], body: dict[str, Any], detail: str) -> None:
    response = api(users[0]).post("/api/tables/", {"variant": VARIANT, **body}, format="json")

    assert response.status_code == 400
    assert response.json()["detail"].startswith(detail)
    assert not Table.objects.exists()


def test_malformed_create_bodies_answer_400_with_a_detail(users: list[Any]) -> None:
    response = api(users[0]).post("/api/tables/", {"variant": VARIANT, "stake": "lots"}, format="json")

    assert response.status_code == 400
    body = response.json()
    assert body["detail"].startswith("stake:") and "stake" in body["errors"]
    missing = api(users[0]).post("/api/tables/", {}, format="json")
    assert missing.status_code == 400 and missing.json()["detail"].startswith("variant:")


def test_creating_needs_sign_in() -> None:
    response = api().post("/api/tables/", {"variant": VARIANT}, format="json")

    assert response.status_code == 403
    assert "detail" in response.json()


def test_unsafe_methods_need_the_csrf_token(users: list[Any]) -> None:
    c = APIClient(enforce_csrf_checks=True)
    c.force_login(users[0])

    response = c.post("/api/tables/", {"variant": VARIANT}, format="json")

    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]


# ---------------------------------------------------------------------------------- list
def test_the_list_has_public_tables_and_mine(users: list[Any]) -> None:
    public = create(users[0])
    mine = create(users[1], is_private=True)
    theirs = create(users[2], is_private=True)
    seated_private = create(users[3], is_private=True)
    services.sit(seated_private["id"], users[1])

    anonymous = {t["id"] for t in api().get("/api/tables/").json()}
    as_u1 = {t["id"]: t for t in api(users[1]).get("/api/tables/").json()}

    assert anonymous == {public["id"]}
    assert set(as_u1) == {public["id"], mine["id"], seated_private["id"]}
    assert theirs["id"] not in as_u1
    assert as_u1[mine["id"]]["room_code"] == mine["room_code"]
    assert as_u1[seated_private["id"]]["seats_taken"] == 1


def test_the_list_filters_by_variant_and_status(users: list[Any]) -> None:
    waiting = create(users[0])
    playing = create(users[1])
    services.sit(playing["id"], users[1])
    services.add_bots(playing["id"], users[1])
    services.set_ready(playing["id"], users[1])

    def ids(**params: str) -> set[int]:
        return {t["id"] for t in api().get("/api/tables/", params).json()}

    assert ids() == {waiting["id"], playing["id"]}
    assert ids(status="waiting") == {waiting["id"]}
    assert ids(status="playing") == {playing["id"]}
    assert ids(variant="dongbei") == set()


# -------------------------------------------------------------------- detail and access
def test_a_table_snapshot(users: list[Any]) -> None:
    table = create(users[0])
    services.sit(table["id"], users[1])

    watcher = api().get(f"/api/tables/{table['id']}/").json()
    player = api(users[1]).get(f"/api/tables/{table['id']}/").json()

    assert watcher["type"] == "snapshot" and watcher["you"] is None and watcher["hand"] is None
    assert watcher["table"]["id"] == table["id"] and watcher["table"]["variant"] == VARIANT
    assert [s["position"] for s in watcher["seats"]] == [0, 1, 2, 3]
    assert player["you"] == 0 and player["seats"][0]["user_id"] == users[1].pk


def test_a_private_table_is_404_until_joined_by_code(users: list[Any]) -> None:
    table = create(users[0], is_private=True)
    stranger = api(users[2])

    assert stranger.get(f"/api/tables/{table['id']}/").status_code == 404
    assert api().get(f"/api/tables/{table['id']}/").status_code == 404
    assert stranger.post(f"/api/tables/{table['id']}/sit/").status_code == 404

    joined = stranger.post("/api/tables/join/", {"room_code": table["room_code"].lower()}, format="json")

    assert joined.status_code == 200
    assert joined.json() == {"id": table["id"], "url": f"/tables/{table['id']}/"}
    snapshot = stranger.get(f"/api/tables/{table['id']}/").json()
    assert snapshot["room_code"] == table["room_code"]
    assert stranger.post(f"/api/tables/{table['id']}/sit/").status_code == 200


def test_join_with_an_unknown_code(users: list[Any]) -> None:
    response = api(users[0]).post("/api/tables/join/", {"room_code": "ZZZZ22"}, format="json")

    assert response.status_code == 404
    assert response.json() == {"detail": "no table has this room code"}
    empty = api(users[0]).post("/api/tables/join/", {}, format="json")
    assert empty.status_code == 400 and empty.json()["detail"].startswith("room_code:")


def test_an_unknown_table_is_404() -> None:
    assert api().get("/api/tables/999/").status_code == 404


# ------------------------------------------------------------------------- seat actions
def test_sit_and_stand(users: list[Any]) -> None:
    table = create(users[0])
    c = api(users[1])

    sat = c.post(f"/api/tables/{table['id']}/sit/", {"position": 2}, format="json")

    assert sat.status_code == 200
    assert sat.json()["you"] == 2 and sat.json()["seats"][2]["user_id"] == users[1].pk
    again = c.post(f"/api/tables/{table['id']}/sit/", format="json")
    assert again.status_code == 400 and again.json() == {"detail": "you already sit at this table"}
    taken = api(users[2]).post(f"/api/tables/{table['id']}/sit/", {"position": 2}, format="json")
    assert taken.status_code == 400 and taken.json() == {"detail": "that seat is taken"}
    bad = api(users[2]).post(f"/api/tables/{table['id']}/sit/", {"position": 7}, format="json")
    assert bad.status_code == 400 and bad.json()["detail"].startswith("position:")

    stood = c.post(f"/api/tables/{table['id']}/stand/")

    assert stood.status_code == 200 and stood.json()["you"] is None
    assert not Seat.objects.filter(table_id=table["id"], user=users[1]).exists()
    assert c.post(f"/api/tables/{table['id']}/stand/").json() == {"detail": "you do not sit at this table"}


def test_sitting_is_refused_below_the_minimum_balance(users: list[Any]) -> None:
    Wallet.objects.filter(user=users[0]).update(balance=5000)  # someone could sit at stake 100
    table = create(users[0], stake=100)
    minimum = services.min_balance(Table.objects.get(pk=table["id"]))
    balance = Wallet.objects.get(user=users[1]).balance
    assert balance < minimum

    response = api(users[1]).post(f"/api/tables/{table['id']}/sit/")

    assert response.status_code == 400
    assert response.json() == {"detail": f"you need at least {minimum} to sit at this table (you have {balance})"}
    assert not Seat.objects.filter(table_id=table["id"], user=users[1]).exists()


def test_seat_actions_need_sign_in(users: list[Any]) -> None:
    table = create(users[0])

    for action in ("sit", "stand", "ready", "bots"):
        response = api().post(f"/api/tables/{table['id']}/{action}/")
        assert response.status_code == 403, action


def test_only_the_owner_fills_seats_with_bots(users: list[Any]) -> None:
    table = create(users[0])
    api(users[1]).post(f"/api/tables/{table['id']}/sit/")

    refused = api(users[1]).post(f"/api/tables/{table['id']}/bots/")

    assert refused.status_code == 400
    assert refused.json() == {"detail": "only the table's owner may add bots"}
    assert not Seat.objects.filter(table_id=table["id"], is_bot=True).exists()

    added = api(users[0]).post(f"/api/tables/{table['id']}/bots/")

    assert added.status_code == 200
    body = added.json()
    assert body["added"] == 3
    assert [s["is_bot"] for s in body["seats"]] == [False, True, True, True]
    assert all(s["ready"] for s in body["seats"][1:])


def test_the_owner_chooses_the_bots_level_and_the_seats_show_it(users: list[Any]) -> None:
    table = create(users[0])
    api(users[0]).post(f"/api/tables/{table['id']}/sit/")

    wrong = api(users[0]).post(f"/api/tables/{table['id']}/bots/", {"level": "expert"}, format="json")
    assert wrong.status_code == 400
    assert not Seat.objects.filter(table_id=table["id"], is_bot=True).exists()

    added = api(users[0]).post(f"/api/tables/{table['id']}/bots/", {"level": "easy"}, format="json")

    assert added.status_code == 200
    seats = added.json()["seats"]
    assert [s["bot_level"] for s in seats] == [None, "easy", "easy", "easy"]
    assert set(Seat.objects.filter(table_id=table["id"], is_bot=True).values_list("bot_level", flat=True)) == {
        Seat.EASY
    }


def test_bots_are_strong_unless_asked_otherwise(users: list[Any]) -> None:
    table = create(users[0])
    api(users[0]).post(f"/api/tables/{table['id']}/sit/")

    seats = api(users[0]).post(f"/api/tables/{table['id']}/bots/").json()["seats"]

    assert [s["bot_level"] for s in seats] == [None, "strong", "strong", "strong"]


def test_ready_needs_a_seat_and_can_be_taken_back(users: list[Any]) -> None:
    table = create(users[0])
    c = api(users[1])

    assert c.post(f"/api/tables/{table['id']}/ready/", {"ready": True}, format="json").json() == {
        "detail": "you do not sit at this table"
    }
    c.post(f"/api/tables/{table['id']}/sit/")
    assert c.post(f"/api/tables/{table['id']}/ready/", {"ready": True}, format="json").json()["seats"][0]["ready"]
    unready = c.post(f"/api/tables/{table['id']}/ready/", {"ready": False}, format="json").json()
    assert unready["seats"][0]["ready"] is False
    bad = c.post(f"/api/tables/{table['id']}/ready/", {"ready": "perhaps"}, format="json")
    assert bad.status_code == 400 and bad.json()["detail"].startswith("ready:")


def test_four_ready_seats_start_the_match(users: list[Any]) -> None:
    table = create(users[0], hands_total=2)
    clients = [api(u) for u in users[:4]]
    for c in clients:
        assert c.post(f"/api/tables/{table['id']}/sit/").status_code == 200
    for c in clients[:3]:
        c.post(f"/api/tables/{table['id']}/ready/", {"ready": True}, format="json")
    assert Table.objects.get(pk=table["id"]).status == Table.WAITING

    last = clients[3].post(f"/api/tables/{table['id']}/ready/", {"ready": True}, format="json")

    assert last.status_code == 200
    assert Table.objects.get(pk=table["id"]).status == Table.PLAYING
    hand = Hand.objects.get(table_id=table["id"])
    assert hand.number == 1 and hand.status == Hand.PLAYING
    assert last.json()["hand"]["id"] == hand.pk
    late = clients[3].post(f"/api/tables/{table['id']}/sit/")
    assert late.json() == {"detail": "the match has started; you can watch"}


# --------------------------------------------------------------------------------- hands
def concealed_tiles(users: list[Any]) -> tuple[Table, Hand]:
    """A table of four people playing the rigged hand; returns the table and its running hand."""
    table = services.create_table(users[0], VARIANT, stake=2, hands_total=1)
    for u in users[:4]:
        services.sit(table.pk, u)
    engine = get_variant(VARIANT).rigged_hand(
        [parse_tiles(RIGGED[s]) for s in "ESWN"], parse_tiles("3m")[0], parse_tiles("5s"), []
    )
    table.refresh_from_db()
    services.start_match(table, engine)
    return table, Hand.objects.get(table=table)


def test_a_running_hand_is_not_served(users: list[Any]) -> None:
    table, hand = concealed_tiles(users)

    for client in (api(), api(users[0]), api(users[4])):
        response = client.get(f"/api/hands/{hand.pk}/")
        assert response.status_code == 403
        assert set(response.json()) == {"detail"}
    # Nor does the spectator's table snapshot carry a concealed tile.
    view = api().get(f"/api/tables/{table.pk}/").json()["hand"]["view"]
    assert all(p["hand"] is None and p["drawn"] is None for p in view["players"])
    assert "revealed" not in view and view.get("seed") is None


def test_a_finished_hand_shows_its_public_log_and_the_revealed_hands(users: list[Any]) -> None:
    table, hand = concealed_tiles(users)
    seq = services.submit(hand.pk, users[0], {"do": "discard", "tile": "N"}, hand.seq)
    hand.refresh_from_db()
    draws = [e.to_json() for _, e in event_log(hand) if e.kind == "draw"]
    assert draws and all(e["private"].get("tile") for e in draws)  # the log itself keeps the drawn tile
    services.submit(hand.pk, users[1], {"do": "win"}, seq)
    hand.refresh_from_db()
    assert hand.status == Hand.FINISHED

    response = api().get(f"/api/hands/{hand.pk}/")

    assert response.status_code == 200
    body = response.json()
    assert body["id"] == hand.pk and body["table"] == table.pk and body["number"] == 1
    assert body["seed"] == hand.seed and body["seed_hash"] == hand.seed_hash  # empty for a rigged wall
    assert body["result"]["winner"] == "S" and body["result"]["self_drawn"] is True
    assert body["deltas"] == hand.deltas and sum(body["deltas"].values()) == 0
    assert body["winds"] == {"0": "E", "1": "S", "2": "W", "3": "N"}
    kinds = [e["kind"] for e in body["events"]]
    assert kinds[0] == "discard" and "draw" in kinds and kinds[-1] == "hand_end"
    assert [e["seq"] for e in body["events"]] == sorted(e["seq"] for e in body["events"])
    for event in body["events"]:
        if event["kind"] == "draw":
            assert "tile" not in event  # rendered for the public
    assert sorted(parse_tiles(body["revealed"]["S"])) == sorted(parse_tiles("123m 456m 789p 234s 55s"))
    assert set(body["revealed"]) == {"E", "S", "W", "N"}
    json.dumps(body)


def test_hands_of_a_private_table_stay_private(users: list[Any]) -> None:
    table, hand = concealed_tiles(users)
    Table.objects.filter(pk=table.pk).update(is_private=True)
    Hand.objects.filter(pk=hand.pk).update(status=Hand.FINISHED)

    assert api(users[4]).get(f"/api/hands/{hand.pk}/").status_code == 404
    assert api(users[4]).get(f"/api/tables/{table.pk}/hands/").status_code == 404
    assert api(users[0]).get(f"/api/hands/{hand.pk}/").status_code == 200
    assert api().get("/api/hands/999/").status_code == 404


def test_a_tables_finished_hands(users: list[Any]) -> None:
    table, hand = concealed_tiles(users)
    assert api().get(f"/api/tables/{table.pk}/hands/").json() == []
    seq = services.submit(hand.pk, users[0], {"do": "discard", "tile": "N"}, hand.seq)
    services.submit(hand.pk, users[1], {"do": "win"}, seq)

    listed = api().get(f"/api/tables/{table.pk}/hands/").json()

    assert [h["id"] for h in listed] == [hand.pk]
    assert listed[0]["status"] == "finished" and "seed" not in listed[0]


def test_the_openapi_schema_documents_the_games_api() -> None:
    response = api().get("/api/schema/", HTTP_ACCEPT="application/json")

    assert response.status_code == 200
    paths = json.loads(response.content)["paths"]
    for path in (
        "/api/rulesets/",
        "/api/rulesets/{key}/",
        "/api/tables/",
        "/api/tables/{id}/",
        "/api/tables/{id}/sit/",
        "/api/tables/{id}/stand/",
        "/api/tables/{id}/ready/",
        "/api/tables/{id}/bots/",
        "/api/tables/join/",
        "/api/hands/{id}/",
    ):
        assert path in paths, path


def test_lobby_refusals_are_translated(users: list[Any]) -> None:
    """The API's refusal detail follows Accept-Language: zh-Hans and English, same refusal."""
    for language, said in (("zh-hans", "你没有坐在这张桌子"), ("en", "you do not sit at this table")):
        c = api(users[0], language)
        table = c.post("/api/tables/", {"variant": "zhejiang_caishen", "options": {}}, format="json").json()
        assert c.post(f"/api/tables/{table['id']}/stand/").json() == {"detail": said}


def test_a_stake_nobody_could_afford_is_refused(users: list[Any]) -> None:
    """Every account here holds 1000: a stake needing more per seat than that is refused, unmade."""
    from games.models import Table

    c = api(users[0])
    body = {"variant": "zhejiang_caishen", "options": {}, "stake": 51, "hands_total": 1}  # 51 x 20 = 1020
    res = c.post("/api/tables/", body, format="json")
    assert res.status_code == 400 and res.json()["detail"].startswith("nobody could sit at a stake of 51")
    assert not Table.objects.exists()
    assert c.post("/api/tables/", body | {"stake": 50}, format="json").status_code == 201


def test_the_house_float_does_not_make_a_stake_affordable(users: list[Any]) -> None:
    """The house wallet (bots play for it; it opens with a float of a million units) is no
    player: a stake no player's wallet could sit at stays refused once the house exists."""
    from accounts.services import system_wallet

    assert system_wallet().balance >= 1_000_000
    res = api(users[0]).post(
        "/api/tables/", {"variant": "zhejiang_caishen", "options": {}, "stake": 51, "hands_total": 1}, format="json"
    )
    assert res.status_code == 400 and res.json()["detail"].startswith("nobody could sit at a stake of 51")


def test_a_token_authenticates_a_script(users: list[Any]) -> None:
    """Authorization: Token <key> reads the account without a session and posts without CSRF;
    a revoked key is refused."""
    from accounts import api_tokens

    token = api_tokens.replace(users[1])
    c = APIClient(enforce_csrf_checks=True, HTTP_AUTHORIZATION=f"Token {token.key}", HTTP_ACCEPT_LANGUAGE="en")
    assert c.get("/api/account/").json()["username"] == "u1"
    made = c.post("/api/tables/", {"variant": "zhejiang_caishen", "options": {}}, format="json")
    assert made.status_code == 201
    api_tokens.revoke(users[1])
    assert c.get("/api/account/").status_code in (401, 403)
