"""The digital twin: its schema and patches, the rules' candidates, the merge and the verifier that grounds them."""
