"""One module per command-line command."""
