import pytest

from theory.flat import format_flat
from translators.model.repair import interpret_output


@pytest.mark.parametrize(
    ("raw", "representation"),
    [
        ("```\nexist(select(scene(), cat))\n```\nQuestion: Is there a dog?", "nested"),
        ("Program: scene(0). select(1, 0, cat). exist(2, 1). end(2). Question: more", "flat"),
        ("v = select(scene(), cat)\nexist(v)\nQuestion: next", "code"),
        ("select: cat\nexist [0]: ?\nQuestion: Is there a dog?\nselect: dog", "gqa"),
    ],
)
def test_interpret_cleans_and_parses_each_representation(raw, representation):
    result = interpret_output(raw, representation)
    assert result.error is None
    assert format_flat(result.program) == "scene(0). select(1, 0, cat). exist(2, 1). end(2)."


@pytest.mark.parametrize(
    ("raw", "representation", "message"),
    [
        ("exist(select(scene(), cat)", "nested", "unbalanced"),
        ("exist(select(scene(), cat), red)", "nested", "exist"),
        ("scene(0). select(1, 0, cat). end(1).", "flat", "end"),
        ("fly: away", "gqa", ""),
    ],
)
def test_interpret_reports_a_one_line_error(raw, representation, message):
    result = interpret_output(raw, representation)
    assert result.program is None
    assert message in result.error and "\n" not in result.error
