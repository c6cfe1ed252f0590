from django.db import migrations, models
from django.db.models import F


def snapshots_are_current(apps, schema_editor):  # type: ignore[no-untyped-def]
    """Until now every step wrote the whole snapshot: each existing hand's is at its ``seq``."""
    Hand = apps.get_model("games", "Hand")
    Hand.objects.update(snapshot_seq=F("seq"))


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0011_offline_grace"),
    ]

    operations = [
        migrations.AddField(
            model_name="hand",
            name="snapshot_seq",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.RunPython(snapshots_are_current, migrations.RunPython.noop),
    ]
