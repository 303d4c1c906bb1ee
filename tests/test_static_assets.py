"""The static files as served: lighter than their source, with the same behaviour."""

from __future__ import annotations

from recipes_site.render.pages import lean_js


def test_comment_lines_blank_lines_and_indentation_go():
    source = (
        '/* a block\n   comment */\nfunction f() {\n  // why\n\n  return "a // b /* c */";\n}\n'
    )
    assert lean_js(source) == 'function f() {\nreturn "a // b /* c */";\n}\n'


def test_a_script_with_a_multi_line_template_literal_is_served_as_written():
    source = "const t = `first\n    second`;\n// note\n"
    assert lean_js(source) == source


def test_code_after_a_one_line_block_comment_is_kept():
    assert lean_js("/* one line */\n  x();\n") == "x();\n"
