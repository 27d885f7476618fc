import pyexpat


class Element:
    def __init__(self, name, attrs):
        self.name, self.attrs, self.children = name, attrs, []

    def toxml(self):
        attrs = "".join(f' {k}="{_write_data(v)}"' for k, v in self.attrs.items())
        inner = "".join(_write_data(c) if isinstance(c, str) else c.toxml() for c in self.children)
        return f"<{self.name}{attrs}>{inner}</{self.name}>" if inner else f"<{self.name}{attrs}/>"


def _write_data(data):
    return data.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class Document:
    def __init__(self, text):
        self.stack = [Element("", {})]
        parser = pyexpat.ParserCreate()
        parser.StartElementHandler = self.start
        parser.EndElementHandler = lambda name: self.stack.pop()
        parser.CharacterDataHandler = lambda data: self.stack[-1].children.append(data)
        parser.Parse(text, True)
        self.documentElement = self.stack[0].children[0]

    def start(self, name, attrs):
        element = Element(name, attrs)
        self.stack[-1].children.append(element)
        self.stack.append(element)


parseString = Document
