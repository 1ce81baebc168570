"""Models and inputs for the reach benchmark (`benchmarks/reach.py`), built the way the public
graph-break survey (penguinwu/oss-model-graph-break-corpus) builds them: each class's default
config from its config class, the layer count cut to 2 (in every sub-config), batch 2, and inputs
a user would give it (an attention mask with padding, labels for a model with a language-modelling
head, decoder ids for an encoder-decoder, images and audio of the config's own sizes; images as
patches on a grid or with their grid's shape where the forward takes them so, with their
placeholder tokens in the text), and the same call without the mask (`bare_recipe`).

Widths stay as the default config has them unless the model would have more than `PARAMETER_BUDGET`
parameters, which does not build and run on 2 cores in reasonable time: then experts are cut to 4
(top-k with them), a vocabulary above 32,000 to 32,000, and hidden and intermediate sizes halved
until it fits; every such change is recorded (`shrunk`) and reported.

Runs inside the benchmark's own environment (`.venv-reach`: a current transformers, never the
test suite's pin). `probe(name)` finds a model's config changes and input recipe (and checks that
it runs eagerly); the generated entries call `build_model` and `build_inputs` with them.
"""

from __future__ import annotations

import inspect
import json
import re
import sys
from typing import Any

PARAMETER_BUDGET = 300_000_000
BATCH, SEQUENCE, DECODER_SEQUENCE, PADDING = 2, 16, 8, 4
LAYER_KEYS = (
    "num_hidden_layers", "num_layers", "n_layer", "n_layers", "encoder_layers", "decoder_layers",
    "num_encoder_layers", "num_decoder_layers", "num_text_layers", "num_vision_layers",
)  # fmt: skip
# Lists with one entry per layer: cut with the layer count, keeping one of each kind of layer.
LAYER_LISTS = ("layer_types", "layers_block_type", "block_types", "attn_layer_types")
# What makes a 2-layer model reach every kind of layer and every code path its default config has,
# as users' models do (the census must find what users hit, not what a cut model happens to run):
# - every how many layers one kind comes (a sparse MoE layer, an attention layer among recurrent
#   ones, a global one among local ones): a period above 2 leaves that kind out of 2 layers;
PERIOD_KEYS = (
    "encoder_sparse_step", "decoder_sparse_step", "interleave_moe_layer_step", "moe_layer_interval",
    "expert_layer_period", "attn_layer_period", "cross_layer_interval", "cross_attention_frequency",
    "global_attn_every_n_layers", "no_rope_layer_interval",
)  # fmt: skip
# - lists of the kind of each layer's feed-forward (dense or sparse), kept one of each kind;
REACH_LAYER_LISTS = ("mlp_layer_types",)
# - how many layers of one kind come first (dense layers before the MoE ones, the offset of the
#   periodic kind): above 1, the other kind is left out;
LEADING_KEYS = ("first_k_dense_replace", "num_dense_layers", "moe_layer_start_index", "expert_layer_offset", "attn_layer_offset")
# - local windows and blocks, in tokens: wider than the input, they are never crossed, and the code
#   that crosses them (chunking, global tokens, masks by distance) never runs.
WINDOW_KEYS = (
    "sliding_window", "sliding_window_size", "local_radius", "global_block_size", "attention_window",
    "local_attention", "attention_chunk_size", "local_attn_chunk_length", "lsh_attn_chunk_length",
)  # fmt: skip
WINDOW = 4
EXPERT_KEYS = ("num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts")
TOP_K_KEYS = ("num_experts_per_tok", "num_selected_experts", "top_k", "moe_topk", "num_experts_per_token")
HEAD_KEYS = ("num_attention_heads", "num_key_value_heads", "encoder_attention_heads", "decoder_attention_heads",
             "n_head", "num_heads")
WIDTH_KEYS = ("hidden_size", "intermediate_size", "d_model", "d_ff", "ffn_dim", "encoder_ffn_dim",
              "decoder_ffn_dim", "moe_intermediate_size", "shared_expert_intermediate_size", "n_embd")  # fmt: skip


