"""`graphweld lsp`: a language server over stdio, built on pygls and lsprotocol.

It publishes the sites graphweld finds statically as diagnostics (on open and save, and on change
after a short pause in typing), offers each fix as a `quickfix` code action whose edit is just that
change, and all safe fixes of a file as `source.fixAll.graphweld`. It is a thin layer over
`engine.propose` and `engine.fix_text`: it never imports, runs or compiles the user's code.
Settings come from the `[tool.graphweld]` table nearest to each document.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from graphweld import __version__
from graphweld.codemods import RULES_BY_ID
from graphweld.edits import TextEdit, minimal_edits, split_lines
from graphweld.engine import Change, Location, Proposals, fix_text, offer_order, propose
from graphweld.rule import Safety
from graphweld.settings import Settings, SettingsError, find_config_file, load_settings
from graphweld.source import SourceError

SOURCE = "graphweld"
FIX_ALL = "source.fixAll.graphweld"
# Seconds without a change before a document is analysed again.
DEBOUNCE_SECONDS = 0.25


@dataclass
class Analysis:
    version: int | None
    text: str
    proposals: Proposals | None  # None when the text does not parse


class GraphweldServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("graphweld", __version__)
        self.analyses: dict[str, Analysis] = {}
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.reported_config_errors: set[str] = set()

    # -- analysis -----------------------------------------------------------------------------------

    def settings_for(self, path: str) -> Settings:
        config = find_config_file(Path(path)) if path else None
        try:
            return load_settings(config)
        except SettingsError as exc:
            if str(exc) not in self.reported_config_errors:
                self.reported_config_errors.add(str(exc))
                self.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=f"graphweld: {exc}"))
            return Settings()

    def analyse(self, uri: str) -> Analysis:
        document = self.workspace.get_text_document(uri)
        cached = self.analyses.get(uri)
        if cached is not None and cached.version == document.version and cached.text == document.source:
            return cached
        path = document.path or to_fs_path(uri) or uri
        try:
            proposals: Proposals | None = propose(document.source, path, self.settings_for(path))
        except SourceError:
            proposals = None  # a syntax error, usually mid-edit: nothing to say until it parses
        analysis = Analysis(document.version, document.source, proposals)
        self.analyses[uri] = analysis
        return analysis

    def publish(self, uri: str) -> None:
        self.timers.pop(uri, None)
        analysis = self.analyse(uri)
        diagnostics = [] if analysis.proposals is None else diagnostics_for(analysis.text, analysis.proposals)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, version=analysis.version, diagnostics=diagnostics)
        )

    def publish_later(self, uri: str) -> None:
        timer = self.timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        self.timers[uri] = asyncio.get_running_loop().call_later(DEBOUNCE_SECONDS, self.publish, uri)

    def forget(self, uri: str) -> None:
        timer = self.timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        self.analyses.pop(uri, None)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    # -- code actions -------------------------------------------------------------------------------

    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        analysis = self.analyse(uri)
        if analysis.proposals is None:
            return []
        only = params.context.only
        actions: list[types.CodeAction] = []
        if _wanted(only, types.CodeActionKind.QuickFix):
            touched = [change for change in analysis.proposals.changes if _touches(change.location, params.range)]
            for change in sorted(touched, key=offer_order):
                actions.append(quick_fix(uri, analysis, change))
        if _wanted(only, FIX_ALL):
            fix_all = self.fix_all(uri, analysis)
            if fix_all is not None:
                actions.append(fix_all)
        return actions

    def fix_all(self, uri: str, analysis: Analysis) -> types.CodeAction | None:
        document = self.workspace.get_text_document(uri)
        path = document.path or uri
        try:
            fixed = fix_text(analysis.text, path, self.settings_for(path)).text
        except SourceError:
            return None
        if fixed == analysis.text:
            return None
        edits = [_text_edit(analysis.text, edit) for edit in minimal_edits(analysis.text, fixed)]
        return types.CodeAction(
            title="graphweld: fix all safe graph breaks in this file",
            kind=FIX_ALL,
            edit=types.WorkspaceEdit(changes={uri: edits}),
        )


def diagnostics_for(text: str, proposals: Proposals) -> list[types.Diagnostic]:
    lines = split_lines(text)
    diagnostics: list[types.Diagnostic] = []
    for item in [*proposals.changes, *proposals.reports]:
        rule = RULES_BY_ID.get(item.rule)
        if isinstance(item, Change):
            label = "fix available" if item.safety is Safety.SAFE else "unsafe fix available"
            severity = types.DiagnosticSeverity.Warning
        else:
            label = "not fixed"
            severity = types.DiagnosticSeverity.Information
        diagnostics.append(
            types.Diagnostic(
                range=_range(lines, item.location),
                message=f"{item.message} ({label})",
                severity=severity,
                code=item.rule,
                code_description=types.CodeDescription(href=rule.reference) if rule is not None else None,
                source=SOURCE,
            )
        )
    return diagnostics


def quick_fix(uri: str, analysis: Analysis, change: Change) -> types.CodeAction:
    unsafe = change.safety is Safety.UNSAFE
    summary = RULES_BY_ID[change.rule].summary if change.rule in RULES_BY_ID else change.rule
    title = f"graphweld {change.rule}: {summary}" + (" (unsafe: can change behaviour)" if unsafe else "")
    diagnostic = diagnostics_for(analysis.text, Proposals(changes=[change]))[0]
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        is_preferred=not unsafe,
        edit=types.WorkspaceEdit(changes={uri: [_text_edit(analysis.text, edit) for edit in change.edits]}),
    )


def _utf16(line: str, column: int) -> int:
    """An LSP character offset (UTF-16 code units) for a 0-based code-point column."""
    return len(line[:column].encode("utf-16-le")) // 2


def _range(lines: list[str], location: Location) -> types.Range:
    def position(line: int, column: int) -> types.Position:
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        return types.Position(line=line - 1, character=_utf16(text, column - 1))

    return types.Range(start=position(location.line, location.column), end=position(location.end_line, location.end_column))


def _text_edit(text: str, edit: TextEdit) -> types.TextEdit:
    """A line edit as an LSP edit: whole lines, or up to the end of a last line without newline."""
    lines = split_lines(text)

    def start_of(line: int) -> types.Position:
        if line < len(lines) or not lines:
            return types.Position(line=line, character=0)
        last = lines[-1]
        if last.endswith(("\n", "\r")):
            return types.Position(line=len(lines), character=0)
        return types.Position(line=len(lines) - 1, character=_utf16(last, len(last)))

    return types.TextEdit(range=types.Range(start=start_of(edit.start_line), end=start_of(edit.end_line)), new_text=edit.new_text)


def _wanted(only: list[str] | None, kind: str) -> bool:
    """Whether a client's `only` filter admits a code-action kind (`source` admits `source.x`)."""
    return only is None or any(kind == wanted or kind.startswith(f"{wanted}.") for wanted in only)


def _touches(location: Location, selection: types.Range) -> bool:
    """Whether a site's lines meet the requested range (0-based lines in LSP)."""
    return location.line - 1 <= selection.end.line and selection.start.line <= location.end_line - 1


def create_server() -> GraphweldServer:
    server = GraphweldServer()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: GraphweldServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: GraphweldServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.publish_later(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: GraphweldServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: GraphweldServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=False),
    )
    def code_action(ls: GraphweldServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return ls.code_actions(params)

    return server


def main() -> None:
    create_server().start_io()


__all__ = ["GraphweldServer", "create_server", "main"]
