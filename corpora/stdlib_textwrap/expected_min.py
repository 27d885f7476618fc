import re

class TextWrapper:
    wordsep_simple_re = re.compile(r'(%s+)' % ' ')

    def __init__(self, width, initial_indent="", subsequent_indent="", max_lines=None, placeholder=' [...]'):
        self.width = width
        self.initial_indent = initial_indent
        self.subsequent_indent = subsequent_indent
        self.max_lines = max_lines
        self.placeholder = placeholder

    def _wrap_chunks(self, chunks):
        lines = []
        chunks.reverse()
        while chunks:
            cur_line = []
            cur_len = 0
            if lines:
                indent = self.subsequent_indent
            else:
                indent = self.initial_indent
            width = self.width - len(self.initial_indent)
            if chunks[-1].strip() == '':
                del chunks[-1]
            while chunks:
                l = len(chunks[-1])
                if cur_len + l <= width:
                    cur_line.append(chunks.pop())
                    cur_len += l
                else:
                    break
            if cur_line[-1].strip() == '':
                del cur_line[-1]
            if self.max_lines is None:
                lines.append(indent + ''.join(cur_line))
            else:
                while cur_line:
                    if cur_line[-1].strip() and cur_len + len(self.placeholder) <= width:
                        cur_line.append(self.placeholder)
                        lines.append(indent + ''.join(cur_line))
                        break
                    cur_len -= len(cur_line[-1])
                    del cur_line[-1]
                break
        return lines

    def wrap(self, text):
        chunks = self.wordsep_simple_re.split(text)
        return self._wrap_chunks(chunks)

    def fill(self, text):
        return "\n".join(self.wrap(text))


def wrap(text, width, **kwargs):
    w = TextWrapper(width=width, **kwargs)
    return w.wrap(text)

def fill(text, width, **kwargs):
    w = TextWrapper(width=width, **kwargs)
    return w.fill(text)

def shorten(text, width):
    w = TextWrapper(width=width, max_lines=1)
    return w.fill(' '.join(text.split()))


_leading_whitespace_re = re.compile('(^[ \t]*)(?:[^ \t\n])')

def dedent(text):
    indents = _leading_whitespace_re.findall(text)
    for indent in indents:
        margin = indent
    text = re.sub(margin, '', text)
    return text
