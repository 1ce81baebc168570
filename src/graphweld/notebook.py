"""Jupyter notebooks as one module: the code cells analysed together, edits mapped back to cells.

A notebook's code cells run in order in one namespace, so a function compiled in cell 3 and
defined in cell 2 is one program. graphweld joins the cells into one module text, each cell after
a marker comment line, runs the engine on that text as on any file, and splits the result at the
markers again. Only the `source` values of cells whose code changed are replaced in the file's
JSON text, spliced in the style they were written (a string or a list of lines, the same
indentation and escaping), so outputs, execution counts, metadata, key order and the final
newline stay byte for byte.

IPython syntax that is not Python (`%time ...`, `!pip ...`, `x = !ls`, `obj?`, a `%%time` first
line) is replaced in the module text by a `pass` statement carrying its number, and restored
after. A fix that would drop or copy such a line leaves the notebook unchanged with an error.
Cells of other cell magics (`%%bash`, `%%writefile`, ...) are not Python and are left out.
"""

from __future__ import annotations

import difflib
import json
import re
import warnings
from dataclasses import dataclass

from graphweld.edits import split_lines
from graphweld.source import SourceError

NOTEBOOK_SUFFIX = ".ipynb"

# A marker line before each code cell in the module text: a comment, so no rule ever sees it, and
# libcst keeps it with the statement that follows.
_MARKER = "# graphweld-notebook-cell {index}\n"
_MARKER_LINE = re.compile(r"# graphweld-notebook-cell (\d+)\r?\n?\Z")
_MAGIC_PLACEHOLDER = "pass  # graphweld-ipython-line {index}"
_PLACEHOLDER_LINE = re.compile(r"([ \t]*)pass  # graphweld-ipython-line (\d+)(\r?\n)?\Z")

# Lines IPython rewrites before Python sees them: magics, shell escapes (also assigned), help.
_IPYTHON_LINE = re.compile(r"[ \t]*(?:[%!]|[\w.]+\?{1,2}[ \t]*$|[\w., \t]+=[ \t]*[%!])")
# Cell magics whose body is Python: only their first line is IPython's.
_PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})


def is_notebook(path: str) -> bool:
    return path.endswith(NOTEBOOK_SUFFIX)


@dataclass(frozen=True)
class Cell:
    """A code cell that takes part in the module: its position in the notebook (0-based), its
    source, and its code in the module text (IPython lines masked, ending in a newline)."""

    index: int
    source: str
    code: str
    # Lines of IPython syntax by placeholder number, with the indentation they had.
    ipython_lines: tuple[tuple[int, str], ...] = ()

    @property
    def number(self) -> int:
        """1-based, counting every cell (markdown and raw too), as a notebook's reader counts."""
        return self.index + 1


@dataclass(frozen=True)
class CellPosition:
    cell: int  # 1-based cell number
    line: int  # 1-based line in the cell


