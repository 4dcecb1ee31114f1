"""Response bodies made from the pipeline's records by field name have the records' fields."""

from __future__ import annotations

from dataclasses import fields

from app.outcomes import Detected
from app.views.convert import _detections
from app.views.models import DetectionShown


def test_a_detection_is_shown_with_the_fields_of_the_record():
    assert list(DetectionShown.model_fields) == [f.name for f in fields(Detected)]


def test_a_detection_is_shown_as_found():
    found = Detected(3, "cup", 0.81, (1.0, 2.0, 30.5, 40.0), ("tableware",), "left", "bottom")
    shown = _detections((found,))[0].model_dump()
    assert shown == {
        "id": 3,
        "label": "cup",
        "score": 0.81,
        "box": (1.0, 2.0, 30.5, 40.0),
        "categories": ["tableware"],
        "hposition": "left",
        "vposition": "bottom",
    }
