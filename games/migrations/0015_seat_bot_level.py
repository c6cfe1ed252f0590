from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0014_table_sound_on_by_default"),
    ]

    operations = [
        migrations.AddField(
            model_name="seat",
            name="bot_level",
            field=models.CharField(choices=[("easy", "easy"), ("strong", "strong")], default="strong", max_length=6),
        ),
    ]
