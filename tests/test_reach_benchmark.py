"""The reach benchmark builds models the way the public survey does (issue 25): each class from
its default config with 2 layers (widths only above a budget), batch 2, padded masks, labels; and
it sorts break sites into the source patterns the tables rank. Checked with the test suite's
transformers; the benchmark itself runs in its own environment."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import torch
import transformers

BENCHMARKS = Path(__file__).parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import reach  # noqa: E402
import reach_models  # noqa: E402
import breaking_code  # noqa: E402
import steady_state  # noqa: E402


def test_layers_are_cut_to_two_in_every_config_with_one_of_each_kind_of_layer():
    config = transformers.LlavaConfig()
    overrides: dict = {}
    reach_models.cut_layers(config, overrides)
    assert config.text_config.num_hidden_layers == 2 and config.vision_config.num_hidden_layers == 2
    assert overrides == {"vision_config.num_hidden_layers": 2, "text_config.num_hidden_layers": 2}
    # The overrides rebuild the same config from the class's defaults.
    again = reach_models.config_for("LlavaForConditionalGeneration", overrides)
    assert again.text_config.num_hidden_layers == 2

    hybrid = transformers.Gemma2Config(num_hidden_layers=6)
    hybrid.layer_types = ["sliding_attention", "full_attention"] * 3
    kinds: dict = {}
    reach_models.cut_layers(hybrid, kinds)
    assert hybrid.num_hidden_layers == 2 and hybrid.layer_types == ["sliding_attention", "full_attention"]


def test_a_hybrid_gets_one_recurrent_and_one_attention_layer_in_its_transformers_names():
    # Granite 4.0-H's checkpoints mix attention into their recurrent layers; transformers 5.8
    # names the kinds "mamba"/"attention", 5.24 "linear_attention"/"full_attention".
    choose = reach_models._one_recurrent_one_attention
    assert choose(["linear_attention"] * 40) == ["linear_attention", "full_attention"]
    assert choose(["mamba"] * 32) == ["mamba", "attention"]


def test_widths_are_cut_only_above_the_budget_and_said():
    small: dict = {}
    bert = transformers.BertConfig()
    reach_models.cut_layers(bert, small)
    assert reach_models.shrink(transformers.BertModel, bert, small) == [] and "hidden_size" not in small
    big: dict = {}
    llama = transformers.LlamaConfig()
    reach_models.cut_layers(llama, big)
    shrunk = reach_models.shrink(transformers.LlamaForCausalLM, llama, big)
    assert shrunk[0].endswith("parameters by default") and "hidden_size 4096 -> 2048" in shrunk
    # Heads are halved with the width, so each head keeps its size.
    assert llama.hidden_size // llama.num_attention_heads == 4096 // 32
    assert reach_models._parameters(transformers.LlamaForCausalLM, llama) <= reach_models.PARAMETER_BUDGET
    # A vision tower's projection follows the text's width, or its features cannot replace the image tokens.
    vision_language: dict = {}
    qwen = transformers.Qwen2_5_VLConfig()
    reach_models.cut_layers(qwen, vision_language)
    shrunk = reach_models.shrink(transformers.Qwen2_5_VLForConditionalGeneration, qwen, vision_language)
    assert qwen.vision_config.out_hidden_size == qwen.text_config.hidden_size < 3584
    assert vision_language["vision_config.out_hidden_size"] == qwen.text_config.hidden_size
    # A Mamba head's width, derived from the width when the config was made, is derived again.
    hybrid: dict = {}
    bamba = transformers.BambaConfig()
    reach_models.cut_layers(bamba, hybrid)
    reach_models.shrink(transformers.BambaForCausalLM, bamba, hybrid)
    assert bamba.mamba_d_head * bamba.mamba_n_heads == bamba.mamba_expand * bamba.hidden_size


@pytest.mark.slow
def test_a_probe_finds_the_inputs_a_user_would_give():
    probed = reach_models.probe("BartForConditionalGeneration")
    recipe = probed["recipe"]
    assert recipe["input_ids"]["shape"] == [2, 16] and recipe["attention_mask"]["padding"] == 4
    assert recipe["decoder_input_ids"]["shape"] == [2, 8] and recipe["labels"] == {"kind": "labels", "from": "decoder_input_ids"}
    inputs = reach_models.build_inputs(recipe)
    assert inputs["attention_mask"][1, -4:].tolist() == [0, 0, 0, 0] and inputs["attention_mask"][0].all()
    assert torch.equal(inputs["input_ids"], reach_models.build_inputs(recipe)["input_ids"])  # the same every time
    model = reach_models.build_model("BartForConditionalGeneration", probed["overrides"])
    assert model.config.encoder_layers == 2 and not model.training


class _GridVisionLanguageModel:
    """A forward with the parameters of a vision-language model whose images come as patches on a grid."""

    def forward(self, input_ids, attention_mask=None, labels=None, pixel_values=None, image_grid_thw=None, mm_token_type_ids=None):
        raise NotImplementedError


class _PatchedVisionLanguageModel:
    """A forward with the parameters of a model whose images come as patches with their grid's shape."""

    def forward(self, input_ids, pixel_values=None, spatial_shapes=None, pixel_attention_mask=None, attention_mask=None):
        raise NotImplementedError


