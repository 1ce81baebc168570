# settings: assume_compiled=true unsafe_fixes=true
# Hugging Face's attention: a mask that keeps every position is dropped (so SDPA may take its
# fast path); a method form of the same test; a flag passed as an argument.
import tensorflow as tf
import torch


def prepare_mask(attention_mask, inputs_embeds):
    if attention_mask is not None and torch.all(attention_mask == 1):
        return None
    return attention_mask


def attend(query, key, value, attention_mask=None, cache_position=None):
    if attention_mask is not None and (attention_mask == 1).all():
        attention_mask = None
    is_causal = query.shape[2] > 1 and attention_mask is None
    return torch.nn.functional.scaled_dot_product_attention(
        query, key, value, attn_mask=attention_mask, is_causal=is_causal
    )


def mix(a, b):
    return torch.lerp(a, b, 0.5 if not a.allclose(b) else 0.0)


def combine(a, b):
    return _blend(a, b, same=torch.equal(a, b))


def first_padded(batch_ids, pad_token_id):
    if torch.all(batch_ids == pad_token_id).item():
        return True
    return tf.equal(batch_ids, pad_token_id)
