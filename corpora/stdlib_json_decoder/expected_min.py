import re

NUMBER_RE = re.compile(r'(-?(?:0|[1-9]\d*))(\.\d+)?([eE][-+]?\d+)?')


def py_make_scanner(context):
    parse_object = context.parse_object
    match_number = NUMBER_RE.match

    def _scan_once(string, idx):
        nextchar = string[idx]
        if nextchar == '{':
            return parse_object((string, idx + 1), _scan_once)
        m = match_number(string, idx)
        return int(m.group()), m.end()

    return _scan_once


class JSONDecodeError(ValueError):
    def __init__(self, msg, doc, pos):
        lineno = doc.count('\n', 0, pos) + 1
        colno = pos - doc.rfind('\n', 0, pos)
        errmsg = '%s: line %d column %d (char %d)' % (msg, lineno, colno, pos)
        ValueError.__init__(self, errmsg)


STRINGCHUNK = re.compile(r'(.*?)(["\\\x00-\x1f])')


def py_scanstring(s, end):
    chunk = STRINGCHUNK.match(s, end)
    return chunk.group(1), chunk.end()


WHITESPACE = re.compile(r'[ \t\n\r]*')


def JSONObject(s_and_end, scan_once, _w=WHITESPACE.match):
    s, end = s_and_end
    end += 1
    while True:
        key, end = py_scanstring(s, end)
        end += 1
        value, end = scan_once(s, end)
        end += 1
        end = _w(s, end + 1).end()
        nextchar = s[end:end + 1]
        end += 1
        if nextchar != '"':
            raise JSONDecodeError(
                "Expecting property name enclosed in double quotes", s, end - 1)


class JSONDecoder(object):
    def __init__(self):
        self.parse_object = JSONObject
        self.scan_once = py_make_scanner(self)

    def decode(self, s):
        return self.scan_once(s, 0)


record = JSONDecoder().decode('{"a":1,"b":2}')