def test_a_vision_language_model_is_given_images_in_the_form_its_forward_takes():
    # Qwen2-VL's config names no image size: its images come as 14-pixel patches on a grid, merged 2 x 2.
    config = transformers.Qwen2VLConfig()
    recipe = reach_models.initial_recipe("Qwen2VLForConditionalGeneration", _GridVisionLanguageModel(), config)
    patch = config.vision_config.patch_size
    assert recipe["pixel_values"]["shape"] == [2 * 16, 3 * config.vision_config.temporal_patch_size * patch * patch]
    assert recipe["image_grid_thw"]["value"] == [[1, 4, 4], [1, 4, 4]]
    inputs = reach_models.build_inputs(recipe)
    # Each sample's text starts with the 4 tokens the 4 x 4 patches merge into, marked as an image's.
    image_token = reach_models._first(config, "image_token_id")
    assert inputs["input_ids"].shape == (2, 20) and (inputs["input_ids"] == image_token).sum(dim=1).tolist() == [4, 4]
    assert inputs["mm_token_type_ids"][:, :4].all() and not inputs["mm_token_type_ids"][:, 4:].any()
    assert inputs["attention_mask"].shape == (2, 20) and inputs["image_grid_thw"].dtype == torch.long
    # Patches with their grid's shape (SigLIP2 towers): 4 x 4 patches, downsampled 2 x 2 into 4 tokens.
    patched = reach_models.initial_recipe("Lfm2VlForConditionalGeneration", _PatchedVisionLanguageModel(), config)
    assert patched["pixel_values"]["shape"] == [2, 16, 3 * patch * patch]
    assert patched["spatial_shapes"]["value"] == [[4, 4], [4, 4]] and patched["input_ids"]["shape"] == [2, 20]
    # A vision tower alone takes the patches and their grid directly.
    class _VisionTower:
        def forward(self, hidden_states, grid_thw, **kwargs):
            raise NotImplementedError

    tower = reach_models.initial_recipe("Qwen2VLVisionModel", _VisionTower(), config.vision_config)
    assert tower["hidden_states"]["shape"] == recipe["pixel_values"]["shape"] and tower["grid_thw"]["value"] == [[1, 4, 4]] * 2
    # Without images the recipe is the text alone (the fallback when a model refuses them).
    assert "pixel_values" not in reach_models.initial_recipe("Qwen2VLForConditionalGeneration", _GridVisionLanguageModel(), config, images=False)


