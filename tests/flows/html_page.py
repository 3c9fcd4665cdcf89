"""Read a rendered page back with the standard library's HTML parser (an independent reading of our output)."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {"meta", "link", "br", "img", "input", "hr", "wbr", "source"}


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    parts: list[str] = field(default_factory=list)
    start: int = 0
    end: int = 0  # the elements[start + 1:end] are this element's descendants

    @property
    def text(self) -> str:
        return "".join(self.parts)


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self.open: list[Element] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs}, start=len(self.elements))
        self.elements.append(element)
        element.end = len(self.elements)
        if tag not in VOID:
            self.open.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append(Element(tag, {k: v or "" for k, v in attrs}, start=len(self.elements)))
        self.elements[-1].end = len(self.elements)

    def handle_endtag(self, tag: str) -> None:
        # close up to the matching tag; a mismatch means the page is malformed
        assert self.open and self.open[-1].tag == tag, f"</{tag}> closes <{self.open[-1].tag if self.open else None}>"
        self.open.pop().end = len(self.elements)

    def handle_data(self, data: str) -> None:
        for element in self.open:
            element.parts.append(data)


def read_page(page: str) -> list[Element]:
    """Every element of the page in document order, with its decoded attributes and text."""
    reader = _Reader()
    reader.feed(page)
    reader.close()
    assert not reader.open, f"unclosed elements: {[e.tag for e in reader.open]}"
    return reader.elements


def find(elements: list[Element], tag: str, **attrs: str) -> list[Element]:
    """Elements with this tag whose attributes contain the given values (``class_`` for ``class``; word match)."""
    wanted = {k.rstrip("_").replace("_", "-"): v for k, v in attrs.items()}
    return [
        e for e in elements
        if e.tag == tag and all(
            (v in e.attrs.get(k, "").split()) if k == "class" else e.attrs.get(k) == v for k, v in wanted.items()
        )
    ]


def inside(elements: list[Element], parent: Element) -> list[Element]:
    """The descendants of ``parent``, in document order."""
    return elements[parent.start + 1:parent.end]


def leaderboard(elements: list[Element], section_id: str) -> dict[str, list[str]]:
    """The leaderboard of one report section: system -> the texts of its method cells (not its coverage)."""
    rows = {}
    for row in _board_rows(elements, section_id):
        cells = [c.text.strip() for c in find(inside(elements, row), "td") if "coverage" not in c.attrs.get("class", "")]
        rows[cells[0]] = cells[1:]
    return rows


def coverage(elements: list[Element], section_id: str) -> dict[str, int]:
    """The leaderboard's coverage column of one report section: system -> its number of voters."""
    out = {}
    for row in _board_rows(elements, section_id):
        cells = find(inside(elements, row), "td")
        voters = [c for c in cells if "coverage" in c.attrs.get("class", "")]
        out[cells[0].text.strip()] = int(voters[0].attrs["data-voters"])
    return out


def _board_rows(elements: list[Element], section_id: str) -> list[Element]:
    section = next(e for e in find(elements, "section") if e.attrs.get("id") == section_id)
    board = find(inside(elements, section), "table", class_="board")[0]
    return find(inside(elements, find(inside(elements, board), "tbody")[0]), "tr")


def matrix(elements: list[Element], section_id: str, kind: str) -> dict[tuple[str, str], str]:
    """An agreement matrix (``kendall`` or ``top-k``) of one section: (row, column) -> cell text."""
    section = next(e for e in find(elements, "section") if e.attrs.get("id") == section_id)
    table = find(inside(elements, section), "table", class_=kind)[0]
    return {(c.attrs["data-row"], c.attrs["data-col"]): c.text for c in find(inside(elements, table), "td")}