def _configs(config: Any) -> list[Any]:
    """The config and every config nested in it (text, vision, audio, encoder, decoder...)."""
    from transformers import PretrainedConfig

    found, stack = [], [config]
    while stack:
        current = stack.pop()
        if any(current is seen for seen in found):
            continue
        found.append(current)
        stack.extend(value for value in vars(current).values() if isinstance(value, PretrainedConfig))
    return found


def _set(config: Any, path: str, value: Any, overrides: dict[str, Any]) -> None:
    target = config
    *parents, name = path.split(".")
    for parent in parents:
        target = getattr(target, parent)
    setattr(target, name, value)
    overrides[path] = value


def _paths(config: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """(dotted path, config) for the config and its nested configs."""
    from transformers import PretrainedConfig

    found = [(prefix, config)]
    for key, value in vars(config).items():
        if isinstance(value, PretrainedConfig):
            found.extend(_paths(value, f"{prefix}{key}."))
    return found


def cut_layers(config: Any, overrides: dict[str, Any]) -> None:
    for prefix, sub in _paths(config):
        for key in LAYER_KEYS:
            value = getattr(sub, key, None)
            if isinstance(value, int) and not isinstance(value, bool) and value > 2:
                try:
                    _set(config, prefix + key, 2, overrides)
                except (AttributeError, NotImplementedError, ValueError):
                    pass  # derived from other fields (Funnel's block sizes)
        for key in LAYER_LISTS:
            _one_of_each_kind(config, prefix, sub, key, overrides)
        blocks = getattr(sub, "block_sizes", None)
        if isinstance(blocks, (list, tuple)) and sum(blocks) > 2 * len(blocks):
            # Funnel's layer count is the sum of its blocks' sizes.
            _set(config, prefix + "block_sizes", [1] * len(blocks), overrides)
        depths = getattr(sub, "depths", None)
        if isinstance(depths, (list, tuple)) and all(isinstance(d, int) for d in depths) and max(depths, default=0) > 2:
            _set(config, prefix + "depths", [min(d, 2) for d in depths], overrides)


def _one_of_each_kind(config: Any, prefix: str, sub: Any, key: str, overrides: dict[str, Any]) -> bool:
    """A per-layer list cut to the layer count, keeping one layer of each kind (the count grows
    when there are more kinds); whether it changed."""
    value = getattr(sub, key, None)
    n = getattr(sub, "num_hidden_layers", None)
    if not (isinstance(value, (list, tuple)) and isinstance(n, int)):
        return False
    kinds = list(dict.fromkeys(value))
    if len(value) <= n and len(kinds) == len(set(value[:n])):
        return False
    if len(kinds) > n:
        _set(config, prefix + "num_hidden_layers", len(kinds), overrides)
        n = len(kinds)
    _set(config, prefix + key, (kinds + [kinds[-1]] * n)[:n], overrides)
    return True


def reach_every_layer(config: Any, overrides: dict[str, Any]) -> list[str]:
    """Periods, leading counts and windows set so that 2 layers and SEQUENCE tokens reach every
    kind of layer and cross every window (see PERIOD_KEYS); what was changed, for the report."""
    changed = []

    def lower(prefix: str, key: str, value: Any, bound: int) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or value <= bound:
            return
        try:
            _set(config, prefix + key, bound, overrides)
        except (AttributeError, NotImplementedError, ValueError):
            return
        changed.append(f"{prefix}{key} {value} -> {bound}")

    for prefix, sub in _paths(config):
        for key in REACH_LAYER_LISTS:
            before = getattr(sub, key, None)
            if _one_of_each_kind(config, prefix, sub, key, overrides):
                changed.append(f"{prefix}{key} {sorted(set(before))} kept")
        for key in PERIOD_KEYS:
            lower(prefix, key, getattr(sub, key, None), 2)
        for key in LEADING_KEYS:
            lower(prefix, key, getattr(sub, key, None), 1)
        for key in WINDOW_KEYS:
            value = getattr(sub, key, None)
            if isinstance(value, (list, tuple)) and value and all(isinstance(v, int) and v > WINDOW for v in value):
                _set(config, prefix + key, [WINDOW] * len(value), overrides)
                changed.append(f"{prefix}{key} {max(value)} -> {WINDOW}")
            else:
                lower(prefix, key, value, WINDOW)
        if isinstance(getattr(sub, "num_random_blocks", None), int):
            # BigBird's block-sparse attention runs only above (5 + 2 * random blocks) blocks;
            # shorter inputs fall back to full attention.
            lower(prefix, "block_size", getattr(sub, "block_size", None), 2)
            lower(prefix, "num_random_blocks", getattr(sub, "num_random_blocks", None), 1)
    return changed


# Default configs of transformers 5.24 whose model does not run, and the values the released
# checkpoint's config has instead (one line each, with where the value comes from).
CHECKPOINT_FIELDS: dict[str, dict[str, Any]] = {
    # clip_qkv None makes DbrxAttention call clamp(min=None, max=None); databricks/dbrx-base sets 8.
    "DbrxConfig": {"attn_config.clip_qkv": 8},
    # Hybrids whose default config has no attention layer, where every checkpoint has some (Bamba-9B
    # at layers 9, 18 and 27; Granite 4.0-H among its Mamba layers); the cache then has no layer to
    # ask its length and the model refuses to run. Their pattern cut to 2 layers: one of each.
    "BambaConfig": {"attn_layer_indices": [1]},
    "GraniteMoeHybridConfig": {"layer_types": lambda config: _one_recurrent_one_attention(config.layer_types or ["mamba"])},
}


def _one_recurrent_one_attention(default_types: list[str]) -> list[str]:
    """Granite 4.0-H's pattern cut to 2 layers in the installed transformers' names: its default
    (recurrent) kind, then attention ("mamba", "attention" in 5.8; "linear_attention",
    "full_attention" in 5.24)."""
    recurrent = default_types[0]
    return [recurrent, "full_attention" if recurrent == "linear_attention" else "attention"]

_MISSING = re.compile(r"'(\w+)' object has no attribute '(\w+)'")


def complete_config(config: Any, error: str, overrides: dict[str, Any]) -> str | None:
    """A default config that lacks an attribute its model reads (DBRX's attention config and
    `rope_theta`, which transformers 5.24 keeps in the parent's `rope_parameters`): the value
    another config of the model holds under that name, set where it is missing; None when none has it."""
    found = _MISSING.search(error)
    if not found:
        return None
    owner, name = found.groups()
    values = []
    for _, sub in _paths(config):
        if name in vars(sub):
            values.append(vars(sub)[name])
        parameters = vars(sub).get("rope_parameters")
        if isinstance(parameters, dict) and name in parameters:
            values.append(parameters[name])
    for prefix, sub in _paths(config):
        if type(sub).__name__ == owner and name not in vars(sub) and values:
            _set(config, prefix + name, values[0], overrides)
            return f"{prefix}{name} = {values[0]!r} (the default config lacks it)"
    return None


def _parameters(cls: Any, config: Any) -> int:
    import torch

    with torch.device("meta"):
        model = cls(config)
    return sum(parameter.numel() for parameter in model.parameters())


def shrink(cls: Any, config: Any, overrides: dict[str, Any]) -> list[str]:
    """Cut a model above the budget down to it; what was changed, for the report."""
    shrunk: list[str] = []
    parameters = _parameters(cls, config)
    if parameters <= PARAMETER_BUDGET:
        return shrunk
    shrunk.append(f"{parameters / 1e6:.0f}M parameters by default")
    text, vision = getattr(config, "text_config", None), getattr(config, "vision_config", None)
    # A vision tower's output width that is the text's width (Qwen2-VL's `hidden_size`) stays it.
    tied = [key for key in ("hidden_size",) if getattr(vision, key, None) == getattr(text, "hidden_size", False)]
    for prefix, sub in _paths(config):
        for key in EXPERT_KEYS:
            value = getattr(sub, key, None)
            if isinstance(value, int) and value > 4:
                _set(config, prefix + key, 4, overrides)
                shrunk.append(f"{prefix}{key} {value} -> 4")
                for top_key in TOP_K_KEYS:
                    top = getattr(sub, top_key, None)
                    if isinstance(top, int) and top > 4:
                        _set(config, prefix + top_key, 2, overrides)
    # A vocabulary is cut no lower than its special tokens (an image token's id must embed).
    smallest = max([32_000, *(token + 1 for token in _special_ids(config))])
    for prefix, sub in _paths(config):
        vocabulary = getattr(sub, "vocab_size", None)
        if isinstance(vocabulary, int) and vocabulary > smallest and _parameters(cls, config) > PARAMETER_BUDGET:
            _set(config, prefix + "vocab_size", smallest, overrides)
            shrunk.append(f"{prefix}vocab_size {vocabulary} -> {smallest}")
    for _ in range(4):
        if _parameters(cls, config) <= PARAMETER_BUDGET:
            break
        for prefix, sub in _paths(config):
            halved = False
            done = set()
            for key in WIDTH_KEYS:
                # A key that is another's alias (DBRX's hidden_size is its d_model) is halved once.
                real = getattr(sub, "attribute_map", {}).get(key, key)
                if real in done:
                    continue
                done.add(real)
                value = getattr(sub, key, None)
                if isinstance(value, int) and value >= 256:
                    _set(config, prefix + key, value // 2, overrides)
                    shrunk.append(f"{prefix}{key} {value} -> {value // 2}")
                    halved = True
            if halved:
                # Half the heads too, so that each head keeps its size (rotary sections and
                # kernels depend on it).
                for key in HEAD_KEYS:
                    value = getattr(sub, key, None)
                    if isinstance(value, int) and value >= 2 and value % 2 == 0:
                        _set(config, prefix + key, value // 2, overrides)
    # A Mamba head's width the config derived from the hidden size when it was made ("auto"):
    # derived again from the cut width, so heads x width still fill the expanded hidden size.
    for prefix, sub in _paths(config):
        heads, expand, width = (getattr(sub, key, None) for key in ("mamba_n_heads", "mamba_expand", "hidden_size"))
        if all(isinstance(value, int) for value in (heads, expand, width, getattr(sub, "mamba_d_head", None))):
            if sub.mamba_d_head * heads != expand * width and (expand * width) % heads == 0:
                shrunk.append(f"{prefix}mamba_d_head {sub.mamba_d_head} -> {expand * width // heads} (as the config derives it)")
                _set(config, prefix + "mamba_d_head", expand * width // heads, overrides)
    # A vision tower projects its features to the text's width (`out_hidden_size`): it follows it.
    width = getattr(text, "hidden_size", None)
    if isinstance(getattr(vision, "out_hidden_size", None), int):
        tied.append("out_hidden_size")
    for key in tied:
        if isinstance(width, int) and getattr(vision, key) != width:
            shrunk.append(f"vision_config.{key} {getattr(vision, key)} -> {width} (the text's width)")
            _set(config, f"vision_config.{key}", width, overrides)
    shrunk.append(f"{_parameters(cls, config) / 1e6:.0f}M parameters built")
    return shrunk


def config_for(name: str, overrides: dict[str, Any] | None = None) -> Any:
    import transformers

    cls = getattr(transformers, name)
    config = cls.config_class()
    for path, value in (overrides or {}).items():
        _set(config, path, value, {})
    return config


def build_model(name: str, overrides: dict[str, Any]) -> Any:
    """The model, as `probe` found it builds: default config with the recorded changes, eval mode."""
    import torch
    import transformers

    torch.manual_seed(0)
    return getattr(transformers, name)(config_for(name, overrides)).eval()


def _special_ids(config: Any) -> set[int]:
    ids = set()
    for sub in _configs(config):
        for key, value in vars(sub).items():
            if ("token_id" in key or "token_index" in key) and isinstance(value, int):
                ids.add(value)
    return ids


def _first(config: Any, *keys: str) -> Any:
    for sub in _configs(config):
        for key in keys:
            value = getattr(sub, key, None)
            if value is not None:
                return value
    return None


def initial_recipe(name: str, model: Any, config: Any, images: bool = True) -> dict[str, Any]:
    """What a user would call the model with, from its forward's parameters and its config
    (`images`: with images for a vision-language model, see `_image_recipe`)."""
    parameters = set(inspect.signature(model.forward).parameters)
    main = getattr(model, "main_input_name", "input_ids")
    recipe: dict[str, Any] = {}
    vocabulary = _first(config, "vocab_size")
    if "input_ids" in parameters and isinstance(vocabulary, int):
        recipe["input_ids"] = {"kind": "ids", "shape": [BATCH, SEQUENCE], "high": vocabulary, "avoid": sorted(_special_ids(config))}
        if "attention_mask" in parameters:
            recipe["attention_mask"] = {"kind": "mask", "shape": [BATCH, SEQUENCE], "padding": PADDING}
    image_size = _first(config, "image_size")
    if isinstance(image_size, (list, tuple)):
        image_size = image_size[0]
    patched = bool({"image_grid_thw", "spatial_shapes"} & parameters)  # images as patches: `_image_recipe`
    if (main == "pixel_values" or ("pixel_values" in parameters and image_size)) and not patched and (images or "input_ids" not in recipe):
        channels = _first(config, "num_channels") or 3
        side = image_size if isinstance(image_size, int) else 224
        recipe["pixel_values"] = {"kind": "float", "shape": [BATCH, channels, side, side]}
    vision = getattr(config, "vision_config", None)
    if images and vision is not None and "pixel_values" in parameters and "pixel_values" not in recipe and "input_ids" in recipe:
        recipe.update(_image_recipe(config, vision, parameters, recipe))
    if {"hidden_states", "grid_thw"} <= parameters and not recipe:
        # A vision tower alone (Qwen-VL's, GLM-4V's): the patches of one image per sample, on a grid.
        recipe.update(_patches_on_a_grid(config, config, "hidden_states", "grid_thw", parameters)[0])
    if main == "input_values":
        # A codec takes (batch, channels, samples); a speech encoder (batch, samples).
        channels = _first(config, "audio_channels")
        shape = [BATCH, channels, 16_000] if isinstance(channels, int) else [BATCH, 16_000]
        recipe["input_values"] = {"kind": "float", "shape": shape}
    if main == "input_features" or ("input_features" in parameters and "input_ids" not in recipe):
        bins = _first(config, "num_mel_bins", "feature_size", "input_feat_per_channel") or 80
        positions = _first(config, "max_source_positions")
        frames = 2 * positions if isinstance(positions, int) and positions <= 1500 else 100
        recipe["input_features"] = {"kind": "float", "shape": [BATCH, bins, frames]}
    if "decoder_input_ids" in parameters and getattr(config, "is_encoder_decoder", False) and isinstance(vocabulary, int):
        recipe["decoder_input_ids"] = {"kind": "ids", "shape": [BATCH, DECODER_SEQUENCE], "high": vocabulary, "avoid": sorted(_special_ids(config))}
    if "labels" in parameters and name.endswith(("ForCausalLM", "ForConditionalGeneration")):
        source = "decoder_input_ids" if "decoder_input_ids" in recipe else "input_ids"
        if source in recipe:
            recipe["labels"] = {"kind": "labels", "from": source}
    return recipe


def _image_recipe(config: Any, vision: Any, parameters: set[str], recipe: dict[str, Any]) -> dict[str, Any]:
    """Images for a vision-language model whose config gives no `image_size`, in the form its
    forward takes (as the survey builds them), with the image's placeholder tokens in the text:
    - patches on a grid (`image_grid_thw`: Qwen-VL, Ernie-VL, VideoLlama3): one image of 1 x 2m x 2m
      patches per sample (m the spatial merge), flattened, so m x m patches make one token;
    - patches with their grid's shape (`spatial_shapes`: SigLIP2 towers, LFM2-VL): 4 x 4 patches,
      downsampled by the config's factor;
    - else a 224-pixel image, its token count calibrated from the model's own complaint."""
    patch, channels = _patch_and_channels(vision)
    image_token = _first(config, "image_token_id", "image_token_index")
    if "image_grid_thw" in parameters:
        images, tokens = _patches_on_a_grid(config, vision, "pixel_values", "image_grid_thw", parameters)
    elif "spatial_shapes" in parameters:
        factor = getattr(config, "downsample_factor", None) or 2
        side = 2 * factor
        images = {
            "pixel_values": {"kind": "float", "shape": [BATCH, side * side, channels * patch * patch]},
            "spatial_shapes": {"kind": "constant", "value": [[side, side]] * BATCH},
        }
        if "pixel_attention_mask" in parameters:
            images["pixel_attention_mask"] = {"kind": "constant", "value": [[1] * side * side] * BATCH}
        tokens = (side // factor) ** 2
    else:
        return {"pixel_values": {"kind": "float", "shape": [BATCH, channels, 224, 224]}}
    if isinstance(image_token, int):
        images.update(_with_placeholders(recipe, image_token, tokens))
    if "mm_token_type_ids" in parameters:
        images["mm_token_type_ids"] = _token_types(images.get("input_ids", recipe["input_ids"]))
    return images


def _token_types(ids: dict[str, Any]) -> dict[str, Any]:
    """Which tokens are an image's (1) and which text (0), for a forward that is told so."""
    length = ids["shape"][1]
    images = ids.get("placeholders", [None, 0])[1]
    return {"kind": "constant", "value": [[1] * images + [0] * (length - images)] * BATCH}


def _patches_on_a_grid(config: Any, vision: Any, pixels: str, grid: str, parameters: set[str]) -> tuple[dict[str, Any], int]:
    """One image of 1 x 2m x 2m patches per sample (m the spatial merge), flattened, with its grid;
    and the tokens it makes (m x m patches make one)."""
    patch, channels = _patch_and_channels(vision)
    merge = getattr(vision, "spatial_merge_size", None) or getattr(config, "spatial_merge_size", None) or 2
    temporal = getattr(vision, "temporal_patch_size", None) or 1
    side = 2 * merge
    images = {
        pixels: {"kind": "float", "shape": [BATCH * side * side, channels * temporal * patch * patch]},
        grid: {"kind": "constant", "value": [[1, side, side]] * BATCH},
    }
    if "image_merge_sizes" in parameters:
        images["image_merge_sizes"] = {"kind": "constant", "value": [merge] * BATCH}
    return images, (side // merge) ** 2


def _patch_and_channels(vision: Any) -> tuple[int, int]:
    """A vision tower's patch side (the first of a per-stage list) and input channels."""
    size = getattr(vision, "patch_size", None) or 14
    channels = getattr(vision, "in_channels", None) or getattr(vision, "num_channels", None) or 3
    return (size[0] if isinstance(size, (list, tuple)) else size), channels


def _with_placeholders(recipe: dict[str, Any], token: int, count: int) -> dict[str, Any]:
    """The text inputs lengthened by `count` image placeholder tokens at the start of each sample."""
    length = count + SEQUENCE
    updated = {"input_ids": {**recipe["input_ids"], "shape": [BATCH, length], "placeholders": [token, count]}}
    if "attention_mask" in recipe:
        updated["attention_mask"] = {**recipe["attention_mask"], "shape": [BATCH, length]}
    return updated


def bare_recipe(recipe: dict[str, Any]) -> dict[str, Any] | None:
    """The same call without what a user may leave out (the attention mask, the labels), as
    `model(input_ids)` is called: a model takes another path without a mask (LongT5 splits its
    input into blocks there). None when the recipe has nothing to leave out."""
    if BARE_REFUSED in recipe:
        return None
    bare = {key: spec for key, spec in recipe.items() if spec["kind"] not in ("mask", "labels")}
    return bare if len(bare) < len(recipe) else None


def build_inputs(recipe: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments a recipe describes (seeded: the same tensors every time)."""
    import torch

    generator = torch.Generator().manual_seed(0)
    inputs: dict[str, Any] = {}
    for key, spec in recipe.items():
        kind = spec["kind"]
        if kind == "ids":
            high = max(5, spec["high"])
            ids = torch.randint(4, high, spec["shape"], generator=generator)
            for avoid in spec.get("avoid", []):
                ids[ids == avoid] = 4 if avoid != 4 else 5
            if "placeholders" in spec:
                # An image's placeholder tokens first, then the text.
                token, count = spec["placeholders"]
                ids[:, :count] = token
            inputs[key] = ids
        elif kind == "mask":
            mask = torch.ones(spec["shape"], dtype=torch.long)
            mask[-1, spec["shape"][1] - spec["padding"] :] = 0
            inputs[key] = mask
        elif kind == "float":
            inputs[key] = torch.randn(spec["shape"], generator=generator)
        elif kind == "constant":
            inputs[key] = torch.tensor(spec["value"])
    for key, spec in recipe.items():
        if spec["kind"] == "labels":
            labels = inputs[spec["from"]].clone()
            if spec["from"] == "input_ids" and "attention_mask" in inputs:
                labels[inputs["attention_mask"] == 0] = -100
            inputs[key] = labels
    return inputs


_IMAGE_TOKENS = re.compile(r"tokens:?\s*(\d+),?\s*features:?\s*(\d+)", re.IGNORECASE)


def _calibrated(recipe: dict[str, Any], config: Any, error: str) -> dict[str, Any] | None:
    """A recipe changed to answer a model's own complaint about its inputs, or None."""
    image_token = _first(config, "image_token_id", "image_token_index")
    found = _IMAGE_TOKENS.search(error)
    if found and isinstance(image_token, int) and "input_ids" in recipe:
        # The count is of tokens, or of their elements (tokens times the text width).
        features = int(found.group(2))
        text = getattr(config, "text_config", None) or config
        width = getattr(text, "hidden_size", None) or 1
        counts = [features // (BATCH * width), features // BATCH, features]
        exact = [c for c, d in zip(counts, (BATCH * width, BATCH, 1)) if features % d == 0 and 0 < c <= 4096]
        if not exact:
            return None
        updated = {**recipe, **_with_placeholders(recipe, image_token, exact[0])}
        if "mm_token_type_ids" in recipe:
            updated["mm_token_type_ids"] = _token_types(updated["input_ids"])
        return updated
    return None


def hold_special_tokens(config: Any, overrides: dict[str, Any]) -> list[str]:
    """A default config whose special token (an image placeholder) lies past its vocabulary
    cannot embed it: the vocabulary grows to hold it (the checkpoints add such tokens)."""
    fixed = []
    largest = max(_special_ids(config), default=-1)
    for prefix, sub in _paths(config):
        vocabulary = getattr(sub, "vocab_size", None)
        if isinstance(vocabulary, int) and vocabulary <= largest:
            _set(config, prefix + "vocab_size", largest + 1, overrides)
            fixed.append(f"{prefix}vocab_size {vocabulary} -> {largest + 1} (holds token {largest})")
    return fixed


def probe(name: str) -> dict[str, Any]:
    """The config changes and input recipe for a class, checked by one eager call."""
    import torch
    import transformers

    cls = getattr(transformers, name)
    plain = _overrides(cls, reach=False)
    reached = _overrides(cls, reach=True)
    chosen = reached if reached["reached"] else plain
    try:
        model, recipe, inputs = _checked(name, chosen["overrides"])
    except RuntimeError as exc:
        if chosen is plain:
            raise
        # The model refuses the layers or windows reached: measured as its default config has them.
        model, recipe, inputs = _checked(name, plain["overrides"])
        chosen = {**plain, "reached": [f"not reached ({exc})"]}
    parameters = sum(parameter.numel() for parameter in model.parameters())
    return {**chosen, "recipe": recipe, "inputs": inputs, "parameters": parameters}


def _overrides(cls: Any, reach: bool) -> dict[str, Any]:
    """The config changes for a class: layers cut to 2, special tokens held, widths cut to the
    budget; with `reach`, every kind of layer and every window reached too."""
    overrides: dict[str, Any] = {}
    config = cls.config_class()
    completed = []
    for path, value in CHECKPOINT_FIELDS.get(type(config).__name__, {}).items():
        value = value(config) if callable(value) else value
        _set(config, path, value, overrides)
        completed.append(f"{path} = {value!r} (as the released checkpoint)")
    cut_layers(config, overrides)
    reached = reach_every_layer(config, overrides) if reach else []
    hold_special_tokens(config, overrides)
    for _ in range(3):
        try:
            shrunk = shrink(cls, config, overrides)
            break
        except AttributeError as exc:
            fixed = complete_config(config, str(exc), overrides)
            if fixed is None:
                raise
            completed.append(fixed)
    return {"overrides": overrides, "shrunk": shrunk, "reached": reached, "completed": completed}


def _checked(name: str, overrides: dict[str, Any]) -> tuple[Any, dict[str, Any], list[str]]:
    """The model built with `overrides`, an input recipe that one eager call takes, and notes on
    the inputs: images the model refused (then measured on its text), a call without the mask."""
    try:
        model = build_model(name, overrides)
    except Exception as exc:
        raise RuntimeError(f"build fails: {_first_line(exc)}") from None
    config = config_for(name, overrides)
    notes = []
    try:
        recipe = _eager_checked(model, initial_recipe(name, model, config))
    except RuntimeError as exc:
        text_only = initial_recipe(name, model, config, images=False)
        if text_only == initial_recipe(name, model, config):
            raise
        recipe = _eager_checked(model, text_only)
        notes.append(f"images refused ({exc}): measured on its text")
    bare = bare_recipe(recipe)
    if bare is not None:
        try:
            _eager_checked(model, bare, calibrate=False)
            notes.append("called with and without its attention mask")
        except RuntimeError:
            recipe = {**recipe, BARE_REFUSED: {"kind": "note"}}
    return model, recipe, notes


# A recipe entry saying the call without the optional inputs fails eagerly (it is not made).
BARE_REFUSED = "_bare_call_refused"


def _eager_checked(model: Any, recipe: dict[str, Any], calibrate: bool = True) -> dict[str, Any]:
    """The recipe (calibrated from the model's own complaint) once an eager call takes it."""
    import torch

    if not recipe:
        raise RuntimeError("no input recipe for its forward's parameters")
    for _ in range(3):
        try:
            with torch.no_grad():
                model(**build_inputs(recipe))
            return recipe
        except Exception as exc:  # the model's own complaint may say what it needs
            calibrated = _calibrated(recipe, model.config, str(exc)) if calibrate else None
            if calibrated is None:
                raise RuntimeError(f"eager call fails: {_first_line(exc)}") from None
            recipe = calibrated
    raise RuntimeError("eager call fails after three calibrations")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}"


def list_classes() -> list[str]:
    """Model classes of the installed transformers the survey's way: base `...Model`,
    `...ForCausalLM` and `...ForConditionalGeneration`, with a config class transformers exports."""
    import transformers

    names = []
    for name in sorted(dir(transformers)):
        if not name.endswith(("Model", "ForCausalLM", "ForConditionalGeneration")) or "retrained" in name:
            continue
        if name.endswith("Model") and "For" in name:
            continue
        try:
            cls = getattr(transformers, name)
        except Exception:  # a class whose optional dependency is missing
            continue
        if not inspect.isclass(cls) or not issubclass(cls, transformers.PreTrainedModel):
            continue
        config = getattr(cls, "config_class", None)
        if inspect.isclass(config) and hasattr(transformers, config.__name__):
            names.append(name)
    return names


if __name__ == "__main__":
    # python reach_models.py list | probe NAME: JSON on the last line of stdout.
    command = sys.argv[1]
    if command == "list":
        print(json.dumps(list_classes()))
    elif command == "probe":
        try:
            print(json.dumps({"ok": True, **probe(sys.argv[2])}))
        except Exception as exc:  # reported as why the model is not measured
            text = str(exc).strip()
            print(json.dumps({"ok": False, "error": f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}"}))
