"""Speaker labels on one microphone: a voice encoder and online clustering of its embeddings."""
