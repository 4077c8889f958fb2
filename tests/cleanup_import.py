"""A fresh import of many old, never-used memories, written for the cleanup-default tests: every
text is distinct (a made-up owner's household notes), created long before the import."""

from __future__ import annotations

from datetime import timedelta

PLACES = ["kitchen", "garage", "attic", "balcony", "study", "hallway", "cellar", "porch", "shed", "loft"]
THINGS = ["lamp", "kettle", "bicycle", "ladder", "guitar", "printer", "blender", "heater", "router", "drill",
          "camera", "tripod", "scanner", "toaster", "fan"]
COLOURS = ["red", "blue", "green", "yellow", "black", "white", "orange", "purple", "grey", "silver",
           "golden", "pink", "brown", "teal", "navy", "beige", "ivory", "maroon", "olive", "coral"]
KINDS = ["preference", "project_context", "note", "decision", "identity", "communication_preference"]


def old_import(now, n: int = 5000, days_old: int = 400) -> dict:
    """An export-format document of ``n`` approved working memories created ``days_old`` days
    before ``now``, never accessed."""
    created = (now - timedelta(days=days_old)).isoformat()
    memories = []
    for i in range(n):
        place, thing = PLACES[i % len(PLACES)], THINGS[(i // len(PLACES)) % len(THINGS)]
        colour = COLOURS[(i // (len(PLACES) * len(THINGS))) % len(COLOURS)]
        memories.append({"text": f"The {colour} {thing} in the {place} is item number {i}.",
                         "kind": KINDS[i % len(KINDS)], "status": "approved", "scope": "project",
                         "layer": "working", "confidence": 0.8, "created_at": created, "updated_at": created})
    return {"format": "bestie-memory-export", "version": 2, "exported_at": now.isoformat(),
            "memories": memories, "messages": []}