def test_the_census_also_calls_without_the_attention_mask():
    # LongT5 splits its input into blocks only when no mask is given: a user's `model(input_ids)`.
    recipe = {
        "input_ids": {"kind": "ids", "shape": [2, 16], "high": 100, "avoid": []},
        "attention_mask": {"kind": "mask", "shape": [2, 16], "padding": 4},
        "labels": {"kind": "labels", "from": "input_ids"},
    }
    assert reach_models.bare_recipe(recipe) == {"input_ids": recipe["input_ids"]}
    assert reach_models.bare_recipe({"input_ids": recipe["input_ids"]}) is None
    # A model whose eager call refuses the bare form is called with the mask alone.
    assert reach_models.bare_recipe({**recipe, reach_models.BARE_REFUSED: {"kind": "note"}}) is None
    assert set(reach_models.build_inputs({**recipe, reach_models.BARE_REFUSED: {"kind": "note"}})) == {"input_ids", "attention_mask", "labels"}
    # The census writes an entry for each form; each is measured as its own program.
    forms = {}
    for form in ("padded", "bare"):
        namespace: dict = {}
        exec(reach.entry_text("LongT5Model", {"overrides": {}, "recipe": recipe}, form), namespace)
        forms[form] = namespace["GetInput"]()
    assert sorted(forms["padded"]) == ["attention_mask", "input_ids", "labels"] and sorted(forms["bare"]) == ["input_ids"]
    assert torch.equal(forms["padded"]["input_ids"], forms["bare"]["input_ids"])


def test_break_sites_are_sorted_into_source_patterns(tmp_path: Path):
    source = tmp_path / "modeling_x.py"
    source.write_text(
        "def forward(self, x):\n"
        "    n = x.sum().item()\n"
        "    sizes = lengths.tolist()\n"
        "    if torch.all(attention_mask == 1):\n"
        "        pass\n"
        "    if self.training and torch.rand([]) < self.layerdrop:\n"
        "        pass\n"
        "    logger.warning_once('x')\n"
        "\n"
        "def route(self, x):\n"
        "    idx = torch.where(expert_mask[expert])\n"
    )
    site = {"file": str(source), "gb": "GB0000", "reason": ""}
    assert reach.pattern({**site, "line": 2, "gb": "GB0124"}) == ".item()"
    assert reach.pattern({**site, "line": 3}) == ".tolist()"
    assert reach.pattern({**site, "line": 4, "gb": "GB0170"}).startswith("mask check")
    assert reach.pattern({**site, "line": 6, "gb": "GB0170"}) == "LayerDrop"
    assert reach.pattern({**site, "line": 8, "gb": "GB0291"}) == "logging / warnings"
    assert reach.pattern({**site, "line": 11, "gb": "GB0036"}) == "MoE expert dispatch"
    assert reach.pattern({"file": "/x/transformers/utils/output_capturing.py", "line": 1, "gb": "GB4347", "reason": ""}).startswith("output-capturing")
    # A comprehension's own frame skipped after another break is Python 3.11's, wherever it is.
    skipped = {"file": "/x/transformers/utils/output_capturing.py", "line": 1, "gb": "GB4347", "reason": "", "type": "skipped frame"}
    assert reach.pattern(skipped).startswith("comprehension frame after another break")


def test_an_entry_that_compiles_its_model_itself_is_one_a_setting_is_written_into():
    from graphweld.runs.capture_fix import setting_writable
    from graphweld.source import SourceFile

    probed = {"library": "encodec", "overrides": {"num_hidden_layers": 2}, "recipe": {"batch": 2}}
    for name in ("encodec:encodec", "LlamaModel"):
        by_graphweld = reach.entry_text(name, probed, "padded")
        by_program = reach.entry_text(name, probed, "padded", program_compiles=True)
        # The same model either way; only who compiles it differs.
        changed = [(a, b) for a, b in zip(by_graphweld.splitlines(), by_program.splitlines()) if a != b]
        (returned, compiled), = changed
        assert compiled == returned.replace("return ", "return torch.compile(") + ")"
        assert not setting_writable(SourceFile("entry.py", by_graphweld, "utf-8"))
        assert setting_writable(SourceFile("entry.py", by_program, "utf-8"))


