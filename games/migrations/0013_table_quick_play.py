from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0012_hand_snapshot_seq"),
    ]

    operations = [
        migrations.AddField(
            model_name="table",
            name="quick_play",
            field=models.BooleanField(default=False),
        ),
    ]
