"""What each reader is sent (rendering, spectating, deltas, frame cache, JSON): may import records, below."""