def test_in_a_training_step_a_program_without_a_parameter_to_train_gets_inputs_that_require_grad():
    import reach_programs

    loss = {"library": "pytorch_toolbelt", "parameters": 0, "trainable": 0}
    assert "INPUTS_REQUIRE_GRAD = True" in reach.entry_text("pytorch_toolbelt:dice", loss, "padded", train=True)
    assert "INPUTS_REQUIRE_GRAD = False" in reach.entry_text("pytorch_toolbelt:dice", loss, "padded")
    model = {**loss, "parameters": 10, "trainable": 10}
    assert "INPUTS_REQUIRE_GRAD = False" in reach.entry_text("encodec:encodec", model, "padded", train=True)
    logits, labels = reach_programs.inputs_requiring_grad((torch.randn(2, 3), torch.tensor([0, 2])))
    assert logits.requires_grad and not labels.requires_grad
    (batch,) = reach_programs.inputs_requiring_grad([{"x": torch.randn(2)}])
    assert batch["x"].requires_grad


def test_the_report_counts_a_written_setting_in_the_breaks_after(capsys):
    row = {"class": "encodec:encodec", "status": "measured", "compiled_by": "program", "setting_written": ["allow_rnn"],
           "before": {"graph_breaks": 9, "graphs": 23, "skipped_frames": 0}, "after": {"graph_breaks": 0, "graphs": 1},
           "capture": {"settings": ["allow_rnn"], "graph_breaks": 0, "graphs": 1}, "sites_before": [], "sites_after": []}
    reach._summary("held-out", [row])
    said = capsys.readouterr().out
    assert "9 -> 0 (100% removed)" in said and "1 of them compile their model themselves" in said and "written in 1" in said
    assert reach._capture_cell(row["capture"], row["setting_written"]) == "written: allow_rnn (in the breaks after)"
    assert reach._capture_cell(row["capture"]) == "0 breaks with allow_rnn"


def test_the_capture_setting_offered_is_the_best_that_kept_outputs_equal():
    trials = [
        {"settings": ["capture_scalar_outputs"], "graph_breaks_before": 5, "graph_breaks_after": 3, "graphs_after": 4, "outputs_equal": True},
        {"settings": ["capture_dynamic_output_shape_ops"], "graph_breaks_before": 5, "graph_breaks_after": 1, "graphs_after": 2, "outputs_equal": False},
        {"settings": ["capture_scalar_outputs", "capture_dynamic_output_shape_ops"], "graph_breaks_before": 5, "graph_breaks_after": 3, "graphs_after": 4, "outputs_equal": True},
    ]
    assert reach.best_capture(trials) == {"settings": ["capture_scalar_outputs"], "graph_breaks": 3, "graphs": 4}
    assert reach.best_capture([{**trials[0], "graph_breaks_after": 5}]) is None


def test_the_moe_cost_benchmark_reads_experts_and_top_k_from_the_config(capsys):
    import moe_cost

    assert moe_cost.flop_factor(transformers.MixtralConfig()) == (8, 2)
    assert moe_cost.flop_factor(transformers.DbrxConfig()) == (4, 1)  # in its ffn_config
    assert moe_cost.flop_factor(transformers.SwitchTransformersConfig()) == (8, 1)  # top-1 routing, no key
    assert moe_cost.flop_factor(transformers.LlamaConfig()) is None
    timing = {"cold_s": 2.0, "warm_s": 0.02}
    moe_cost.report([
        {"class": "MixtralForCausalLM", "status": "measured", "rewritten_loops": 1, "flop_factor": 4.0,
         "before_eager": timing, "after_eager": timing, "before_compiled": timing,
         "after_compiled": {**timing, "max_diff_to_eager": 2e-6}},
    ])  # fmt: skip
    row = capsys.readouterr().out.splitlines()[-1]
    assert row == "| MixtralForCausalLM | 4.0 | 1 | 20 ms | 20 ms | 20 ms | 20 ms | 2.0 s | 2.0 s | - | 2.0e-06 |"


