"""Stemming from several threads at once (the console runs the doctor in workers) gives every
thread the same stems as one thread alone."""

from __future__ import annotations

import itertools
import string
import threading

from bestie_tui.text import words


def test_two_threads_stemming_at_once_get_the_stems_one_thread_gets():
    letters = string.ascii_lowercase
    tokens = ["".join(p) + suffix for p in itertools.product(letters, repeat=3)
              for suffix in ("ing", "ations")][:4000]
    words.stem.cache_clear()
    alone = [words._stemmer().stemWord(t) for t in tokens]
    words.stem.cache_clear()
    results: dict[int, list[str]] = {}
    errors: list[BaseException] = []

    def run(n: int) -> None:
        try:
            results[n] = [words.stem(t) for t in (tokens if n == 0 else list(reversed(tokens)))]
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert results[0] == alone
    assert results[1] == list(reversed(alone))
