"""REST API."""