def test_the_census_halves_are_fixed_by_the_family_alone():
    names = [f"Model{index}ForCausalLM" for index in range(400)]
    halves = [reach.half(name) for name in names]
    # The same name always lands in the same half, and the halves are about even.
    assert halves == [reach.half(name) for name in names]
    assert set(halves) == {"tuning", "held-out"} and 150 < halves.count("held-out") < 250
    # The classes of one modeling file, and the programs of one library, share a half.
    assert reach.family("NllbMoeForConditionalGeneration") == reach.family("NllbMoeModel") == "NllbMoe"
    assert reach.family("FlaubertWithLMHeadModel") == "Flaubert" and reach.family("LongT5EncoderModel") == "LongT5"
    assert reach.family("kornia:canny") == reach.family("kornia:augmentation") == "kornia"
    # Recorded here so that a change of the split cannot pass unnoticed.
    assert [reach.half(name) for name in ("LlamaForCausalLM", "DbrxForCausalLM", "MimiModel")] == ["tuning", "held-out", "tuning"]
    # The other libraries: every one the census has run is tuning, the spent first to fourth
    # draws included, and the sixth; the held-out half is the fifth draw of libraries it never
    # ran, written down before any was measured.
    assert [reach.half(name) for name in ("kornia:canny", "gpytorch:exact_gp", "pykeen:rotate", "torchcde:linear_rk4")] == ["tuning"] * 4
    assert reach.FIRST_DRAW == {
        "deepxde", "pykeen", "sbi", "segmentation_models_pytorch", "speechbrain", "stable_baselines3", "timm", "vit_pytorch",
    }
    assert reach.SECOND_DRAW == {
        "denoising_diffusion_pytorch", "kan", "open_clip", "perceiver_pytorch", "torch_harmonics", "torchcde", "torchdyn",
        "torchvision",
    }
    assert reach.SPENT_HELD_OUT_LIBRARIES == (
        reach.FIRST_DRAW | reach.SECOND_DRAW | reach.THIRD_DRAW | reach.FOURTH_DRAW | reach.SIXTH_DRAW | reach.EIGHTH_DRAW
        | reach.NINTH_DRAW | reach.TENTH_DRAW
    )
    assert reach.HELD_OUT_LIBRARIES == reach.FIFTH_DRAW | reach.SEVENTH_DRAW
    assert not reach.HELD_OUT_LIBRARIES & reach.SPENT_HELD_OUT_LIBRARIES and not reach.FIFTH_DRAW & reach.SEVENTH_DRAW
    assert not reach.TENTH_DRAW & (reach.FIFTH_DRAW | reach.SEVENTH_DRAW | reach.NINTH_DRAW)
    assert reach.half("compressive_transformer_pytorch:two_segments") == "tuning"
    assert reach.half("torchcrf:crf_loss") == "tuning" and reach.half("encodec:encodec") == "held-out"
    assert reach.half("norse:conv_lif") == "tuning"
    assert all(reach.half(f"{library}:model") == "held-out" for library in reach.HELD_OUT_LIBRARIES)


def test_the_survey_comparison_counts_what_breaks_on_the_surveys_own_transformers(tmp_path, capsys):
    survey = tmp_path / "nightly.json"
    survey.write_text(json.dumps({"cat1": [], "cat3": [
        {"key": [name, "eval"], "current_status": "graph_break", "current_gb": 3} for name in ("A", "B", "C", "D")
    ] + [{"key": ["E", "eval"], "current_status": "full_graph", "current_gb": 0}]}))

    def row(name: str, breaks: int) -> dict:
        return {"class": name, "status": "measured", "before": {"graph_breaks": breaks}}

    here = [row("A", 2), row("B", 0), row("C", 0), row("D", 0), row("E", 0)]
    older = [row("B", 4), row("C", 0)]  # B breaks on the survey's transformers: changed since
    reach.compare_with_survey(here, survey, older)
    shown = capsys.readouterr().out
    assert "reproduced: 2 of 4 (50%): 1 break here too, 1 break on the survey's own transformers here (changed since: B)" in shown
    assert "not reproduced on the survey's transformers either: C" in shown
    assert "not measured on the survey's transformers: D" in shown


