"""Measuring what a player sees: WCAG contrast of an element against what is drawn behind it,
and overlapping boxes.  Run in the page (Playwright's ``page.evaluate``): computed colours, the
backgrounds of the element and its ancestors composited (alpha over alpha down to the first
opaque one, else the page's white), ``opacity`` applied to the text.
"""

from __future__ import annotations

from typing import Any

# The colour arithmetic both measurements share (JavaScript, inlined into each).
COLOUR_HELPERS = """
  const parse = (s) => {
    const m = s.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return [0, 0, 0, 0];
    const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, bottom) => {
    const a = top[3] + bottom[3] * (1 - top[3]);
    if (a === 0) return [0, 0, 0, 0];
    return [0, 1, 2].map((i) => (top[i] * top[3] + bottom[i] * bottom[3] * (1 - top[3])) / a).concat([a]);
  };
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
"""

MEASURE_JS = (
    """
(selectors) => {
"""
    + COLOUR_HELPERS
    + """  // The colour drawn behind `el` (its own background included when `own`).
  const behind = (el, own) => {
    const layers = [];
    for (let n = own ? el : el.parentElement; n; n = n.parentElement) {
      const cs = getComputedStyle(n);
      const c = parse(cs.backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    let color = [255, 255, 255, 1];
    for (const c of layers.reverse()) color = over(c, color);
    return color;
  };
  const out = {};
  for (const sel of selectors) {
    const el = document.querySelector(sel);
    if (!el || !el.getClientRects().length) { out[sel] = null; continue; }
    const cs = getComputedStyle(el);
    const bg = behind(el, true);
    let opacity = 1;
    for (let n = el; n; n = n.parentElement) opacity *= Number(getComputedStyle(n).opacity);
    const text = over([...parse(cs.color).slice(0, 3), parse(cs.color)[3] * opacity], bg);
    const r = el.getBoundingClientRect();
    const around = behind(el, false);
    const rim = parseFloat(cs.borderTopWidth);
    out[sel] = {
      text: ratio(text, bg),
      // The control's own surface against the page around it (WCAG 1.4.11, non-text contrast);
      // its border when it has one that stands out more.
      surface: Math.max(ratio(bg, around), rim > 0 ? ratio(over(parse(cs.borderTopColor), around), around) : 0),
      fontSize: parseFloat(cs.fontSize),
      box: { x: r.x, y: r.y, w: r.width, h: r.height },
    };
  }
  return out;
}
"""
)


# Every text of an element's subtree against what is behind it.  The felt (#mj-stage) is a
# gradient, not a colour: it counts as its lighter green (#2c7a4b), the worst case for light text.
TEXTS_JS = (
    """
(selector) => {
"""
    + COLOUR_HELPERS
    + """  const out = [];
  const root = document.querySelector(selector);
  if (!root) return out;
  for (const el of [root, ...root.querySelectorAll("*")]) {
    if (el.closest(".tile, svg")) continue;
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !el.getClientRects().length || !el.checkVisibility()) continue;
    const layers = [];
    let opacity = 1;
    for (let n = el; n; n = n.parentElement) opacity *= Number(getComputedStyle(n).opacity);
    for (let n = el; n; n = n.parentElement) {
      if (n.id === "mj-stage") { layers.push([44, 122, 75, 1]); break; }
      const c = parse(getComputedStyle(n).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    let bg = [255, 255, 255, 1];
    for (const c of layers.reverse()) bg = over(c, bg);
    const color = parse(getComputedStyle(el).color);
    const text = over([color[0], color[1], color[2], color[3] * opacity], bg);
    const own_text = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent.trim()).join(" ");
    out.push({ text: own_text, ratio: ratio(text, bg), size: parseFloat(getComputedStyle(el).fontSize) });
  }
  return out;
}
"""
)


def text_contrasts(page: Any, selector: str) -> list[dict[str, Any]]:
    """Each visible text under ``selector``: its words, contrast ratio and font size."""
    return list(page.evaluate(TEXTS_JS, selector))


def measure(page: Any, selectors: list[str]) -> dict[str, Any]:
    return dict(page.evaluate(MEASURE_JS, selectors))


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    """Whether two boxes share more than a pixel's sliver."""
    return (
        min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"]) > 1
        and min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"]) > 1
    )
