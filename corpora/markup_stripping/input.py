def remove_html_markup(s):
    """Return s without its markup: the literature's example, quote bug included."""
    tag = False
    quote = False
    out = ""
    seen = ""  # unrelated: everything read so far
    opened = 0  # unrelated: how many tags were opened

    for c in s:
        seen = seen + c
        if c == "<" and not quote:
            tag = True
            opened = opened + 1
        elif c == ">" and not quote:
            tag = False
        elif c == '"' or c == "'" and tag:
            quote = not quote
        elif not tag:
            out = out + c

    return out
