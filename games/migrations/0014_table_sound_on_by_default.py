from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0013_table_quick_play"),
    ]

    operations = [
        migrations.AlterField(
            model_name="playertablesettings",
            name="sound",
            field=models.BooleanField(default=True),
        ),
    ]
