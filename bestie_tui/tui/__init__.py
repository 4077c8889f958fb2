"""The Textual console. Imported only by ``bestie tui`` and the tests, never by the core or the CLI start-up."""
