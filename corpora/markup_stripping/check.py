# The test, appended to every candidate (only input.py is reduced): guards that
# fail differently when the function stops stripping markup, then the failing check.
# Two texts between tags rule out a function that returns a constant; a quoted
# ">" inside a tag rules out one that forgets quotes (the shortcut around the bug).
if remove_html_markup("<b>x</b>") != "x" or remove_html_markup("a<i>yz</i>") != "ayz":
    raise RuntimeError("tags not stripped")
if remove_html_markup('<a title="x>y">z</a>') != "z":
    raise RuntimeError("a quoted > ended the tag")
assert remove_html_markup('"foo"') == '"foo"', "My Test"