def test_the_report_has_a_row_per_library_with_what_holds_what_is_left(capsys):
    def site(file: str, gb: str, reason: str, breaks: int) -> dict:
        return {"file": file, "line": 1, "gb": gb, "reason": reason, "type": "graph break", "breaks": breaks}

    solver = "/tmp/reach-x/site/torchdiffeq/_impl/solvers.py"
    rows = [
        {"class": "torchcde:cubic", "status": "measured", "before": {"graph_breaks": 10, "graphs": 11, "skipped_frames": 0},
         "after": {"graph_breaks": 4, "graphs": 5}, "capture": {"graph_breaks": 3, "settings": ["capture_scalar_outputs"]},
         "sites_after": [site(solver, "GB0170", "Data-dependent branching", 3),
                         site("/tmp/reach-x/site/torchcde/spline.py", "GB0099", "Skip inlining", 1)]},
        {"class": "torchcde:linear", "status": "measured", "before": {"graph_breaks": 0, "graphs": 1, "skipped_frames": 0}},
        {"class": "kornia:canny", "status": "measured", "before": {"graph_breaks": 0, "graphs": 1, "skipped_frames": 0}},
        # A library that does not import with the census's torch is no library that compiles whole.
        {"class": "schnetpack:energy", "status": "not built", "error": "eager call fails: ImportError: ..."},
    ]  # fmt: skip
    reach._libraries(rows)
    lines = {line.split(" | ")[0]: line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")}
    assert lines["| torchcde"].startswith("| torchcde | tuning | 2 | 1 | 10 | 4 | 3 | data-dependent branch (other) (torchdiffeq): 3; ")
    assert "call of a function run eagerly (torch.compiler.disable) (torchcde): 1" in lines["| torchcde"]
    assert lines["| kornia"] == "| kornia | tuning | 1 | 0 | 0 | 0 | 0 | compiles whole |"
    assert lines["| schnetpack"].endswith("| 1 | 0 | 0 | 0 | 0 | 1 not built or not measured |")


def test_a_draw_counts_the_breaking_code_a_library_holds_outside_its_tests(tmp_path: Path):
    import zipfile

    package = tmp_path / "lib"
    (package / "tests").mkdir(parents=True)
    (package / "model.py").write_text(
        "def step(self, x, mask):\n"
        "    n = x.sum().item()\n"
        "    kept = x[mask.nonzero()]\n"
        "    if mask.any():\n"
        "        self.rnn = nn.GRU(4, 4)\n"
        "    self.register_forward_hook(f)\n"
        "    return torch.autograd.grad(n, x), kept.tolist()\n"
    )
    (package / "tests" / "test_model.py").write_text("assert x.item() == 1\n")
    lines, found = breaking_code.count(package)
    assert lines == 7
    assert found == {"scalars": 2, "data shapes": 1, "recurrent": 1, "hooks": 1, "branches": 1, "autograd.grad": 1}
    # A wheel reads the same as its folder.
    wheel = tmp_path / "lib-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path in package.rglob("*.py"):
            archive.write(path, str(path.relative_to(tmp_path)))
    assert breaking_code.count(wheel) == (lines, found)


@pytest.mark.slow
def test_the_steady_state_is_timed_on_each_side_and_a_side_that_fails_is_said(tmp_path: Path):
    entry = "import torch\n\n\ndef my_model_function():\n    return torch.nn.Linear(4, 2)\n\n\ndef GetInput():\n    return torch.ones(3, 4)\n"
    before, after = tmp_path / "before.py", tmp_path / "after.py"
    before.write_text(entry)
    after.write_text(entry.replace("Linear(4, 2)", "Sequential(torch.nn.Linear(4, 2), torch.nn.ReLU())"))
    timed = steady_state.compare(sys.executable, before, after, None, True, 120)
    assert timed["before_ms"] > 0 and timed["after_ms"] > 0
    assert timed["ratio"] == pytest.approx(timed["after_ms"] / timed["before_ms"], rel=0.05)
    after.write_text(entry.replace("torch.ones(3, 4)", "torch.ones(3, 5)"))
    failed = steady_state.compare(sys.executable, before, after, None, False, 120)
    assert failed["error"].startswith("after: RuntimeError: mat1 and mat2 shapes cannot be multiplied")
