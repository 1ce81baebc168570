"""Reach on the models people compile today: graph breaks before and after `graphweld fix --entry
--unsafe-fixes`, per model, by Dynamo's GB id and by source pattern.

Built the way the public graph-break survey (penguinwu/oss-model-graph-break-corpus) builds its
models (see `reach_models.py`): every model class of the installed transformers (`...Model`,
`...ForCausalLM`, `...ForConditionalGeneration` with an exported config class), each from its
default config with the layer count cut to 2 (widths cut only above a parameter budget, and
reported), batch 2, an attention mask with padding, labels for a language-modelling head (and,
measured as its own program, the same call without the mask and labels, as `model(input_ids)` is
called: the class counts in the form that breaks more), images in the form a vision-language
model's forward takes, CPU, Dynamo with the eager backend, eval mode (`--mode train`: each call a training step, as
`graphweld explain --train` runs it; a program with no parameter to train, a loss, is given inputs
that require grad). Set-up, in its own virtual environment (a current
transformers, never the test suite's pin):

    python3 -m venv .venv-reach && .venv-reach/bin/pip install torch==2.13.0 transformers==5.24.0 \\
        && .venv-reach/bin/pip install -e .
    .venv-reach/bin/python benchmarks/reach.py                     # one class per config class
    .venv-reach/bin/python benchmarks/reach.py --all-classes --resume
    .venv-reach/bin/python benchmarks/reach.py --models LlamaForCausalLM,MixtralForCausalLM
    .venv-reach/bin/python benchmarks/reach.py --report [--survey nightly-report.json]

Each entry returns the model for graphweld to compile, and a Dynamo setting that fix --entry
measures (`allow_rnn` for an LSTM) is then only offered: a setting is global to the process, so
graphweld writes it only before a `torch.compile` call of the program's own. `--program-compiles`
measures each model as a user's program runs it, `return torch.compile(model)`: the setting is then
written there, run as written, and counted in the breaks after (the row says `compiled_by`).

Beside the transformers classes, `--programs` measures programs built from the other pure-Python
libraries people compile (`reach_programs.py`: kornia, torchmetrics, torch-geometric, diffusers,
x-transformers, torchdiffeq, gpytorch, monai, pyro, einops, botorch, torchsde, e3nn, normflows,
einx, zuko, nflows, vector-quantize-pytorch, rotary-embedding-torch, geomloss, torchode, entmax,
roma, pypose, geoopt, ptwt, julius, auraloss, ncps, torchquad, pytorch-metric-learning, mambapy,
torchkbnufft, pytorch-tabnet, asteroid-filterbanks, nnAudio, pytorch-msssim; installed in the
same environment with `pip install -c <(echo torch==2.13.0) kornia torchmetrics torch_geometric
diffusers x-transformers torchdiffeq gpytorch monai pyro-ppl einops botorch torchsde e3nn normflows
einx zuko nflows matplotlib vector-quantize-pytorch rotary-embedding-torch geomloss torchode entmax
roma pypose geoopt ptwt julius auraloss ncps torchquad pytorch-metric-learning mambapy torchkbnufft
pytorch-tabnet pandas asteroid-filterbanks nnAudio pytorch-msssim`); their fix rewrites a copy of
the library's packages, and the report gives their numbers apart. The first held-out
half drawn on 2026-11-27 (SPENT_HELD_OUT_LIBRARIES, tuning since rules were read off it): `pip
install -c <(echo torch==2.13.0) pykeen stable-baselines3 deepxde sbi` beside them; timm,
vit-pytorch, segmentation-models-pytorch and speechbrain import torchvision or torchaudio, whose
PyPI wheels work only with torch's default build, so they run with `--python` of an environment of
torch 2.14's default build (`.venv-214` plus `pip install timm vit-pytorch
segmentation-models-pytorch speechbrain torchaudio transformers==5.24.0`). The held-out half drawn
second (SECOND_DRAW, spent on 2026-11-28) runs there too: `pip install open_clip_torch denoising_diffusion_pytorch
torchcde torchdyn pykan perceiver-pytorch torch-harmonics` in `.venv-214`; the third
(THIRD_DRAW, spent on 2026-11-28): `pip install st-moe-pytorch reformer-pytorch performer-pytorch egnn-pytorch piq
pytorch-wavelets PyWavelets 'setuptools<81' kymatio 'scipy<1.15' rtdl-revisiting-models torch-dct
tab-transformer-pytorch` in `.venv-214` (pytorch_wavelets imports `pkg_resources`; kymatio 0.3
imports scipy's `sph_harm`); the fourth: `pip install pytorch-crf
neuraloperator conformer local-attention nystrom-attention siren-pytorch info-nce-pytorch
linear-attention-transformer` in `.venv-214` (FOURTH_DRAW, spent on 2026-11-28); and the fifth
(HELD_OUT_LIBRARIES): `pip install encodec torchlibrosa pytorch-toolbelt mlp-mixer-pytorch
hamburger-pytorch axial-attention gated-state-spaces-pytorch memory-efficient-attention-pytorch`;
the sixth (SIXTH_DRAW, spent on 2026-11-29): `pip install snntorch spikingjelly norse e3nn normflows
segment-anything openunmix torchcrepe`; the seventh (SEVENTH_DRAW, held out beside the fifth): `pip
install -c <(echo torch==2.14.1) fair-esm schnetpack xlstm efficientnet-pytorch lightly ctgan pytorch-tcn
soft-moe-pytorch` (unpinned, lightly's torchvision requirement pulls torch 2.4.1 and its CUDA 12
libraries, which then shadow 2.14's); the eighth (EIGHTH_DRAW, spent on 2026-11-29): `pip install -c
<(echo torch==2.14.1) g-mlp-pytorch dropblock mixture-of-experts nfnets-pytorch pytorch-nlp
compressive-transformer-pytorch memory-transformer-xl`; the ninth (NINTH_DRAW, 2026-12-03, in
`.venv-reach`): `pip install -c <(echo torch==2.13.0; echo transformers==5.24.0) torchkge tianshou
torchani recbole torchphysics pytorch-forecasting` (spent on 2026-12-03); the tenth (TENTH_DRAW,
2026-12-03, in `.venv-reach`): `pip install -c <(echo torch==2.13.0; echo transformers==5.24.0) skrl
captum torch-rechub torch-struct torchcam opacus` (spent on 2026-12-03).

The census is split in two halves, fixed by a hash of each class's model family or program's library (`half()`):
rules are chosen and tuned on the tuning half only, and the held-out half is only reported; its
number is the one that counts. `--half tuning` (or `held-out`) measures one half; `--report`
prints every summary for each half beside the whole.

For each class: `reach_models.py probe` finds the config changes and input recipe and checks one
eager call; an entry (graphweld's convention) is written for it; `graphweld explain` counts the
breaks against the installed package; for a model with breaks, the package is copied, `graphweld
fix --entry --unsafe-fixes` rewrites the copy (every kept rewrite verified: outputs of every call
equal to eager), and `explain` counts again with the copy first on the path. Each model's result
is appended to the results file (JSON lines) as it finishes; `--resume` skips the classes already
there, so a long run can be continued. `--no-fix` only counts the breaks (a census); `--refix` then
fixes the breaking classes of the results file, cheapest first (`--refix --resume`: those not yet
fixed). `--time` times each fixed row's compiled steady state after against before, inductor on
CPU (`steady_state.py`; with `--program-compiles`, the program as the fix left it, its setting
included). `--report` prints the tables from the results file;
`--survey` compares which models break with a survey results file (the survey's nightly report
JSON, kept outside this repository).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import steady_state
from package_runs import copy_package, explain

HERE = Path(__file__).parent
PYTHON = Path(__file__).parents[1] / ".venv-reach" / "bin" / "python"

ENTRY = '''"""{name}: its default config with 2 layers (written by benchmarks/reach.py)."""

import sys

import torch  # noqa: F401 (the entry that compiles its model itself calls torch.compile)

sys.path.insert(0, {benchmarks!r})

from reach_models import bare_recipe, build_inputs, build_model  # noqa: E402

OVERRIDES = {overrides!r}
RECIPE = {recipe!r}
# "padded": with the attention mask (and labels); "bare": the same call without them.
FORM = {form!r}


def my_model_function():
    return {compile_open}build_model({name!r}, OVERRIDES){compile_close}


def GetInput():
    return build_inputs(RECIPE if FORM == "padded" else bare_recipe(RECIPE))
'''

PROGRAM_ENTRY = '''"""{name}: a program built from {library} (written by benchmarks/reach.py)."""

import sys

import torch  # noqa: F401 (the entry that compiles its model itself calls torch.compile)

sys.path.insert(0, {benchmarks!r})

from reach_programs import build_program, build_program_inputs, inputs_requiring_grad  # noqa: E402

# A training step of a program with no parameter to train: the gradient is for its inputs.
INPUTS_REQUIRE_GRAD = {inputs_require_grad!r}


def my_model_function():
    return {compile_open}build_program({name!r}){compile_close}


def GetInput():
    inputs = build_program_inputs({name!r})
    return inputs_requiring_grad(inputs) if INPUTS_REQUIRE_GRAD else inputs
'''


def _run(command: list[str], timeout: float, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})})


def _last_json(text: str) -> dict:
    for line in reversed(text.strip().splitlines()):
        if line.startswith("{") or line.startswith("["):
            return json.loads(line)
    raise ValueError("no JSON")


def _why(done: subprocess.CompletedProcess) -> str:
    lines = (done.stderr or done.stdout).strip().splitlines()
    error = next((line for line in reversed(lines) if line.startswith("error:")), lines[-1] if lines else "")
    return error[:300]


# -- source patterns --------------------------------------------------------------------------

_DEF = re.compile(r"^(\s*)(?:async\s+)?def\s+(\w+)")


def _context(file: str, line: int) -> tuple[str, str]:
    """The site's source line and the name of the function holding it."""
    try:
        lines = Path(file).read_text(encoding="utf-8").splitlines()
    except OSError:
        return "", ""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    indent = len(text) - len(text.lstrip())
    for candidate in reversed(lines[: line - 1]):
        found = _DEF.match(candidate)
        if found and len(found.group(1)) < indent:
            return text.strip(), found.group(2)
    return text.strip(), ""


