def remove_html_markup(s):
    tag = False
    quote = False
    out = ""
    for c in s:
        if c == "<":
            tag = True
        elif c == ">" and not quote:
            tag = False
        elif c == '"':
            quote = not quote
        elif not tag:
            out = out + c
    return out
