"""Rooms: several named publishers in one session, their finals interleaved into one transcript."""