def pattern(site: dict) -> str:
    """What kind of code a break site is, by its source line, function, GB id and reason."""
    text, function = _context(site["file"], site["line"])
    gb, reason = site["gb"], site["reason"]
    lowered = f"{text} {function}".lower()
    path = site["file"].replace(os.sep, "/")
    if gb == "GB4347" and site.get("type") == "skipped frame":
        # Python 3.11 runs a comprehension as a frame of its own; when Dynamo already broke in
        # the function holding it, that frame starts on an iterator it cannot take. Python 3.12
        # inlines comprehensions (PEP 709), so the survey never sees these: a consequence of the
        # other breaks in the model, gone with them.
        return "comprehension frame after another break (Python 3.11)"
    if gb in ("GB0098", "GB0099"):
        # Each call of a function run eagerly (eager-helper's rewrite, or the library's own) is a break.
        return "call of a function run eagerly (torch.compiler.disable)"
    if gb == "GB0251":
        return "nonstrict_trace of a function whose output Dynamo refuses"
    if path.endswith("utils/output_capturing.py") or (path.endswith("utils/generic.py") and "wrapper" in function):
        return "output-capturing wrapper (library plumbing)"
    if "expert" in lowered and (re.search(r"nonzero|where|index_add|one_hot|bincount|tolist|item\(", lowered) or gb in ("GB0036", "GB0033")):
        return "MoE expert dispatch"
    if ".tolist()" in text:
        return ".tolist()"
    if ".item()" in text or gb == "GB0124":
        return ".item()"
    if re.search(r"(torch\.all\(|\.all\(\)).*mask|mask.*(==\s*1|\.all\(\))", text):
        return "mask check that picks a fast path (torch.all(mask == 1))"
    if "layerdrop" in lowered or ("self.training" in text and "rand" in text):
        return "LayerDrop"
    if "deepcopy" in lowered:
        return "copy.deepcopy in forward"
    if gb == "GB0291" or re.search(r"logger\.|logging\.|warnings\.warn|warning_once", text):
        return "logging / warnings"
    if "exception" in reason.lower() or gb in ("GB0088", "GB0089"):
        return "exception used for control flow"
    if gb == "GB0170":
        return "data-dependent branch (other)"
    if gb in ("GB0036", "GB0033") or "nonzero" in reason:
        return "data-dependent shape (nonzero, boolean mask)"
    return f"other: {gb} {reason[:70]}"


