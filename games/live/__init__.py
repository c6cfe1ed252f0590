"""The table socket (consumer, routing, emotes): may import services and the rooms below, never web."""
