"""A second process for the doctor's reading: ``python -m bestie_tui.hygiene.read_worker`` reads a
pickled list of texts on stdin and writes a pickled ``{text: facts.Reading}`` on stdout.

A plain subprocess (not ``multiprocessing``): it never re-imports the caller's ``__main__``, never
inherits an open SQLite connection, and is safe beside the console's threads.
"""

from __future__ import annotations

import pickle
import sys


def main() -> None:
    from bestie_tui.facts.reader import read

    texts = pickle.load(sys.stdin.buffer)
    pickle.dump({t: read(t) for t in texts}, sys.stdout.buffer, protocol=pickle.HIGHEST_PROTOCOL)
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