def _sites(report: dict) -> list[dict]:
    return [
        {"file": site["file"], "line": site["line"], "gb": site["gb"], "reason": site["reason"], "type": site["type"],
         "rule": site["rule"], "action": site["action"], "pattern": pattern(site), "breaks": site.get("breaks", 1)}
        for site in report["sites"]
    ]


def _picture(report: dict) -> dict:
    keys = ("graphs", "graph_breaks", "break_sites", "skipped_frames", "recompiles", "fullgraph", "compile_error")
    return {key: report.get(key) for key in keys}


# -- one model ---------------------------------------------------------------------------------


def entry_text(name: str, probed: dict, form: str, program_compiles: bool = False, train: bool = False) -> str:
    """The entry written for a class or program. `program_compiles`: its `my_model_function()`
    returns `torch.compile(model)`, as a user's program compiles its model itself, so a Dynamo
    setting fix --entry measures is written before that call (and measured as written) instead
    of being only offered; otherwise graphweld compiles what it returns. `train`: a program with
    no parameter to train (a loss) is given inputs that require grad."""
    compile_open, compile_close = ("torch.compile(", ")") if program_compiles else ("", "")
    if is_program(name):
        return PROGRAM_ENTRY.format(name=name, library=probed["library"], benchmarks=str(HERE),
                                    compile_open=compile_open, compile_close=compile_close,
                                    inputs_require_grad=_inputs_require_grad(name, probed, train))  # fmt: skip
    return ENTRY.format(name=name, benchmarks=str(HERE), overrides=probed["overrides"], recipe=probed["recipe"], form=form,
                        compile_open=compile_open, compile_close=compile_close)  # fmt: skip


def _inputs_require_grad(name: str, probed: dict, train: bool) -> bool:
    """Whether a training step gives the entry inputs that require grad: a program with no
    parameter to train (a loss, a frozen front end), whose gradient is for its inputs."""
    return train and is_program(name) and probed.get("trainable") == 0


def measure(
    python: str, package: Path, name: str, timeout: float, fix_timeout: float | None, train: bool = False,
    program_compiles: bool = False, timed: bool = False,
) -> dict:  # fmt: skip
    """One model's row: why it was not measured, or its breaks before and (unless `fix_timeout`
    is None) after `fix --entry --unsafe-fixes` (`train`: each call a training step;
    `program_compiles`: the entry compiles its model itself, see `entry_text`; `timed`: the
    compiled steady state after against before, `steady_state.py`)."""
    result: dict = {"class": name, "mode": "train" if train else "eval", "compiled_by": "program" if program_compiles else "graphweld"}
    start = time.perf_counter()
    program = is_program(name)
    try:
        prober = HERE / ("reach_programs.py" if program else "reach_models.py")
        probed = _last_json(_run([python, str(prober), "probe", name], timeout).stdout)
    except (subprocess.TimeoutExpired, ValueError) as exc:
        probed = {"ok": False, "error": "probe timed out" if isinstance(exc, subprocess.TimeoutExpired) else "probe crashed"}
    if not probed["ok"]:
        return {**result, "status": "not built", "error": probed["error"]}
    result.update(parameters=probed["parameters"], shrunk=probed["shrunk"], reached=probed.get("reached", []),
                  completed=probed.get("completed", []), inputs=probed.get("inputs", []))
    with tempfile.TemporaryDirectory(prefix="reach-") as scratch:
        entry = Path(scratch) / "entry.py"
        packages = [package]
        if program:
            result["library"] = probed["library"]
            packages = [_package_dir(python, name) for name in probed["packages"]]
        entry.write_text(entry_text(name, probed, "padded", program_compiles, train))
        if _inputs_require_grad(name, probed, train):
            result["inputs_require_grad"] = True
        try:
            before = explain(python, entry, None, timeout=timeout, train=train)
            if not program and "called with and without its attention mask" in probed.get("inputs", []):
                before = _more_breaking_form(python, entry, name, probed, before, result, timeout, train, program_compiles)
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            why = str(exc) if isinstance(exc, RuntimeError) else f"explain took over {timeout:.0f} s"
            return {**result, "status": "not measured", "error": why}
        result.update(status="measured", before=_picture(before), sites_before=_sites(before))
        if not before["graph_breaks"] and not before["skipped_frames"] and not before.get("compile_error"):
            result.update(after=result["before"], sites_after=[], seconds=round(time.perf_counter() - start, 1))
            return result
        if fix_timeout is None:
            result["seconds"] = round(time.perf_counter() - start, 1)
            return result
        site = Path(scratch) / "site"
        copies = [copy_package(package, site) for package in packages]
        as_given = Path(scratch) / "entry_as_given.py"
        as_given.write_text(entry.read_text())
        try:
            done = _run(
                [python, "-m", "graphweld", "fix", "--entry", str(entry), "--unsafe-fixes", "--compile-options",
                 "backend=eager", "--format", "json", *(["--train"] if train else []), *map(str, copies)],
                fix_timeout, {"PYTHONPATH": str(site)},
            )  # fmt: skip
            fixed = json.loads(done.stdout) if done.returncode in (0, 1) and done.stdout.strip() else None
            result["fix_error"] = None if fixed is not None else _why(done)
        except subprocess.TimeoutExpired:
            fixed, result["fix_error"] = None, f"fix --entry took over {fix_timeout:.0f} s"
        if fixed is not None:
            result["kept"] = {os.path.relpath(path, site): rules for path, rules in fixed["kept"].items()}
            result["capture"] = best_capture(fixed.get("capture_settings") or [])
            written = fixed.get("capture_setting_fix")
            result["setting_written"] = written["settings"] if written else None
            result["setting_note"] = fixed.get("capture_setting_note")
            result["dropped"] = [
                {"path": os.path.relpath(item["path"], site), "line": item["line"], "rule": item["rule"],
                 "form": item["form"], "why": item["why"]}
                for item in fixed["tried"] if not item["kept"]
            ]  # fmt: skip
        try:
            after = explain(python, entry, site if fixed is not None and fixed["kept"] else None, timeout=timeout, train=train)
            result.update(after=_picture(after), sites_after=_sites(after))
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            result.update(after=None, after_error=str(exc))
        if timed and fixed is not None and (fixed["kept"] or fixed.get("capture_setting_fix")):
            result["steady_state"] = steady_state.compare(
                python, as_given, entry, site if fixed["kept"] else None, train, fix_timeout or timeout
            )
    result["seconds"] = round(time.perf_counter() - start, 1)
    return result


