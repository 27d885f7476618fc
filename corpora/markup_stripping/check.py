# The test, appended to every candidate (only input.py is reduced): a guard
# that fails differently when tags are no longer stripped, then the failing check.
if remove_html_markup("<b>x</b>") != "x":
    raise RuntimeError("tags not stripped")
assert remove_html_markup('"foo"') == '"foo"', "My Test"
