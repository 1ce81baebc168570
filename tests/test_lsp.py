"""`graphweld lsp` end to end: a real LSP client (pytest-lsp) talking to the server over stdio."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from graphweld.edits import split_lines
from graphweld.engine import fix_text
from graphweld.settings import Settings

# Three sites: hoist-with (line 16), unroll-loop (line 24), hoist-with (line 32).
THREE_SITES = Path(__file__).parent / "review" / "three_changes.py"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "graphweld", "lsp"]))
async def client(lsp_client: LanguageClient, tmp_path_factory):
    root = tmp_path_factory.mktemp("workspace")
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=client_capabilities("visual-studio-code"), root_uri=root.as_uri())
    )
    lsp_client.root = root  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


def open_document(client: LanguageClient, name: str, text: str) -> str:
    path = client.root / name  # type: ignore[attr-defined]
    path.write_text(text)
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
    )
    return uri


async def diagnostics(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return list(client.diagnostics.get(uri, []))


def apply(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP edits (whole-line ranges, as graphweld sends them), last first."""
    lines = split_lines(text)
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start, end = edit.range.start, edit.range.end
        assert start.character == 0 and end.character == 0
        lines[start.line : end.line] = split_lines(edit.new_text)
    return "".join(lines)


async def test_diagnostics_and_quick_fixes_match_graphweld_fix(client: LanguageClient):
    """A document with hoist-with and unroll-loop sites: every diagnostic, and its quick fix."""
    text = THREE_SITES.read_text()
    uri = open_document(client, "model.py", text)
    found = await diagnostics(client, uri)
    assert sorted((d.range.start.line + 1, d.code) for d in found) == [(16, "hoist-with"), (24, "unroll-loop"), (32, "hoist-with")]
    for diagnostic in found:
        assert diagnostic.source == "graphweld" and "fix available" in diagnostic.message
        assert diagnostic.code_description is not None and diagnostic.code_description.href.startswith("https://docs.pytorch.org/")

    fixed = text
    for diagnostic in sorted(found, key=lambda d: d.range.start.line, reverse=True):
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=diagnostic.range,
                context=types.CodeActionContext(diagnostics=[diagnostic], only=[types.CodeActionKind.QuickFix]),
            )
        )
        (action,) = [a for a in actions if a.kind == types.CodeActionKind.QuickFix]
        assert diagnostic.code in action.title and action.is_preferred
        # Each action is just its change, against the text the server has: apply them bottom-up.
        fixed = apply(fixed, action.edit.changes[uri])
    assert fixed == fix_text(text, "model.py", Settings()).text


async def test_fix_all_source_action_applies_every_safe_fix(client: LanguageClient):
    text = THREE_SITES.read_text()
    uri = open_document(client, "fix_all.py", text)
    await diagnostics(client, uri)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
            context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.SourceFixAll]),
        )
    )
    (action,) = actions
    assert action.kind == "source.fixAll.graphweld"
    assert apply(text, action.edit.changes[uri]) == fix_text(text, "fix_all.py", Settings()).text


async def test_syntax_error_gives_no_diagnostics_and_no_crash(client: LanguageClient):
    uri = open_document(client, "broken.py", "import torch\n\n@torch.compile\ndef f(x:\n    return x\n")
    assert await diagnostics(client, uri) == []
    # The server is still alive and answers.
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert not actions


async def test_a_change_clears_a_diagnostic_that_no_longer_applies(client: LanguageClient):
    text = THREE_SITES.read_text()
    uri = open_document(client, "edited.py", text)
    assert len(await diagnostics(client, uri)) == 3
    edited = text.replace("        torch._dynamo.graph_break()\n    return x\n", "    return x\n")
    assert edited != text
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=edited)],
        )
    )
    remaining = await diagnostics(client, uri)
    assert [d.code for d in remaining] == ["hoist-with", "hoist-with"]


async def test_unsafe_fixes_are_offered_but_labelled(client: LanguageClient):
    # A print in a helper traced inline: only the unsafe guard applies (a deferral would be dropped).
    text = "import torch\n\n\ndef show(y):\n    print(y.shape)\n    return y\n\n\n@torch.compile\ndef f(x):\n    return show(x * 2)\n"
    uri = open_document(client, "unsafe.py", text)
    (diagnostic,) = await diagnostics(client, uri)
    assert diagnostic.code == "isolate-io" and "unsafe fix available" in diagnostic.message
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    quick = [a for a in actions if a.kind == types.CodeActionKind.QuickFix]
    assert len(quick) == 1 and "unsafe" in quick[0].title and not quick[0].is_preferred
    # Fix-all applies safe fixes only: nothing here.
    assert not [a for a in actions if a.kind == "source.fixAll.graphweld"]


async def test_settings_come_from_the_workspace_pyproject(client: LanguageClient):
    root = client.root  # type: ignore[attr-defined]
    (root / "pyproject.toml").write_text('[tool.graphweld]\nignore = ["unroll-loop"]\n')
    uri = open_document(client, "configured.py", THREE_SITES.read_text())
    assert [d.code for d in await diagnostics(client, uri)] == ["hoist-with", "hoist-with"]