def _more_breaking_form(
    python: str, entry: Path, name: str, probed: dict, padded: dict, result: dict, timeout: float, train: bool, program_compiles: bool
) -> dict:
    """A user calls a model with its attention mask, or without it (`model(input_ids)`), and each
    call takes its own path (LongT5 splits its input into blocks only without a mask). Each form
    is measured as its own program (a second form in the same run recompiles with dynamic shapes,
    which hides the first compile's breaks); the class is measured, and fixed, in the form that
    breaks more: the entry is left written in it."""
    bare_entry = entry.with_name("entry_bare.py")
    bare_entry.write_text(entry_text(name, probed, "bare", program_compiles))
    bare = explain(python, bare_entry, None, timeout=timeout, train=train)
    breaks = {form: picture["graph_breaks"] + picture["skipped_frames"] for form, picture in (("padded", padded), ("bare", bare))}
    result["forms"] = {form: _picture(picture) for form, picture in (("padded", padded), ("bare", bare))}
    if breaks["bare"] > breaks["padded"]:
        entry.write_text(bare_entry.read_text())
        result["form"] = "bare"
        return bare
    result["form"] = "padded"
    return padded


# Changing the salt re-draws the halves: never do it once rules have been tuned on one of them.
_SPLIT_SALT = "graphweld reach census, split of 2026-11-25"
HALVES = ("tuning", "held-out")


# Class-name endings of the heads and variants of one model family (longest first).
_HEADS = (
    "ForConditionalGeneration", "WithLMHeadModel", "ForCausalLM", "LMHeadModel", "EncoderModel", "DecoderModel",
    "TextModel", "VisionModel", "AudioModel", "BaseModel", "Model",
)  # fmt: skip


def family(name: str) -> str:
    """What shares code with a class or program: a transformers model family (`NllbMoeModel` and
    `NllbMoeForConditionalGeneration` run the same modeling file), or another library."""
    if is_program(name):
        return name.split(":", 1)[0]
    for head in _HEADS:
        if name.endswith(head) and len(name) > len(head):
            return name[: -len(head)]
    return name


