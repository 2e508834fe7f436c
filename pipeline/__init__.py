"""streamtwin: a real-time, streaming, multimodal pipeline (see README.md)."""

__version__ = "0.1.0"
