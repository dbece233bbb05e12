"""XML of any schema, parsed with defusedxml: one span per element subtree that fits the span cap.

A locator is the element's path, local names with 1-based positions among same-named siblings:
``element=/catalog/group[2]/control[1]``. Starting at the root's children, an element whose text fits
``max_span_chars`` is one span; a larger one gets a span for its own text and attributes and its
children are visited the same way, so an OSCAL catalog gives one span per control, a data export one per
record. Span text is one line per element, indented by depth: ``title: Access Control`` or
``control [id=ac-1, class=SP800-53]`` followed by its children. Entity declarations and external
references are refused (billion laughs, XXE); a DOCTYPE without entities is allowed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from graphforge.models.workspace import SpanKind
from graphforge.parsers.base import Extracted, ParseLimits, Refused, make_spans

NAME = "defusedxml"


def _local(tag: Any) -> str:
    if not isinstance(tag, str):  # comments and processing instructions
        return ""
    return tag.rsplit("}", 1)[-1]


def parse(path: Path, limits: ParseLimits) -> Extracted:
    from xml.etree.ElementTree import ParseError

    import defusedxml.ElementTree as SafeET  # type: ignore[import-untyped]
    from defusedxml import DefusedXmlException

    try:
        root = SafeET.parse(str(path), forbid_dtd=False, forbid_entities=True, forbid_external=True).getroot()
    except DefusedXmlException as exc:
        raise Refused(
            f"XML declares entities or external references (possible entity bomb/XXE): {exc}"
        ) from exc
    except ParseError as exc:
        raise Refused(f"malformed XML: {exc}") from exc
    out = Extracted()
    for where, text in _element_texts(root, limits):
        out.spans.extend(make_spans(f"element={where}", SpanKind.ELEMENT, text, limits))
        if len(out.spans) > limits.max_spans:
            raise Refused(f"XML has more than {limits.max_spans} element spans (cap)")
    return out


def _element_texts(root: Any, limits: ParseLimits) -> Iterator[tuple[str, str]]:
    """(path, text) in document order. Iterative: a hostile file nests 100,000 elements deep."""
    cap = limits.max_span_chars
    stack: list[tuple[Any, str, int]] = [(root, "/" + _local(root.tag), 0)]
    while stack:
        element, where, depth = stack.pop()
        children = [] if _mixed(element) else list(_children(element, where))
        if depth > 0 and (not children or depth >= limits.max_xml_depth or _size(element, cap) <= cap):
            text = _render(element)
            if text.strip():
                yield where, text
            continue
        own = _own_line(element)
        if own.strip():
            yield where, own
        stack.extend((child, path, depth + 1) for child, path in reversed(children))


def _children(element: Any, where: str) -> list[tuple[Any, str]]:
    seen: dict[str, int] = {}
    out = []
    for child in element:
        name = _local(child.tag)
        if not name:
            continue
        seen[name] = seen.get(name, 0) + 1
        out.append((child, f"{where}/{name}[{seen[name]}]"))
    return out


def _mixed(element: Any) -> bool:
    """Prose markup (``<p>text <b>bold</b> more</p>``): its text reads as one line, not per element."""
    return len(element) > 0 and (
        bool((element.text or "").strip()) or any((child.tail or "").strip() for child in element)
    )


def _own_line(element: Any) -> str:
    name = _local(element.tag)
    attrs = ", ".join(f"{_local(k)}={' '.join(str(v).split())}" for k, v in element.attrib.items())
    head = f"{name} [{attrs}]" if attrs else name
    if _mixed(element):
        text = " ".join("".join(element.itertext()).split())
    else:
        text = " ".join((element.text or "").split())
    return f"{head}: {text}" if text else head


def _walk(element: Any) -> Iterator[tuple[Any, int]]:
    """Pre-order (element, depth below ``element``), iterative; mixed-content elements are not entered."""
    stack = [(element, 0)]
    while stack:
        node, depth = stack.pop()
        yield node, depth
        if not _mixed(node):
            stack.extend((c, depth + 1) for c in reversed(list(node)) if _local(c.tag))


def _size(element: Any, limit: int) -> int:
    """Length of ``_render(element)``, counted only up to just past ``limit``."""
    total = 0
    for node, depth in _walk(element):
        total += len(_own_line(node)) + min(depth, 20) * 2 + 1
        if total > limit:
            break
    return total


def _render(element: Any) -> str:
    return "\n".join("  " * min(depth, 20) + _own_line(node) for node, depth in _walk(element)).strip("\n")