# The other libraries' held-out half. Rules were read off the first draw of 2026-11-27 (pykeen's
# compile failure, the speech encoders' requires_grad flag), and off the second (torchcde's spline
# index, 2026-11-28: scalar-tensor-index), so the whole pool is spent and tuning now, like every
# library the census ran before it (gpytorch, linear_operator and botorch included). A held-out half
# is spent once rules are read off it: draw again.
_HELD_OUT_SALT = "graphweld reach census, other libraries' held-out half of 2026-11-27"
HELD_OUT_POOL = (
    "timm", "torchvision", "open_clip", "vit_pytorch", "denoising_diffusion_pytorch", "pykeen", "stable_baselines3",
    "deepxde", "torchcde", "torchdyn", "kan", "segmentation_models_pytorch", "speechbrain", "perceiver_pytorch",
    "torch_harmonics", "sbi",
)  # fmt: skip
FIRST_DRAW = frozenset(
    sorted(HELD_OUT_POOL, key=lambda library: hashlib.sha256(f"{_HELD_OUT_SALT}:{library}".encode()).hexdigest())[:8]
)
SECOND_DRAW = frozenset(HELD_OUT_POOL) - FIRST_DRAW
# The third draw (2026-11-28), written here and committed before any program was written or
# measured for it: libraries the census never ran, pure Python, whose documentation builds a
# module, a loss or a transform that people compile, that install beside torch 2.14's default
# build, build without weights or data, and do not run a library already in the census.
THIRD_DRAW = frozenset(
    (
        "st_moe_pytorch", "reformer_pytorch", "performer_pytorch", "egnn_pytorch", "piq", "pytorch_wavelets", "kymatio",
        "rtdl_revisiting_models", "torch_dct", "tab_transformer_pytorch",
    )
)  # fmt: skip
# Spent on 2026-11-28 too: guard-to-check's checks behind a broken one were read off piq's rows.
# The fourth draw (2026-11-28), written here and committed before any program was written or
# measured for it, by the third draw's rule: attention blocks (local, Nystrom, linear and
# conformer), a CRF layer's likelihood, a Fourier neural operator, an implicit network and a
# contrastive loss.
FOURTH_DRAW = frozenset(
    (
        "torchcrf", "neuralop", "conformer", "local_attention", "nystrom_attention", "siren_pytorch", "info_nce",
        "linear_attention_transformer",
    )
)  # fmt: skip
# Spent on 2026-11-28, after its clean measurement (18 -> 10 breaks): the flag read through
# `torch.as_tensor` was read off pytorch-crf's row.
# The fifth draw (2026-11-28), written here and committed before any program was written or
# measured for it, by the same rule (FLASH-pytorch left out: it runs rotary-embedding-torch, which
# the census has run): a neural audio codec, spectrogram layers, segmentation blocks and losses,
# an MLP-Mixer, matrix-decomposition attention, axial attention, a gated state-space layer and
# chunked attention.
FIFTH_DRAW = frozenset(
    (
        "encodec", "torchlibrosa", "pytorch_toolbelt", "mlp_mixer_pytorch", "hamburger_pytorch", "axial_attention",
        "gated_state_spaces_pytorch", "memory_efficient_attention_pytorch",
    )
)  # fmt: skip
# The sixth draw (2026-11-29), written here and committed before any program was written or
# measured for it, by the same rule, from fields the earlier draws left out (their blocks mostly
# compiled whole): two spiking-network libraries and a third (stateful neurons stepped over time),
# equivariant networks, normalizing flows, a promptable segmenter, music source separation and a
# pitch tracker. Left out by the rule: litgpt and torchtune (they would upgrade packages the
# census's environment runs), x-transformers (it runs einx, which the census has run), vocos (it
# runs encodec, the fifth draw's).
SIXTH_DRAW = frozenset(
    (
        "snntorch", "spikingjelly", "norse", "e3nn", "normflows", "segment_anything", "openunmix", "torchcrepe",
    )
)  # fmt: skip
# Spent on 2026-11-29, after its clean measurement (45 -> 45 breaks): requires-grad-eager's state
# form was read off Norse's rows, masked-accumulate off Segment Anything's, the judgement of what
# the compiled original already showed off torchcrepe's.
# The seventh draw (2026-11-29), written here and committed before any program was written or
# measured for it, while the fifth is still clean, so that the clean held-out half is larger than
# the fifth's 13 breaks. By the same rule, from fields the earlier draws left out: a protein
# language model, molecular networks, a recurrent language model, a classic image network,
# self-supervised losses, a tabular GAN, temporal convolutions and a soft mixture of experts.
# Left out by the rule: snac (a neural audio codec, the fifth draw's field), bs-roformer (it runs
# rotary-embedding-torch), torchcfm (torchdyn), torch-audiomentations (julius), titans-pytorch
# (x-transformers), tabpfn (its models come from a hub).
SEVENTH_DRAW = frozenset(
    (
        "esm", "schnetpack", "xlstm", "efficientnet_pytorch", "lightly", "ctgan", "pytorch_tcn", "soft_moe_pytorch",
    )
)  # fmt: skip
# The eighth draw (2026-11-29), written here and committed before any program was written or
# measured for it, while the fifth and seventh are still clean: the clean draws hold one break that
# only training hits, so this one is drawn from fields where a training step takes a path of its
# own (issue 46's training-only classes): layers dropped or kept by a draw (gMLP's layer survival),
# structured dropout and its schedule (DropBlock), a mixture of experts whose gate routes by a
# training policy, normalizer-free networks with stochastic depth, recurrent dropout (locked
# dropout, weight drop), and memories written while training (the compressive transformer's and
# Transformer-XL's, with Mogrifier LSTMs). Left out by the rule: routing-transformer and
# sinkhorn-transformer (they run local-attention, the fourth draw's), progen-transformer (JAX).
EIGHTH_DRAW = frozenset(
    (
        "g_mlp_pytorch", "dropblock", "mixture_of_experts", "nfnets", "torchnlp", "compressive_transformer_pytorch",
        "memory_transformer_xl",
    )
)  # fmt: skip
# Spent on 2026-11-29, after its clean measurement (33 -> 23 breaks as programs that compile
# themselves; training steps 45 -> 27, and 12 -> 4 on the programs that break only in training):
# constant-requires-grad was read off the compressive transformer's rows.
# The ninth draw (2026-12-03, issue 68), written here and committed before any program was written
# or measured for it, by how much breaking code a library holds: `benchmarks/breaking_code.py` over
# the sources of 16 libraries of fields no census has run (knowledge-graph embeddings, reinforcement
# learning, molecular potentials, recommenders, physics-informed networks, forecasting, imputation,
# solvers), the six with the most constructs (scalars read out of tensors, data-decided shapes,
# recurrent modules, hooks, branches on `any()`/`all()`, `autograd.grad`): torchkge 99, tianshou
# 87, torchani 86, recbole 78, torchphysics 54, pytorch-forecasting 43 (RESULTS.md has the table).
# Left out by the rule: mace-torch and nequip (they run e3nn, the sixth draw's), neuromancer
# (torchdiffeq, torchsde), pypots (it would downgrade transformers below the census's 5.24).
NINTH_DRAW = frozenset(
    ("torchkge", "tianshou", "torchani", "recbole", "torchphysics", "pytorch_forecasting")
)  # fmt: skip
# Spent on 2026-12-03: selected-rows-dense was read off torchani's rows, early-exit-masked off
# tianshou's conjugate gradients.
# The tenth draw (2026-12-03, issue 68), written here and committed before any program was written
# or measured for it, by the ninth's rule: `benchmarks/breaking_code.py` over the wheels of 19
# libraries of fields no census or draw has run (reinforcement learning, GFlowNets, inverse
# problems, attribution, recommenders, survival analysis, structured prediction, curvature, class
# activation maps, differential privacy, clustering, tree models, kinematics), the six with the most
# constructs: skrl 361, captum 127, torch-rechub 59, torch-struct 36, torchcam 27, opacus 24
# (RESULTS.md has the table). Left out by the rule: torchgfn (it runs torch_geometric, the census's,
# and linear-attention-transformer, the fourth draw's), deepinv (torchvision, torchmetrics),
# torchsurv (torchmetrics), curvlinops-for-pytorch (linear_operator); POT was not a candidate: its
# Sinkhorn loop is the form early-exit-masked was written for.
TENTH_DRAW = frozenset(("skrl", "captum", "torch_rechub", "torch_struct", "torchcam", "opacus"))
# Spent on 2026-12-03, after its clean measurement (78 -> 72 breaks where graphweld compiles the
# entry, 78 -> 56 where the program compiles itself): the tensor functions the analysis knows
# without a run (`torch.dot`, `norm`, ...) were widened on skrl's TRPO conjugate gradient.
SPENT_HELD_OUT_LIBRARIES = (
    FIRST_DRAW | SECOND_DRAW | THIRD_DRAW | FOURTH_DRAW | SIXTH_DRAW | EIGHTH_DRAW | NINTH_DRAW | TENTH_DRAW
)
HELD_OUT_LIBRARIES = FIFTH_DRAW | SEVENTH_DRAW


def half(name: str) -> str:
    """The census half of a transformers class or another library's program: "tuning" (rules are
    chosen and tuned on it) or "held-out" (only reported). A transformers class by a hash of its
    family, so the classes of one modeling file are on the same side, and the split holds whatever
    classes a transformers version adds or drops; another library's program by its library:
    held out only when drawn into HELD_OUT_LIBRARIES."""
    if is_program(name):
        return "held-out" if family(name) in HELD_OUT_LIBRARIES else "tuning"
    digest = hashlib.sha256(f"{_SPLIT_SALT}:{family(name)}".encode()).digest()
    return HALVES[digest[0] % 2]


def is_program(name: str) -> bool:
    """A program of another library (`kornia:canny`, reach_programs.py), not a transformers class."""
    return ":" in name


def _package_dir(python: str, library: str) -> Path:
    found = _run([python, "-c", f"import os, {library}; print(os.path.dirname({library}.__file__))"], 600)
    return Path(found.stdout.strip())


def best_capture(trials: list[dict]) -> dict | None:
    """The Dynamo capture setting fix --entry measured best on top of its kept rewrites (fewest
    breaks, outputs equal to eager; the fewer settings on a tie): what it offers to set next to
    the program's own torch.compile. None when no setting removed a break."""
    def picture(trial: dict, when: str) -> tuple[int, int, int]:
        return (trial.get(f"skipped_frames_{when}", 0), trial[f"graph_breaks_{when}"], trial.get(f"graphs_{when}", 0))

    useful = [t for t in trials if t["outputs_equal"] and picture(t, "after") < picture(t, "before")]
    best = min(useful, key=lambda t: (picture(t, "after"), len(t["settings"])), default=None)
    return None if best is None else {"settings": best["settings"], "graph_breaks": best["graph_breaks_after"], "graphs": best["graphs_after"]}


