"""What ``streamtwin run`` writes: the live text view, JSONL, subtitles and meeting notes."""
