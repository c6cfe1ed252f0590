"""Migration 0007 fills the new Table.scores of existing tables from their settled hands."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)


def test_existing_tables_get_their_scores_from_their_settled_hands() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate([("games", "0006_hand_actions")])
    old = executor.loader.project_state([("games", "0006_hand_actions")]).apps
    User = old.get_model("auth", "User")
    Table, Hand = old.get_model("games", "Table"), old.get_model("games", "Hand")
    owner = User.objects.create(username="old-owner")
    table = Table.objects.create(variant="zhejiang_caishen", options={}, stake=1, owner=owner)
    for number, deltas, settled in ((1, {"0": 5, "1": -5}, True), (2, {"0": -2, "2": 2}, True), (3, {"3": 9}, False)):
        Hand.objects.create(
            table=table,
            number=number,
            dealer_position=0,
            seed="s",
            seed_hash="h",
            snapshot={},
            deltas=deltas,
            settled=settled,
        )
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    from games.models import Table as NewTable

    assert NewTable.objects.get(pk=table.pk).scores == {"0": 3, "1": -5, "2": 2, "3": 0}