# -- the run -----------------------------------------------------------------------------------


def _classes(python: str) -> list[str]:
    return _last_json(_run([python, str(HERE / "reach_models.py"), "list"], 600).stdout)


def one_per_config(python: str, classes: list[str]) -> list[str]:
    """One class per config class: the one with a task head (a language-modelling or generation
    head covers the base model's code and the head's), else the base model."""
    probe = subprocess.run(
        [python, "-c", "import json, sys, transformers\nnames = json.loads(sys.stdin.read())\n"
         "print(json.dumps({n: getattr(transformers, n).config_class.__name__ for n in names}))"],
        input=json.dumps(classes), capture_output=True, text=True, check=True,
    )  # fmt: skip
    config_of = json.loads(probe.stdout)
    rank = {"ForConditionalGeneration": 0, "ForCausalLM": 1, "Model": 2}
    chosen: dict[str, str] = {}
    for name in classes:
        suffix = next(s for s in rank if name.endswith(s))
        current = chosen.get(config_of[name])
        if current is None or rank[suffix] < rank[next(s for s in rank if current.endswith(s))]:
            chosen[config_of[name]] = name
    return sorted(chosen.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=str(PYTHON), help="the benchmark environment's python")
    parser.add_argument("--models", help="comma-separated class names (default: one class per config class)")
    parser.add_argument("--all-classes", action="store_true", help="every class, not one per config class")
    parser.add_argument("--programs", action="store_true", help="the other libraries' programs (reach_programs.py) instead of transformers classes")
    parser.add_argument("--mode", choices=("eval", "train"), default="eval", help="inference, or training steps (--train)")
    parser.add_argument("--results", help="JSON lines, one per model, appended [default: results/reach-MODE.jsonl]")
    parser.add_argument("--resume", action="store_true", help="skip the classes the results file has (with --refix: those it has fixed)")
    parser.add_argument("--limit", type=int, help="measure at most this many classes")
    parser.add_argument("--timeout", type=float, default=600, help="seconds for a probe or an explain")
    parser.add_argument("--fix-timeout", type=float, default=2400, help="seconds for fix --entry")
    parser.add_argument("--no-fix", action="store_true", help="count the breaks only (a census; fix later with --refix)")
    parser.add_argument("--refix", action="store_true", help="measure again the classes the results file has with breaks")
    parser.add_argument("--half", choices=HALVES, help="measure only this half of the census (see half())")
    parser.add_argument("--program-compiles", action="store_true", help="each entry compiles its model itself (`return "
                        "torch.compile(model)`, as a user's program does), so a setting fix --entry measures is written and "
                        "measured as written, not only offered")
    parser.add_argument("--time", action="store_true", help="time each fixed row's compiled steady state after against "
                        "before, inductor on CPU (steady_state.py; best used with --program-compiles)")
    parser.add_argument("--report", action="store_true", help="only print the tables from the results file")
    parser.add_argument("--survey", help="with --report: the survey's nightly report JSON to compare with")
    parser.add_argument("--survey-transformers", help="with --survey: results of the survey-only classes measured on the "
                        "survey's own transformers (reach.py --python .venv-survey/bin/python --results FILE)")
    args = parser.parse_args()
    results_path = Path(args.results) if args.results else HERE / "results" / f"reach-{args.mode}.jsonl"
    if args.report:
        older = _load(Path(args.survey_transformers)) if args.survey_transformers else []
        report(_load(results_path), Path(args.survey) if args.survey else None, older)
        return
    # Absolute: some runs start in the entry's directory (the steady-state timings).
    args.python = os.path.abspath(args.python)
    if not Path(args.python).exists():
        sys.exit(f"error: {args.python} not found; create the environment first (see this file's docstring)")
    versions = _run([args.python, "-c", "import transformers, torch, os; print(transformers.__version__, torch.__version__, "
                     "os.path.dirname(transformers.__file__))"], 600)  # fmt: skip
    version, torch_version, package = versions.stdout.split()
    if args.programs:
        classes = _last_json(_run([args.python, str(HERE / "reach_programs.py"), "list"], 600).stdout)
        if args.models:  # only the programs named, as for transformers classes
            named = args.models.split(",")
            unknown = sorted(set(named) - set(classes))
            if unknown:
                sys.exit(f"error: no such program: {', '.join(unknown)} (reach_programs.py list)")
            classes = named
    else:
        classes = args.models.split(",") if args.models else _classes(args.python)
    if not args.models and not args.all_classes and not args.programs:
        classes = one_per_config(args.python, classes)
    stored = _load(results_path)
    if args.refix:
        breaking = {row["class"]: row for row in stored if row["status"] == "measured" and row["before"]["graph_breaks"]}
        # Cheapest first, so that a run cut short has fixed the most models.
        chosen = args.models or args.programs
        classes = [name for name in classes if name in breaking] if chosen else sorted(breaking, key=lambda name: breaking[name]["seconds"])
        fixed = {name for name, row in breaking.items() if row.get("after") and "capture" in row}
        done = fixed if args.resume else set()  # resumed: the classes already measured after a fix
    else:
        done = {row["class"] for row in stored} if args.resume else set()
    todo = [name for name in classes if name not in done and (args.half is None or half(name) == args.half)][: args.limit]
    print(f"transformers {version}, torch {torch_version}: {len(classes)} classes, {len(todo)} to measure", flush=True)
    results_path.parent.mkdir(parents=True, exist_ok=True)
    for index, name in enumerate(todo, 1):
        row = measure(args.python, Path(package), name, args.timeout, None if args.no_fix else args.fix_timeout, args.mode == "train",
                      args.program_compiles, args.time)  # fmt: skip
        row.update(transformers=version, torch=torch_version)
        with results_path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(row) + "\n")
        print(f"[{index}/{len(todo)}] {_line(row)}", flush=True)


def _line(row: dict) -> str:
    if row["status"] != "measured":
        return f"{row['class']}: {row['status']} ({row['error']})"
    before, after = row["before"], row.get("after") or {}
    timed = row.get("steady_state")
    speed = "" if timed is None else f", time after/before {timed['ratio']}" if "ratio" in timed else f", not timed: {timed['error']}"
    return (
        f"{row['class']}: breaks {before['graph_breaks']} -> {after.get('graph_breaks', '?')}, "
        f"graphs {before['graphs']} -> {after.get('graphs', '?')}{speed}, {row['seconds']} s"
    )


