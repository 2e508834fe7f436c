"""Media in and out of a session: files, URLs and stdin (PyAV), audio conversion, and the WebRTC publisher client."""
