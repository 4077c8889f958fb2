"""``python -m bestie_tui`` runs the ``bestie`` command line."""

from .cli.main import main

main()