def _load(path: Path) -> list[dict]:
    if not path.exists():
        return []
    rows = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            rows[row["class"]] = row  # a class measured again: its latest result
    return list(rows.values())


# -- the report --------------------------------------------------------------------------------


def report(rows: list[dict], survey: Path | None, older: list[dict] = ()) -> None:  # type: ignore[assignment]
    for row in rows:
        for site in (row.get("sites_before") or []) + (row.get("sites_after") or []):
            # The patterns as this version of the script reads them: from the source where the
            # file is still there, else those a site's GB id alone decides.
            if Path(site["file"]).is_file() or site.get("pattern", "other: ").startswith("other: "):
                site["pattern"] = pattern(site)
    for label, part in (("transformers classes", [r for r in rows if not is_program(r["class"])]),
                        ("other libraries' programs", [r for r in rows if is_program(r["class"])])):  # fmt: skip
        if part and len(part) < len(rows):
            _summary(label, part)
            for name in HALVES:
                _summary(f"{label}, {name} half", [r for r in part if half(r["class"]) == name])
    _summary("all", rows)
    for name in HALVES:
        _summary(f"all, {name} half", [r for r in rows if half(r["class"]) == name])
    _tables(rows, survey, older)


def _summary(label: str, rows: list[dict]) -> None:
    """Coverage and breaks before and after, for `rows`."""
    measured = [row for row in rows if row["status"] == "measured"]
    breaking, before, after, with_setting = _breaks(measured)
    not_built = [row for row in rows if row["status"] != "measured"]
    print(f"{label}:")
    whole = sum(1 for row in breaking if (row.get("after") or {}).get("graph_breaks") == 0)
    shrunk = sum(1 for row in measured if row.get("shrunk"))
    print(f"{len(rows)} tried, {len(measured)} measured ({shrunk} with widths cut to the parameter budget), "
          f"{len(not_built)} not built or not measured; {len(breaking)} with breaks")  # fmt: skip
    # A compiled run that raises has no breaks to count: it is the program that needs a fix most.
    failing = [row for row in measured if row["before"].get("compile_error")]
    if failing:
        still = [row for row in failing if (row.get("after") or row["before"]).get("compile_error")]
        named = "; ".join(f"{row['class']}: {row['before']['compile_error'][:80]}" for row in failing)
        print(f"compiled run fails: {len(failing)} before, {len(still)} after ({named})")
    if before:
        print(f"breaks on the breaking models: {before} -> {after} ({100 * (before - after) / before:.0f}% removed); "
              f"{whole} of {len(breaking)} now compile whole")  # fmt: skip
        fixed = [row for row in breaking if row.get("after")]
        if len(fixed) < len(breaking):  # a census not yet fixed everywhere (--no-fix, then --refix)
            fixed_before = sum(row["before"]["graph_breaks"] for row in fixed)
            fixed_after = sum(row["after"]["graph_breaks"] for row in fixed)
            print(f"on the {len(fixed)} of them fix --entry has run on: {fixed_before} -> {fixed_after} "
                  f"({100 * (fixed_before - fixed_after) / max(fixed_before, 1):.0f}% removed)")  # fmt: skip
        offered = sum(1 for row in breaking if row.get("capture"))
        print(f"with the capture setting fix --entry offers ({offered} models): {before} -> {with_setting} "
              f"({100 * (before - with_setting) / before:.0f}% removed)")  # fmt: skip
        compiling = [row for row in breaking if row.get("compiled_by") == "program"]
        if compiling:
            written = sum(1 for row in compiling if row.get("setting_written"))
            print(f"{len(compiling)} of them compile their model themselves, so a setting is written and counted in the "
                  f"breaks after: written in {written}")  # fmt: skip
    print()


def _breaks(measured: list[dict]) -> tuple[list[dict], int, int, int]:
    """The measured rows with breaks, and their breaks before, after the rewrites, and with the
    capture setting fix --entry offers on top (global to the process, so offered next to the
    program's torch.compile, never written into the package)."""
    breaking = [row for row in measured if row["before"]["graph_breaks"] or row["before"]["skipped_frames"]]
    before = sum(row["before"]["graph_breaks"] for row in breaking)
    after = sum((row.get("after") or row["before"])["graph_breaks"] for row in breaking)
    with_setting = sum((row.get("capture") or row.get("after") or row["before"])["graph_breaks"] for row in breaking)
    return breaking, before, after, with_setting