class Notebook:
    """A parsed notebook: the module text of its code cells, and the way back to its JSON."""

    def __init__(self, path: str, raw: str, cells: list[Cell], source_spans: list[tuple[int, int]], style: "_JsonStyle") -> None:
        self.path = path
        self.raw = raw
        self.cells = cells
        self._spans = source_spans  # per notebook cell: the [start, end) of its "source" value in raw
        self._style = style
        self.module_text = "".join(_MARKER.format(index=cell.index) + cell.code for cell in cells)
        self._starts = _cell_starts(self.module_text)

    # -- positions ----------------------------------------------------------------------------

    def position(self, module_line: int, module_text: str | None = None) -> CellPosition:
        """The cell and line of a 1-based line of `module_text` (the notebook's own module text
        by default; a rewritten one is read by its markers). A cell's marker line counts as one
        past the end of the cell before it (where an insertion after that cell's code goes).
        Only asked of a notebook with code cells."""
        starts = self._starts if module_text is None else _cell_starts(module_text)
        found = CellPosition(starts[0][1], 1)  # before the first marker: that cell's first line
        for marker_line, number in starts:
            if marker_line + 1 > module_line:
                break
            found = CellPosition(number, module_line - marker_line)
        return found

    # -- back to cells and JSON -------------------------------------------------------------------

    def cell_sources(self, module_text: str) -> dict[int, str]:
        """The source of each analysed cell (by 0-based index) in a rewritten module text, IPython
        lines restored. Raises SourceError when the text cannot be split back into the cells."""
        chunks: dict[int, list[str]] = {}
        current: list[str] | None = None
        for line in split_lines(module_text):
            marker = _MARKER_LINE.match(line)
            if marker is not None:
                index = int(marker.group(1))
                if index in chunks:
                    raise SourceError("a fix would duplicate a cell boundary; notebook left unchanged")
                current = chunks[index] = []
            elif current is None:
                raise SourceError("a fix would add code before the first code cell; notebook left unchanged")
            else:
                current.append(line)
        if sorted(chunks) != sorted(cell.index for cell in self.cells):
            raise SourceError("a fix would move code across cell boundaries; notebook left unchanged")
        originals = {number: text for cell in self.cells for number, text in cell.ipython_lines}
        seen: set[int] = set()
        sources: dict[int, str] = {}
        for cell in self.cells:
            lines = chunks[cell.index]
            for position, line in enumerate(lines):
                placeholder = _PLACEHOLDER_LINE.match(line)
                if placeholder is None:
                    continue
                number = int(placeholder.group(2))
                if number in seen or number not in originals:
                    raise SourceError(
                        f"a fix would copy an IPython line in cell {cell.number}; notebook left unchanged"
                    )
                seen.add(number)
                indent, ending = placeholder.group(1), placeholder.group(3) or ""
                lines[position] = indent + originals[number].lstrip(" \t") + ending
            # The module needed a newline after the cell's text; the cell may not have had one.
            sources[cell.index] = _ending_like(cell.source, "".join(lines))
        if seen != set(originals):
            raise SourceError("a fix would drop an IPython line; notebook left unchanged")
        return self._definitions_moved_to_users(sources)

    def _definitions_moved_to_users(self, sources: dict[int, str]) -> dict[int, str]:
        """Definitions a fix added to one cell (a wrapper or custom op, placed after the imports,
        so often in the imports cell) moved to the first later cell that uses them, when no
        earlier cell does: the fix then stays in the cell it belongs to."""
        order = [cell.index for cell in self.cells]
        moved: dict[int, list[str]] = {}
        for position, cell in enumerate(self.cells):
            old_lines = split_lines(_ending_in_newline(cell.source))
            new_lines = split_lines(_ending_in_newline(sources[cell.index]))
            matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
            kept: list[str] = []
            for tag, _, _, first, last in matcher.get_opcodes():
                block = new_lines[first:last]
                names = _defined_names(block) if tag == "insert" else None
                if names:
                    rest = "".join(kept) + "".join(new_lines[last:])
                    users = [
                        index for index in order[position + 1 :] if _mentions(sources[index], names)
                    ]
                    if users and not _mentions(rest, names) and not any(
                        _mentions(sources[index], names) for index in order[:position]
                    ):
                        moved.setdefault(users[0], []).append("".join(block).strip("\r\n") + "\n")
                        continue
                kept.extend(block)
            if len(kept) == len(new_lines):
                continue  # nothing moved out of this cell
            if [line for line in kept if line.strip()] == [line for line in old_lines if line.strip()]:
                sources[cell.index] = cell.source  # only definitions had been added here
            else:
                sources[cell.index] = _ending_like(cell.source, "".join(kept))
        for index, blocks in moved.items():
            sources[index] = _with_definitions(sources[index], blocks)
        return sources

    def rendered(self, module_text: str) -> str:
        """The notebook's JSON text with the cells of `module_text`: only the `source` values of
        changed cells differ from the original, each written in the style it had."""
        sources = self.cell_sources(module_text)
        out: list[str] = []
        position = 0
        for cell in self.cells:
            new = sources[cell.index]
            if new == cell.source:
                continue
            start, end = self._spans[cell.index]
            out.append(self.raw[position:start])
            out.append(self._style.source_value(self.raw[start:end], new, self.raw, start))
            position = end
        out.append(self.raw[position:])
        return "".join(out)


def _ending_in_newline(text: str) -> str:
    return text if not text or text.endswith(("\n", "\r")) else text + "\n"


def _ending_like(original: str, text: str) -> str:
    """`text` (ending in a newline) ending as the cell's original source did."""
    if original.endswith(("\n", "\r")) or not text.endswith("\n"):
        return text
    return text[:-2] if text.endswith("\r\n") else text[:-1]


def _defined_names(block: list[str]) -> set[str]:
    """The names a block of whole top-level statements defines, when it defines a function or
    class and does nothing else but register it; empty otherwise."""
    import ast

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            statements = ast.parse("".join(block)).body
    except (SyntaxError, ValueError):
        return set()
    names: set[str] = set()
    for statement in statements:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
        elif not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
            return set()
    return names


def _mentions(text: str, names: set[str]) -> bool:
    return any(re.search(rf"(?<![\w.]){re.escape(name)}\b", text) for name in names)


