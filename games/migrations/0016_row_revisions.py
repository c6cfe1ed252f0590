"""A revision on the rows a hand step reads (the hand, its table, the table's seats), bumped by
the database itself on every UPDATE of the row, whoever writes it: the ORM, a queryset update,
raw SQL, the admin.  A process that keeps these rows in memory between steps compares revisions
instead of loading the rows again (games.runtime.live_rows).

The trigger always sets ``revision = OLD.revision + 1``, ignoring what the UPDATE wrote, so a
writer holding a stale copy of the row can never move it back to a revision that a cache holds.
"""

from typing import Any

from django.db import migrations, models

TABLES = ("games_hand", "games_table", "games_seat")


def _sqlite(table: str) -> tuple[str, str]:
    # AFTER UPDATE, then an UPDATE of the same row: SQLite does not fire a trigger from its own
    # body unless PRAGMA recursive_triggers is on (it is off by default, and nothing here sets it).
    create = (
        f"CREATE TRIGGER {table}_revision AFTER UPDATE ON {table} FOR EACH ROW "
        f"BEGIN UPDATE {table} SET revision = OLD.revision + 1 WHERE id = OLD.id; END"
    )
    return create, f"DROP TRIGGER IF EXISTS {table}_revision"


POSTGRES_FUNCTION = """
CREATE OR REPLACE FUNCTION games_bump_revision() RETURNS trigger AS $$
BEGIN
    NEW.revision := OLD.revision + 1;
    RETURN NEW;
END
$$ LANGUAGE plpgsql
"""


def _postgres(table: str) -> tuple[str, str]:
    create = (
        f"CREATE TRIGGER {table}_revision BEFORE UPDATE ON {table} "
        f"FOR EACH ROW EXECUTE FUNCTION games_bump_revision()"
    )
    return create, f"DROP TRIGGER IF EXISTS {table}_revision ON {table}"


def create_triggers(apps: Any, schema_editor: Any) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(POSTGRES_FUNCTION)
        statements = [_postgres(t)[0] for t in TABLES]
    elif vendor == "sqlite":
        statements = [_sqlite(t)[0] for t in TABLES]
    else:
        raise NotImplementedError(f"no revision triggers for {vendor}: games.runtime.live_rows needs them")
    for statement in statements:
        schema_editor.execute(statement)


def drop_triggers(apps: Any, schema_editor: Any) -> None:
    vendor = schema_editor.connection.vendor
    for table in TABLES:
        schema_editor.execute(_postgres(table)[1] if vendor == "postgresql" else _sqlite(table)[1])
    if vendor == "postgresql":
        schema_editor.execute("DROP FUNCTION IF EXISTS games_bump_revision()")


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0015_seat_bot_level"),
    ]

    operations = [
        migrations.AddField(
            model_name="hand",
            name="revision",
            field=models.BigIntegerField(default=0, editable=False),
        ),
        migrations.AddField(
            model_name="seat",
            name="revision",
            field=models.BigIntegerField(default=0, editable=False),
        ),
        migrations.AddField(
            model_name="table",
            name="revision",
            field=models.BigIntegerField(default=0, editable=False),
        ),
        migrations.RunPython(create_triggers, drop_triggers),
    ]
