"""The doctor's learned judgement: label probabilities of a pair of memories from its features.

A multinomial logistic regression (softmax over ``LABELS``) fitted with scikit-learn on the labelled
pairs of ``memory_pairs_train.jsonl`` by ``benchmarks/fit_relations.py`` (fixed seed; the script
rewrites ``relation_model.json`` byte for byte). The parameters ship in that file; scoring here is
plain Python (no scikit-learn, no numpy): the standardisation is folded into the weights, so a
pair costs one sparse dot product per label over its non-zero features.

Formula (softmax regression, e.g. Hastie, Tibshirani & Friedman, *The Elements of Statistical
Learning*, 2nd ed., §4.4): ``p(k | x) = exp(b_k + w_k·z) / Σ_j exp(b_j + w_j·z)`` with
``z = (x − mean) / scale``.

The file also carries the thresholds the doctor decides with (``Model.related``: below this
probability of ``compatible`` a pair is at least "related — review"; ``Model.strong``: from this
probability a verdict the rules agree with may be a default action; ``Model.far``: from this
probability a pair that shares no topic in words gets the model's label), calibrated on the
cross-validated probabilities of the training file.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

LABELS = ("duplicate", "correction", "contradiction", "event_vs_state", "compatible")
MODEL_FILE = Path(__file__).with_name("relation_model.json")


@dataclass(frozen=True)
class Model:
    """Fitted parameters: per label, an intercept and ``{feature: weight}`` on raw feature values
    (standardisation folded in); the thresholds ``related``, ``strong`` and ``far`` (probabilities,
    0–1; ``far`` above 1 turns that path off)."""

    labels: tuple[str, ...]
    intercepts: tuple[float, ...]
    weights: tuple[dict[str, float], ...]
    related: float
    strong: float
    #: From this probability, a label other than ``compatible`` is given to two texts that share no
    #: topic the doctor can point at (``relations.close``); above 1, never.
    far: float = 1.01

    @classmethod
    def from_params(cls, params: dict) -> Model:
        """From the JSON object ``fit_relations.py`` writes (``labels``, ``features``, ``mean``,
        ``scale``, ``coef``, ``intercept``, ``thresholds``). Raises ``KeyError``/``ValueError`` on a
        malformed object."""
        names, mean, scale = params["features"], params["mean"], params["scale"]
        weights, intercepts = [], []
        for row, b in zip(params["coef"], params["intercept"]):
            w = {n: c / s for n, c, s in zip(names, row, scale) if c and s}
            weights.append(w)
            intercepts.append(b - sum(c * m / s for c, m, s in zip(row, mean, scale) if s))
        t = params.get("thresholds", {})
        return cls(tuple(params["labels"]), tuple(intercepts), tuple(weights),
                   float(t.get("related", 0.5)), float(t.get("strong", 0.6)), float(t.get("far", 1.01)))

    def scores(self, x: dict[str, float]) -> list[float]:
        """The linear score of each label for the features ``x`` (absent features are 0)."""
        if len(self.intercepts) != 5:
            out = list(self.intercepts)
            for k, v in x.items():
                if v and k in self._by_feature:
                    for i, w in enumerate(self._by_feature[k]):
                        out[i] += v * w
            return out
        s0, s1, s2, s3, s4 = self.intercepts  # five labels: the sum unrolled (the doctor's inner loop)
        rows = self._by_feature
        for k, v in x.items():
            if v:
                row = rows.get(k)
                if row is not None:
                    s0 += v * row[0]
                    s1 += v * row[1]
                    s2 += v * row[2]
                    s3 += v * row[3]
                    s4 += v * row[4]
        return [s0, s1, s2, s3, s4]

    @cached_property
    def _by_feature(self) -> dict[str, tuple[float, ...]]:
        names = {k for w in self.weights for k in w}
        return {k: tuple(w.get(k, 0.0) for w in self.weights) for k in sorted(names)}

    def probabilities(self, x: dict[str, float]) -> dict[str, float]:
        """``{label: probability}`` (softmax of ``scores``)."""
        s = self.scores(x)
        top = max(s)
        e = [math.exp(v - top) for v in s]
        total = sum(e)
        return {label: v / total for label, v in zip(self.labels, e)}

    def contributions(self, x: dict[str, float], label: str, against: str = "compatible") -> list[tuple[str, float]]:
        """The features that favour ``label`` over ``against`` most, by ``(w_label − w_against)·x``,
        largest first (positive only): what the doctor shows as its evidence."""
        wl = self.weights[self.labels.index(label)]
        wa = self.weights[self.labels.index(against)]
        out = [(k, v * (wl.get(k, 0.0) - wa.get(k, 0.0))) for k, v in x.items() if v]
        return sorted([c for c in out if c[1] > 0], key=lambda c: (-c[1], c[0]))


_override: list[Model | None] = []


@lru_cache(maxsize=1)
def _shipped() -> Model | None:
    try:
        return Model.from_params(json.loads(MODEL_FILE.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError):
        return None  # no model file: the rules decide alone


def active() -> Model | None:
    """The model in use: the one ``use`` set, else the shipped file's (``None`` when it is absent)."""
    return _override[-1] if _override else _shipped()


def use(model: Model | None) -> None:
    """Score with ``model`` from now on in this process (``None`` restores the shipped one): for a
    benchmark's cross-validation folds. Calls every ``on_change`` listener (``facts.relations``
    clears its cached verdicts)."""
    _override.clear()
    if model is not None:
        _override.append(model)
    for listener in _listeners:
        listener()


_listeners: list = []


def on_change(listener) -> None:
    """Call ``listener()`` whenever ``use`` changes the model."""
    _listeners.append(listener)


__all__ = ["Model", "LABELS", "MODEL_FILE", "active", "use"]