def _with_definitions(source: str, blocks: list[str]) -> str:
    """`source` with definition blocks after its leading imports, comments and IPython lines."""
    lines = split_lines(source)
    head = 0
    while head < len(lines) and (
        not lines[head].strip() or lines[head].lstrip().startswith(("#", "import ", "from ", "%", "!"))
    ):
        head += 1
    before, after = "".join(lines[:head]), "".join(lines[head:])
    definitions = "\n\n".join(blocks)
    if before and not before.endswith("\n\n"):
        before = before.rstrip("\r\n") + "\n\n\n"
    return before + definitions + ("\n\n" + after if after else "")


def _cell_starts(module_text: str) -> list[tuple[int, int]]:
    """(1-based line of the marker, 1-based cell number) for each marker in a module text."""
    return [
        (line_number, int(marker.group(1)) + 1)
        for line_number, line in enumerate(split_lines(module_text), start=1)
        if (marker := _MARKER_LINE.match(line)) is not None
    ]


def _masked(source: str, ipython_lines: tuple[tuple[int, str], ...]) -> str:
    """A cell's code for the module text: IPython lines replaced, ending in a newline."""
    text = source
    if ipython_lines:
        lines = split_lines(text)
        numbers = dict(ipython_lines)
        masked = []
        for line in lines:
            for number, original in numbers.items():
                if line.rstrip("\r\n") == original:
                    indent = line[: len(line) - len(line.lstrip(" \t"))]
                    ending = line[len(line.rstrip("\r\n")) :]
                    masked.append(indent + _MAGIC_PLACEHOLDER.format(index=number) + ending)
                    del numbers[number]
                    break
            else:
                masked.append(line)
        text = "".join(masked)
    return _ending_in_newline(text)


# -- reading ------------------------------------------------------------------------------------


def read_notebook(path: str, raw: str) -> Notebook | None:
    """Parse and validate a notebook's JSON text. None when its language is not Python.

    Raises SourceError with one line for JSON that is not a notebook, or not nbformat 4.
    """
    import nbformat  # only notebooks need it; imported here to keep the command's start fast

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            notebook = nbformat.reads(raw, as_version=nbformat.NO_CONVERT)
    except Exception as exc:  # nbformat raises NotJSONError, ValidationError, ValueError, ...
        detail = _first_line(exc)
        if "JSON" in type(exc).__name__ or isinstance(exc, json.JSONDecodeError):
            raise SourceError("not a notebook: the file is not valid JSON") from None
        if type(exc).__name__ == "ValidationError":
            raise SourceError(f"invalid nbformat 4 notebook: {detail}") from None
        raise SourceError(f"not a notebook: {detail}") from None
    major = notebook.get("nbformat")
    if major != 4:
        raise SourceError(f"not an nbformat 4 notebook (nbformat {major}); convert it with `jupyter nbconvert --to notebook`")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nbformat.validate(notebook)
    except nbformat.ValidationError as exc:
        raise SourceError(f"invalid nbformat 4 notebook: {_first_line(exc)}") from None
    language = _language(notebook.get("metadata", {}))
    if language is not None and language.lower() != "python":
        return None
    spans = _source_spans(raw)
    if len(spans) != len(notebook.cells):
        raise SourceError("not a notebook: cannot locate every cell's source in the JSON")
    cells: list[Cell] = []
    counter = 0
    for index, node in enumerate(notebook.cells):
        if node.get("cell_type") != "code":
            continue
        source = _joined(node.get("source", ""))
        ipython_lines, python = _ipython_lines(source, counter)
        if not python:
            continue
        counter += len(ipython_lines)
        cells.append(Cell(index, source, _masked(source, ipython_lines), ipython_lines))
    return Notebook(path, raw, cells, spans, _JsonStyle.of(raw))


def _first_line(error: Exception) -> str:
    """The first line of an error (a schema error's own message, without its long context)."""
    text = str(getattr(error, "message", error)).strip()
    return text.splitlines()[0][:200] if text else type(error).__name__


def _language(metadata: dict) -> str | None:
    info = metadata.get("language_info") or {}
    if isinstance(info, dict) and isinstance(info.get("name"), str):
        return info["name"]
    kernel = metadata.get("kernelspec") or {}
    if isinstance(kernel, dict) and isinstance(kernel.get("language"), str):
        return kernel["language"]
    return None


