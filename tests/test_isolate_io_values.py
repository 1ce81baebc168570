"""Deferred I/O on values, judged by what the user's program shows: each rewritten module is
compiled with `fullgraph=True` and must print the same text, log the same records, warn the same
warnings and save the same bytes as the original module run eagerly."""

from __future__ import annotations

import contextlib
import io
import logging
import textwrap
import warnings
from pathlib import Path

import pytest
import torch
from compile_stats import load_module

from graphweld.engine import fix_text
from graphweld.settings import Settings

pytestmark = [pytest.mark.slow, pytest.mark.dynamo]

SITES = {
    "print_fstring_item": """
        import torch
        from torch import nn


        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.linear = nn.Linear(4, 4)

            def forward(self, x, path):
                h = self.linear(x)
                print(f"hidden norm: {h.norm().item():.3f}")
                return h.relu()
    """,
    "print_in_tuple_loop": """
        import torch
        from torch import nn


        class Model(nn.Module):
            def forward(self, x, path):
                for scale in (0.5, 2.0):
                    print("scaled by", scale, f"shape {x.shape}")
                    x = x * scale
                return x
    """,
    "logger_percent_arguments": """
        import logging

        import torch
        from torch import nn

        logger = logging.getLogger(__name__)


        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.temperature = 0.5

            def forward(self, logits, path):
                logits = logits / self.temperature
                logger.info("temperature %s, logit norm %.3f", self.temperature, logits.norm())
                logger.warning(f"max logit {logits.max().item():.2f}")
                return logits.softmax(-1)
    """,
    "read_only_feeding_print": """
        import torch
        from torch import nn


        class Model(nn.Module):
            def forward(self, x, path):
                loss = x.pow(2).mean()
                loss_value = loss.item()
                print(f"loss {loss_value:.4f}")
                return loss * 2
    """,
    "torch_save_written_later": """
        import torch
        from torch import nn


        class Model(nn.Module):
            def forward(self, x, path):
                h = x * 2
                torch.save(h, path)
                h.mul_(2)
                return h + 1
    """,
    "warnings_warn_category": """
        import warnings

        import torch
        from torch import nn


        class Model(nn.Module):
            def forward(self, x, path, device="cpu"):
                if device is not None:
                    warnings.warn(
                        "The `device` argument is deprecated and will be removed in v5 of Transformers.", FutureWarning
                    )
                print("done", end="")
                return x * 2
    """,
}


def _shown(model, logger_name: str, saved: Path):  # type: ignore[no-untyped-def]
    """Output, printed text, log records, warnings and saved bytes of one call."""
    records: list[tuple[str, str, str]] = []

    class Recorder(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append((record.name, record.levelname, record.getMessage()))

    logger = logging.getLogger(logger_name)
    handler = Recorder()
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    printed = io.StringIO()
    try:
        with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(printed), torch.no_grad():
            warnings.simplefilter("always")
            output = model(torch.arange(8.0).reshape(2, 4) / 7, str(saved))
    finally:
        logger.removeHandler(handler)
    shown_warnings = [(w.category.__name__, str(w.message)) for w in caught if "torch" not in w.filename]
    return output, printed.getvalue(), records, shown_warnings, saved.read_bytes() if saved.exists() else None


@pytest.mark.parametrize("site", sorted(SITES))
def test_deferred_io_shows_what_eager_shows_and_compiles_whole(site: str, tmp_path: Path):
    before = textwrap.dedent(SITES[site]).lstrip() + "\n\nmodel = torch.compile(Model())\n"
    outcome = fix_text(before, f"{site}.py", Settings(select=frozenset({"isolate-io"})))
    assert outcome.applied and all(change.safety.value == "safe" for change in outcome.applied)
    assert not outcome.reports
    original = load_module(before, f"{site}_before")
    rewritten = load_module(outcome.text, f"{site}_after")

    torch.manual_seed(0)
    eager_model = original.Model()
    torch.manual_seed(0)
    compiled_model = torch.compile(rewritten.Model(), fullgraph=True, backend="eager")
    (tmp_path / "eager").mkdir()
    (tmp_path / "compiled").mkdir()
    # torch.save names the archive after the file: the same file name in two folders.
    eager = _shown(eager_model, f"{site}_before", tmp_path / "eager" / "saved.pt")
    torch._dynamo.reset()
    compiled = _shown(compiled_model, f"{site}_after", tmp_path / "compiled" / "saved.pt")

    torch.testing.assert_close(compiled[0], eager[0])
    assert compiled[1] == eager[1]  # printed text
    assert [r[1:] for r in compiled[2]] == [r[1:] for r in eager[2]]  # log records (level, message)
    assert compiled[3] == eager[3]  # warnings
    assert compiled[4] == eager[4]  # saved bytes


def test_the_original_of_each_site_breaks_the_graph():
    """The sites above are real breaks: the original fails to compile with fullgraph=True."""
    for site, text in SITES.items():
        module_text = textwrap.dedent(text).lstrip()
        namespace: dict[str, object] = {"__name__": f"{site}_original"}
        exec(compile(module_text, f"{site}_original.py", "exec"), namespace)
        torch._dynamo.reset()
        model = torch.compile(namespace["Model"](), fullgraph=True, backend="eager")  # type: ignore[operator]
        with pytest.raises(Exception), contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model(torch.ones(2, 4), "/dev/null")


def test_a_snapshot_is_what_keeps_the_saved_tensor(tmp_path: Path):
    """Without the snapshot, the deferred save would see the doubled tensor (why it is there)."""
    def _deferred_save(*args):
        torch.save(*args)

    torch._dynamo.config.reorderable_logging_functions.add(_deferred_save)
    try:
        def forward(x, path):
            h = x * 2
            _deferred_save(h, path)
            h.mul_(2)
            return h

        torch._dynamo.reset()
        torch.compile(forward, fullgraph=True, backend="eager")(torch.ones(2), str(tmp_path / "h.pt"))
        assert torch.equal(torch.load(tmp_path / "h.pt"), torch.full((2,), 4.0))
    finally:
        torch._dynamo.config.reorderable_logging_functions.discard(_deferred_save)


def test_a_deferred_call_in_an_inlined_function_is_dropped():
    """Why the rule defers only where compilation starts: torch runs a reorderable call made in a
    function traced inline into its caller's graph not at all (torch 2.13)."""
    shown: list[str] = []

    def _deferred_note(*args):
        shown.append(" ".join(map(str, args)))

    torch._dynamo.config.reorderable_logging_functions.add(_deferred_note)
    try:
        def helper(h):
            _deferred_note("inner", h.sum())
            return h * 3

        def forward(x):
            _deferred_note("outer")
            return helper(x + 1)

        torch._dynamo.reset()
        torch.compile(forward, fullgraph=True, backend="eager")(torch.ones(2))
        assert shown == ["outer"]
    finally:
        torch._dynamo.config.reorderable_logging_functions.discard(_deferred_note)
