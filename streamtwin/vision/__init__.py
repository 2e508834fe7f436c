"""The video stage: sampled frames, keyframes and what the camera shows, as text for the context."""