def _tables(rows: list[dict], survey: Path | None, older: list[dict] = ()) -> None:  # type: ignore[assignment]
    """The tables by pattern, by GB id and by model over the breaking rows, the reasons rows were not
    measured, and the comparison with the survey."""
    breaking = [row for row in rows if row["status"] == "measured" and (row["before"]["graph_breaks"] or row["before"]["skipped_frames"])]
    not_built = [row for row in rows if row["status"] != "measured"]
    print("| pattern | models | breaks before | after | sites before | after |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, (models, sites_before, sites_after, breaks_before, breaks_after) in _by(breaking, "pattern"):
        print(f"| {name} | {models} | {breaks_before} | {breaks_after} | {sites_before} | {sites_after} |")
    print()
    print("| GB | reason | models | breaks before | after | sites before | after |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for (gb, reason), (models, sites_before, sites_after, breaks_before, breaks_after) in _by(breaking, ("gb", "reason")):
        print(f"| {gb} | {reason[:90]} | {models} | {breaks_before} | {breaks_after} | {sites_before} | {sites_after} |")
    print()
    print("| model | half | breaks before | after | graphs before | after | rules kept | dropped | with a capture setting |")
    print("| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | --- |")
    for row in sorted(breaking, key=lambda r: -r["before"]["graph_breaks"]):
        rules = Counter(rule for rules in (row.get("kept") or {}).values() for rule in rules)
        after_row = row.get("after") or {}
        print(f"| {row['class']} | {half(row['class'])} | {row['before']['graph_breaks']} | {after_row.get('graph_breaks', '-')} | "
              f"{row['before']['graphs']} | {after_row.get('graphs', '-')} | "
              f"{', '.join(f'{r} x{n}' for r, n in sorted(rules.items())) or '-'} | {len(row.get('dropped') or [])} | "
              f"{_capture_cell(row.get('capture'), row.get('setting_written'))} |")  # fmt: skip
    _libraries([row for row in rows if is_program(row["class"])])
    reasons = Counter(re.sub(r"\d+", "N", row["error"])[:100] for row in not_built)
    print()
    print("| not built or not measured | classes |")
    print("| --- | ---: |")
    for reason, count in reasons.most_common(15):
        print(f"| {reason} | {count} |")
    if survey is not None:
        compare_with_survey(rows, survey, older)


def _libraries(rows: list[dict]) -> None:
    """Per library of the other libraries' programs: its half, its programs, their breaks before
    and after (and with the setting fix --entry offers), and what holds what is left: the patterns
    of the breaks left, most breaks first, with the package whose code they lie in."""
    if not rows:
        return
    by_library: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_library[family(row["class"])].append(row)
    print()
    print("| library | half | programs | with breaks | breaks before | after | with the setting | what holds what is left |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for library, programs in sorted(by_library.items(), key=lambda item: (half(item[1][0]["class"]), item[0])):
        measured = [row for row in programs if row["status"] == "measured"]
        breaking, before, after, with_setting = _breaks(measured)
        left: Counter = Counter()
        for row in breaking:
            for site in _sites_left(row):
                left[f"{site.get('pattern') or pattern(site)} ({_package(site['file'])})"] += site.get("breaks", 1)
        failing = sum(1 for row in measured if (row.get("after") or row["before"]).get("compile_error"))
        said = [f"{failing} compiled run(s) fail"] if failing else []
        if len(measured) < len(programs):
            said.append(f"{len(programs) - len(measured)} not built or not measured")
        holds = "; ".join(said + [f"{name}: {count}" for name, count in left.most_common(3)]) or "compiles whole"
        print(f"| {library} | {half(programs[0]['class'])} | {len(programs)} | {len(breaking)} | {before} | {after} | "
              f"{with_setting} | {holds} |")  # fmt: skip


def _sites_left(row: dict) -> list[dict]:
    """The break sites a row has after its fix, or, not fixed yet (a census row), before it."""
    return (row.get("sites_after") if row.get("after") is not None else row.get("sites_before")) or []


def _package(file: str) -> str:
    """The package whose code a site lies in (the top directory under site-packages, or under the
    copy fix --entry rewrote), or the program itself."""
    path = file.replace(os.sep, "/")
    if path.endswith("benchmarks/reach_programs.py"):
        return "the program"
    found = re.search(r"/(?:site-packages|site)/([^/]+)/", path)
    return found.group(1) if found else os.path.basename(path)


def _capture_cell(capture: dict | None, written: list[str] | None = None) -> str:
    if written:
        return f"written: {', '.join(written)} (in the breaks after)"
    if not capture:
        return "-"
    return f"{capture['graph_breaks']} breaks with {', '.join(capture['settings'])}"


def _by(rows: list[dict], key) -> list:  # type: ignore[no-untyped-def]
    """(name, (models, sites before, sites after, breaks before, breaks after)) by `key`, most
    breaks first; a model not fixed yet (a census row) counts its sites as they were."""
    table: dict = defaultdict(lambda: [set(), 0, 0, 0, 0])
    for row in rows:
        for sites, index in ((row.get("sites_before") or [], 1), (_sites_left(row), 2)):
            for site in sites:
                name = tuple(site[k] for k in key) if isinstance(key, tuple) else site[key]
                table[name][index] += 1
                table[name][index + 2] += site.get("breaks", 1)
                if index == 1:
                    table[name][0].add(row["class"])
    ranked = ((name, (len(models), *counts)) for name, (models, *counts) in table.items())
    return sorted(ranked, key=lambda item: -item[1][3])


def compare_with_survey(rows: list[dict], survey: Path, older: list[dict] = ()) -> None:  # type: ignore[assignment]
    """Which models break here and in the survey (its eval mode), among the classes both ran; with
    `older` (the survey-only classes measured on the survey's own transformers), which of those
    the census finds on the survey's code (transformers changed since) and which it does not."""
    data = json.loads(survey.read_text(encoding="utf-8"))
    status: dict[str, tuple[str, int]] = {}
    for category in ("cat1", "cat3"):
        for item in data.get(category, []):
            name, mode = item["key"]
            if mode == "eval":
                status[name] = (item.get("current_status", ""), item.get("current_gb", 0))
    both = [row for row in rows if row["status"] == "measured" and status.get(row["class"], ("",))[0] in ("graph_break", "full_graph")]
    breaks_here = {row["class"] for row in both if row["before"]["graph_breaks"]}
    breaks_there = {row["class"] for row in both if status[row["class"]][0] == "graph_break"}
    print()
    print(f"Against the survey (eval): {len(both)} classes measured by both; breaking in the survey "
          f"{len(breaks_there)}, here {len(breaks_here)}, in both {len(breaks_here & breaks_there)}")  # fmt: skip
    print(f"  breaking in the survey only: {', '.join(sorted(breaks_there - breaks_here)) or '-'}")
    print(f"  breaking here only: {', '.join(sorted(breaks_here - breaks_there)) or '-'}")
    survey_breaks = sum(status[name][1] for name in breaks_there)
    here_breaks = sum(row["before"]["graph_breaks"] for row in both if row["class"] in breaks_there)
    print(f"  breaks on the survey's breaking models: survey {survey_breaks}, here {here_breaks}")
    only = breaks_there - breaks_here
    measured_older = {row["class"]: row for row in older if row["status"] == "measured"}
    upstream = {name for name in only if name in measured_older and measured_older[name]["before"]["graph_breaks"]}
    not_found = {name for name in only if name in measured_older} - upstream
    reproduced = len(breaks_here & breaks_there) + len(upstream)
    if breaks_there:
        print(f"  reproduced: {reproduced} of {len(breaks_there)} ({100 * reproduced / len(breaks_there):.0f}%): "
              f"{len(breaks_here & breaks_there)} break here too, {len(upstream)} break on the survey's own "
              f"transformers here (changed since: {', '.join(sorted(upstream)) or '-'})")  # fmt: skip
        print(f"  not reproduced on the survey's transformers either: {', '.join(sorted(not_found)) or '-'}")
        print(f"  not measured on the survey's transformers: {', '.join(sorted(only - set(measured_older))) or '-'}")


if __name__ == "__main__":
    main()
