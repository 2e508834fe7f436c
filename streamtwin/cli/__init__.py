"""The command line: ``streamtwin run | serve | stream | replay``."""
