"""Formulas as TeX: MathML, KaTeX and MathJax sources, for the renderers.

A formula's TeX is, first, what the page carries for it:

* the ``<annotation encoding="application/x-tex">`` of a MathML ``<math>`` (KaTeX writes one
  in every formula; so do many MathML generators);
* the ``<script type="math/tex">`` (``; mode=display`` for display math) MathJax 2 reads,
  which follows the formula MathJax rendered in place of it.

The document walk does not read ``<annotation>`` or ``<script>`` text; it is fetched from the
page for the one element (:func:`element_text`). A ``<math>`` without a TeX annotation is
converted from its presentation MathML by :func:`mathml_tex`, a small subset: token elements
(``mi``, ``mn``, ``mo``, ``mtext``), rows, scripts (``msup``, ``msub``, ``msubsup``,
``munder``, ``mover``, ``munderover``), ``mfrac``, ``msqrt``, ``mroot``, ``mfenced`` and
tables (``mtable`` as a ``matrix``), with Greek letters and common operators as TeX commands.
Other elements contribute their content unchanged. Content MathML is not converted.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ..document.blocks import Block, Document

TEX_ENCODINGS = frozenset({"application/x-tex", "text/x-tex", "application/x-latex", "tex", "latex"})
MATH_SCRIPT_TYPES = ("math/tex", "math/latex")

# Characters MathML writes as text and TeX as commands.
_SYMBOLS = {
    "α": r"\alpha", "β": r"\beta", "γ": r"\gamma", "δ": r"\delta", "ε": r"\epsilon", "ϵ": r"\epsilon",
    "ζ": r"\zeta", "η": r"\eta", "θ": r"\theta", "ι": r"\iota", "κ": r"\kappa", "λ": r"\lambda",
    "μ": r"\mu", "ν": r"\nu", "ξ": r"\xi", "π": r"\pi", "ρ": r"\rho", "σ": r"\sigma", "τ": r"\tau",
    "υ": r"\upsilon", "φ": r"\phi", "ϕ": r"\phi", "χ": r"\chi", "ψ": r"\psi", "ω": r"\omega",
    "Γ": r"\Gamma", "Δ": r"\Delta", "Θ": r"\Theta", "Λ": r"\Lambda", "Ξ": r"\Xi", "Π": r"\Pi",
    "Σ": r"\Sigma", "Φ": r"\Phi", "Ψ": r"\Psi", "Ω": r"\Omega",
    "×": r"\times", "·": r"\cdot", "⋅": r"\cdot", "÷": r"\div", "±": r"\pm", "∓": r"\mp",
    "≤": r"\leq", "≥": r"\geq", "≠": r"\neq", "≈": r"\approx", "≡": r"\equiv", "∼": r"\sim",
    "∝": r"\propto", "∞": r"\infty", "∑": r"\sum", "∏": r"\prod", "∫": r"\int", "∮": r"\oint",
    "∂": r"\partial", "∇": r"\nabla", "√": r"\sqrt", "∈": r"\in", "∉": r"\notin", "⊂": r"\subset",
    "⊆": r"\subseteq", "⊃": r"\supset", "⊇": r"\supseteq", "∪": r"\cup", "∩": r"\cap",
    "∅": r"\emptyset", "∀": r"\forall", "∃": r"\exists", "¬": r"\neg", "∧": r"\wedge", "∨": r"\vee",
    "→": r"\to", "←": r"\leftarrow", "↔": r"\leftrightarrow", "⇒": r"\Rightarrow", "⇐": r"\Leftarrow",
    "⇔": r"\Leftrightarrow", "↦": r"\mapsto", "…": r"\ldots", "⋯": r"\cdots", "−": "-", "∗": "*",
    "′": "'", "″": "''", "⁡": "", "⁢": "", "⁣": ",", "⁤": "+", "\u00a0": " ",
}
_ACCENTS = {"^": r"\hat", "ˆ": r"\hat", "~": r"\tilde", "˜": r"\tilde", "¯": r"\bar", "‾": r"\bar",
            "→": r"\vec", "˙": r"\dot", "¨": r"\ddot", "⏞": r"\overbrace", "⏟": r"\underbrace"}
_TEX_ACCENTS = {r"\to": r"\vec", r"\rightarrow": r"\vec"}
_FUNCTIONS = frozenset("sin cos tan cot sec csc arcsin arccos arctan sinh cosh tanh log ln exp lim max min "
                       "sup inf det dim gcd arg deg ker Pr".split())


class Formula(NamedTuple):
    tex: str
    display: bool
    carried: bool = True  # the page carries this TeX (False: converted from MathML here)


def element_text(doc: Document, element: int) -> str:
    """The text of ``element`` as the page holds it, walked or not ("" without the native page)."""
    if doc.native is None:
        return ""
    return str(doc.native.element_text(element))


def subtree_end(doc: Document, element: int) -> int:
    depths = doc.elements.depths
    end = element + 1
    while end < len(depths) and depths[end] > depths[element]:
        end += 1
    return end


def math_script(doc: Document, element: int) -> Formula | None:
    """The formula of a MathJax ``<script type="math/tex">`` element (None for other elements)."""
    columns = doc.elements
    if columns.tags[element] != "script":
        return None
    kind = (columns.attrs[element].get("type") or "").strip().lower()
    if not kind.startswith(MATH_SCRIPT_TYPES):
        return None
    tex = " ".join(element_text(doc, element).split())
    return Formula(tex, "mode=display" in kind.replace(" ", "")) if tex else None


def math_formula(doc: Document, math: int, blocks: Sequence[Block]) -> Formula | None:
    """The formula of ``<math>`` element ``math``: its TeX annotation, else its presentation
    MathML converted (:func:`mathml_tex`) from the text of ``blocks`` (those holding it)."""
    columns = doc.elements
    end = subtree_end(doc, math)
    display = (columns.attrs[math].get("display") or "").strip().lower() == "block"
    for i in range(math + 1, end):
        if columns.tags[i] == "annotation" and \
                (columns.attrs[i].get("encoding") or "").strip().lower() in TEX_ENCODINGS:
            tex = " ".join(element_text(doc, i).split())
            if tex:
                return Formula(tex, display)
    texts: dict[int, str] = {}
    for block in blocks:
        for text, element in block.spans:
            if math <= element < end:
                texts[element] = texts.get(element, "") + text
    tex = mathml_tex(doc, math, end, texts)
    return Formula(tex, display, carried=False) if tex.strip() else None


def _symbols(text: str) -> str:
    out = []
    for ch in text:
        command = _SYMBOLS.get(ch)
        if command is None:
            out.append("\\" + ch if ch in "{}%$#&_" else ch)
        else:
            out.append(command + (" " if command[-1:].isalpha() else ""))
    return "".join(out).strip() if len(out) > 1 else "".join(out)


def _group(tex: str) -> str:
    tex = tex.strip()
    return tex if len(tex) == 1 or (tex.startswith("\\") and tex[1:].isalpha()) else "{" + tex + "}"


def mathml_tex(doc: Document, math: int, end: int, texts: dict[int, str]) -> str:
    """TeX of the presentation MathML in elements ``[math, end)``, ``texts`` the text directly
    in each; children are converted before their parents (reverse pre-order), no recursion."""
    columns = doc.elements
    children: dict[int, list[int]] = {}
    for i in range(math + 1, end):
        children.setdefault(columns.parents[i], []).append(i)
    tex: dict[int, str] = {}
    for i in range(end - 1, math - 1, -1):
        tag = columns.tags[i]
        kids = [tex.get(c, "") for c in children.get(i, ())]
        own = " ".join(texts.get(i, "").split())
        tex[i] = _convert(tag, columns.attrs[i], kids, own)
    return " ".join(tex[math].split())


def _convert(tag: str, attrs: object, kids: list[str], own: str) -> str:
    get = getattr(attrs, "get", lambda _name, _default=None: None)
    if tag in ("annotation", "annotation-xml", "mphantom", "none", "mprescripts"):
        return ""
    if tag == "semantics":
        return kids[0] if kids else own
    if tag == "mi":
        if own in _FUNCTIONS:
            return "\\" + own + " "
        return _symbols(own) if len(own) <= 1 else r"\mathrm{" + _symbols(own) + "}"
    if tag in ("mn", "mo", "ms"):
        return _symbols(own)
    if tag == "mtext":
        return r"\text{" + own + "}" if own.strip() else " "
    if tag == "mspace":
        return " "
    if tag in ("msup", "msub") and len(kids) >= 2:
        return _group(kids[0]) + ("^" if tag == "msup" else "_") + _group(kids[1])
    if tag == "msubsup" and len(kids) >= 3:
        return _group(kids[0]) + "_" + _group(kids[1]) + "^" + _group(kids[2])
    if tag == "munderover" and len(kids) >= 3:
        return _group(kids[0]) + "_" + _group(kids[1]) + "^" + _group(kids[2])
    if tag in ("mover", "munder") and len(kids) >= 2:
        accent = _ACCENTS.get(kids[1].strip()) or _TEX_ACCENTS.get(kids[1].strip())
        if accent:
            return accent + "{" + kids[0] + "}"
        if kids[0].strip() in (r"\sum", r"\prod", r"\int", r"\lim", r"\lim ", r"\max ", r"\min "):
            return kids[0].strip() + ("^" if tag == "mover" else "_") + _group(kids[1])
        return (r"\overset{" if tag == "mover" else r"\underset{") + kids[1] + "}{" + kids[0] + "}"
    if tag == "mfrac" and len(kids) >= 2:
        return r"\frac{" + kids[0] + "}{" + kids[1] + "}"
    if tag == "msqrt":
        return r"\sqrt{" + "".join(kids) + "}"
    if tag == "mroot" and len(kids) >= 2:
        return r"\sqrt[" + kids[1] + "]{" + kids[0] + "}"
    if tag == "mfenced":
        opening, closing = get("open") or "(", get("close") or ")"
        return r"\left" + opening + ",".join(kids) + r"\right" + closing
    if tag == "mtd":
        return "".join(kids) + own
    if tag == "mtr":
        return " & ".join(kids)
    if tag == "mtable":
        return r"\begin{matrix} " + r" \\ ".join(kids) + r" \end{matrix}"
    return own + "".join(kids)


_FRAME_CLASSES = frozenset({"MathJax", "MathJax_Display", "MathJax_SVG", "MathJax_SVG_Display", "MathJax_CHTML",
                            "MathJax_MathML"})
_KATEX_CLASSES = frozenset({"katex"})


def _classes(doc: Document, element: int) -> frozenset[str]:
    value = doc.elements.attrs[element].get("class")
    return frozenset(value.split()) if value else frozenset()


class Formulas:
    """The formulas of a page: per element, the formula unit holding it (an outermost
    ``<math>``, a KaTeX ``span.katex`` or a MathJax 2 frame), and each unit's TeX on demand."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        columns = doc.elements
        self.unit = [-1] * len(columns)
        for i, (tag, parent) in enumerate(zip(columns.tags, columns.parents)):
            above = self.unit[parent] if parent >= 0 else -1
            if above >= 0:
                self.unit[i] = above
            elif tag == "math" or (tag in ("span", "div") and (_classes(doc, i) & (_FRAME_CLASSES | _KATEX_CLASSES))):
                self.unit[i] = i
        self.cache: dict[int, Formula | None] = {}

    @staticmethod
    def of(doc: Document, scripts: bool = True) -> Formulas | None:
        """The page's formulas, or None for a page without any (most pages: no pass is made).
        Without ``scripts`` only pages with ``<math>`` are looked at (a list scan, no Python
        loop: the text renderer's hot path); MathJax frames without one are left as text."""
        tags = doc.elements.tags
        if "math" not in tags and (not scripts or not any(
                tag == "script" and (doc.elements.attrs[i].get("type") or "").lower().startswith(MATH_SCRIPT_TYPES)
                for i, tag in enumerate(tags))):
            return None
        return Formulas(doc)

    def formula(self, unit: int, blocks: Sequence[Block]) -> Formula | None:
        if unit not in self.cache:
            self.cache[unit] = self._formula(unit, blocks)
        return self.cache[unit]

    def _formula(self, unit: int, blocks: Sequence[Block]) -> Formula | None:
        doc, columns = self.doc, self.doc.elements
        end = subtree_end(doc, unit)
        classes = _classes(doc, unit)
        parent = columns.parents[unit]
        around = classes | (_classes(doc, parent) if parent >= 0 else frozenset())
        if classes & _FRAME_CLASSES and end < len(columns.tags):
            script = math_script(doc, end)
            if script is not None:
                return Formula(script.tex, script.display or "MathJax_Display" in around)
        math = next((i for i in range(unit, end) if columns.tags[i] == "math"), -1)
        if math < 0:
            return None
        found = math_formula(doc, math, blocks)
        if found is None:
            return None
        return found._replace(display=found.display or bool(around & {"katex-display", "MathJax_Display"}))


def block_text(formulas: Formulas, block: Block) -> str:
    """The block's text with the spans of each formula whose TeX the page carries replaced by
    that TeX in dollars (a converted formula keeps the text its MathML spells out: plain text
    is for reading and word counts, and the conversion is a subset)."""
    pieces: list[str] = []
    written: set[int] = set()
    for text, element in block.spans:
        unit = formulas.unit[element]
        formula = formulas.formula(unit, (block,)) if unit >= 0 else None
        if formula is None or not formula.carried:
            pieces.append(text)
        elif unit not in written:
            written.add(unit)
            pieces.append(f"${formula.tex}$")
    return " ".join("".join(pieces).split()) if "\n" not in block.text else "".join(pieces)


def has_formula(formulas: Formulas, block: Block) -> bool:
    return any(formulas.unit[element] >= 0 for _, element in block.spans)


def formula_markdown(formula: Formula) -> str:
    """``$tex$`` inline, ``$$tex$$`` for display math (the caller makes display math that
    shares its block with text inline: ``$$`` opens a math block only at a block's start)."""
    fence = "$$" if formula.display else "$"
    return f"{fence}{formula.tex}{fence}"
