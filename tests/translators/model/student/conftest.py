"""The shipped student's weights, for tests of what it writes."""

from __future__ import annotations

import pytest

from translators.model.student.writer import StudentWriter


@pytest.fixture(scope="module")
def shipped_writer() -> StudentWriter:
    """The student with its shipped weights; the test is skipped where they are absent."""
    writer = StudentWriter()
    if not writer.available(writer.folder):
        pytest.skip(f"the student's weights are not in {writer.folder}")
    return writer
