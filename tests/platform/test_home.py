import asyncio

import pytest
from channels.testing import HttpCommunicator
from django.db import DatabaseError
from django.utils.html import escape

from games.engine.variants import all_variants


@pytest.mark.django_db
def test_home_lists_every_rule_set(client):
    response = client.get("/")

    assert response.status_code == 200
    html = response.content.decode()
    variants = all_variants()
    assert variants, "the engine registry lists no rule set"
    for variant in variants:
        assert f'data-variant="{variant.key}"' in html
        assert escape(variant.display_name) in html
        # Player words: neither the developers' source file nor the rule set's key as text.
        assert variant.source not in html
        assert f">{variant.key}<" not in html


@pytest.mark.django_db
def test_home_shows_the_zhejiang_caishen_rule_set(client):
    variant = next(v for v in all_variants() if v.key == "zhejiang_caishen")

    response = client.get("/")

    assert variant.display_name.startswith("财神")
    assert escape(variant.display_name) in response.content.decode()


@pytest.mark.django_db
def test_home_page_is_chinese_and_styled(client):
    html = client.get("/").content.decode()

    assert '<html lang="zh-Hans">' in html
    assert "css/site.css" in html


@pytest.mark.django_db
def test_healthz_reports_ok(client):
    response = client.get("/healthz")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body.pop("load")["overloaded"] is False  # this process's saturation (games/services/overload.py)
    assert body == {"status": "ok", "database": "ok"}


@pytest.mark.django_db
def test_healthz_reports_a_broken_database(client, monkeypatch):
    def broken_cursor(*args, **kwargs):
        raise DatabaseError("database is gone")

    monkeypatch.setattr("mahjong_platform.views.connection.cursor", broken_cursor)

    response = client.get("/healthz")

    assert response.status_code == 503
    body = response.json()
    body.pop("load")
    assert body == {"status": "error", "database": "error"}


@pytest.mark.django_db(transaction=True)
def test_asgi_application_serves_http():
    # Through the real Channels router, as daphne calls it.
    from mahjong_platform.asgi import application

    communicator = HttpCommunicator(application, "GET", "/healthz", headers=[(b"host", b"localhost")])
    response = asyncio.run(communicator.get_response(timeout=30))

    assert response["status"] == 200
    assert b'"status": "ok"' in response["body"]