def _ipython_lines(source: str, first_number: int) -> tuple[tuple[tuple[int, str], ...], bool]:
    """The lines of a cell that are IPython syntax (numbered from `first_number`), and whether the
    cell is Python at all. A cell that parses as Python keeps every line as it is."""
    import ast

    lines = split_lines(source)
    stripped = lines[0].lstrip() if lines else ""
    if stripped.startswith("%%"):
        magic = stripped[2:].split(None, 1)[0] if stripped[2:].strip() else ""
        if magic not in _PYTHON_CELL_MAGICS:
            return (), False
        found = [lines[0].rstrip("\r\n")]
        candidates = lines[1:]
    else:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ast.parse(source)
            return (), True
        except (SyntaxError, ValueError):
            pass
        found = []
        candidates = lines
    found += [line.rstrip("\r\n") for line in candidates if _IPYTHON_LINE.match(line)]
    return tuple((first_number + offset, line) for offset, line in enumerate(found)), True


def _source_spans(raw: str) -> list[tuple[int, int]]:
    """The [start, end) offsets of each cell's `"source"` value in the notebook's JSON text."""
    decoder = json.JSONDecoder()
    spans: list[tuple[int, int]] = []

    def skip_ws(i: int) -> int:
        while i < len(raw) and raw[i] in " \t\r\n":
            i += 1
        return i

    def object_members(i: int):  # yields (key, value_start, value_end); i at '{'
        i = skip_ws(i + 1)
        if raw[i] == "}":
            return
        while True:
            key, i = json.decoder.scanstring(raw, skip_ws(i) + 1)
            i = skip_ws(i)
            i = skip_ws(i + 1)  # ':'
            _, end = decoder.raw_decode(raw, i)
            yield key, i, end
            i = skip_ws(end)
            if raw[i] == "}":
                return
            i += 1

    start = skip_ws(0)
    if start >= len(raw) or raw[start] != "{":
        return spans
    for key, value_start, _ in object_members(start):
        if key != "cells" or raw[value_start] != "[":
            continue
        i = skip_ws(value_start + 1)
        while i < len(raw) and raw[i] != "]":
            span = (0, 0)
            _, cell_end = decoder.raw_decode(raw, i)
            if raw[i] == "{":
                for cell_key, source_start, source_end in object_members(i):
                    if cell_key == "source":
                        span = (source_start, source_end)
            spans.append(span)
            i = skip_ws(cell_end)
            if raw[i] == ",":
                i = skip_ws(i + 1)
    return spans


@dataclass(frozen=True)
class _JsonStyle:
    """How the file writes strings: non-ASCII characters escaped or as they are."""

    ensure_ascii: bool

    @classmethod
    def of(cls, raw: str) -> "_JsonStyle":
        escaped = re.search(r"\\u00[89a-fA-F][0-9a-fA-F]|\\u0[1-9a-fA-F][0-9a-fA-F]{2}|\\u[1-9a-fA-F][0-9a-fA-F]{3}", raw)
        return cls(ensure_ascii=escaped is not None and not any(ord(char) > 127 for char in raw))

    def string(self, text: str) -> str:
        return json.dumps(text, ensure_ascii=self.ensure_ascii)

    def source_value(self, old_value: str, new_source: str, raw: str, start: int) -> str:
        """`new_source` written as the old value was: a JSON string, or a list of lines with the
        old list's indentation."""
        if not old_value.startswith("["):
            return self.string(new_source)
        lines = new_source.splitlines(keepends=True)
        if not lines:
            return "[]"
        item = re.match(r"\[(\s*)", old_value)
        closing = re.search(r"(\s*)\]\Z", old_value)
        if item is not None and item.group(1) and closing is not None and old_value.strip() != "[]":
            item_indent, closing_indent = item.group(1), closing.group(1)
        else:
            # An empty list: indent one step past the line the "source" key is on.
            line_start = raw.rfind("\n", 0, start) + 1
            key_indent = re.match(r"[ \t]*", raw[line_start:]).group(0)
            step = _indent_step(raw)
            item_indent, closing_indent = "\n" + key_indent + step, "\n" + key_indent
        return "[" + item_indent + ("," + item_indent).join(self.string(line) for line in lines) + closing_indent + "]"


def _indent_step(raw: str) -> str:
    match = re.search(r"\{\n([ \t]+)\"", raw)
    return match.group(1) if match else " "


def changed_cell_sources(old_raw: str, new_raw: str) -> list[tuple[int, str, str]]:
    """(1-based cell number, old source, new source) for each cell whose source differs between
    two texts of one notebook."""
    old_cells = _json_cells(old_raw)
    new_cells = _json_cells(new_raw)
    return [
        (index + 1, before, after)
        for index, (before, after) in enumerate(zip(old_cells, new_cells))
        if before != after
    ]


def _json_cells(raw: str) -> list[str]:
    return [_joined(cell.get("source", "")) for cell in json.loads(raw).get("cells", [])]


def _joined(source: str | list[str]) -> str:
    """A cell's source as one string (nbformat writes it as a list of lines or as a string)."""
    return "".join(source) if isinstance(source, list) else source
