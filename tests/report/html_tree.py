"""A small element tree of an HTML page (the report as written, or the DOM Chromium dumps), for
tests that read the numbers the page shows from its data-* attributes."""

from __future__ import annotations

from html.parser import HTMLParser

VOID = {"meta", "link", "br", "hr", "img", "input", "source", "wbr", "area", "base", "col", "embed", "track"}


class Element:
    def __init__(self, tag: str, attrs: dict, parent=None):
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.children: list = []
        self.text_parts: list = []

    @property
    def classes(self) -> set:
        return set((self.attrs.get("class") or "").split())

    def iter(self):
        yield self
        for child in self.children:
            yield from child.iter()

    def find_all(self, tag: str = None, cls: str = None) -> list:
        return [e for e in self.iter() if e is not self and (tag is None or e.tag == tag)
                and (cls is None or cls in e.classes)]

    def text(self) -> str:
        return "".join(self.text_parts) + "".join(c.text() for c in self.children)

    def data(self, name: str):
        """A data-* attribute as an int when it is one, else its text (None when absent)."""
        value = self.attrs.get(f"data-{name}")
        if value is None:
            return None
        try:
            return int(value)
        except ValueError:
            try:
                return float(value)
            except ValueError:
                return value


class _Builder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.current = self.root
        self.start_tags: list = []

    def handle_starttag(self, tag, attrs):
        self.start_tags.append(tag)
        element = Element(tag, dict(attrs), self.current)
        self.current.children.append(element)
        if tag not in VOID:
            self.current = element

    def handle_startendtag(self, tag, attrs):
        self.start_tags.append(tag)
        self.current.children.append(Element(tag, dict(attrs), self.current))

    def handle_endtag(self, tag):
        node = self.current
        while node is not self.root and node.tag != tag:
            node = node.parent
        if node is not self.root:
            self.current = node.parent

    def handle_data(self, data):
        self.current.text_parts.append(data)


def parse(text: str) -> tuple:
    """(root Element, every start tag's name in document order)."""
    builder = _Builder()
    builder.feed(text)
    builder.close()
    return builder.root, builder.start_tags
