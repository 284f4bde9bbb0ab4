#!/usr/bin/env python3
"""A tiny llama-architecture GGUF for the llama-server tests: random weights, a real tokenizer.

    python3 tiny-model.py --tree <llama.cpp tree> --vocab qwen2|llama-bpe|llama-spm --out model.gguf [--endless]

Written with the gguf-py package of that llama.cpp tree. The tokenizer is copied
whole (every tokenizer.ggml.* key and array) from the tree's
models/ggml-vocab-<vocab>.gguf; the chat template is Qwen2.5-Instruct's, with
tools (the same text as the tree's models/templates/Qwen-Qwen2.5-7B-Instruct.jinja),
so `llama-server --jinja` parses <tool_call> blocks.

The weights are random (seeded: the same file every time) but shaped so the
end of generation is controlled. Embedding dimension 0 carries a constant that
no layer writes to, so after the final RMS norm it is always large and
positive; each end-of-generation token's row of output.weight reads only that
dimension:
  - default: those logits sit just above the random ones, so with llama.cpp's
    default sampling a reply stops after some tens of tokens;
  - --endless: those logits (and every control token's) are hugely negative:
    the model never stops, and a request without max_tokens fills the context.
"""
import argparse
import sys
from pathlib import Path

import numpy as np

QWEN25_TEMPLATE = r"""{%- if tools %}
    {{- '<|im_start|>system\n' }}
    {%- if messages[0]['role'] == 'system' %}
        {{- messages[0]['content'] }}
    {%- else %}
        {{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.' }}
    {%- endif %}
    {{- "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>" }}
    {%- for tool in tools %}
        {{- "\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n" }}
{%- else %}
    {%- if messages[0]['role'] == 'system' %}
        {{- '<|im_start|>system\n' + messages[0]['content'] + '<|im_end|>\n' }}
    {%- else %}
        {{- '<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n' }}
    {%- endif %}
{%- endif %}
{%- for message in messages %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>' + '\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- if message.content %}
            {{- '\n' + message.content }}
        {%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}
                {%- set tool_call = tool_call.function %}
            {%- endif %}
            {{- '\n<tool_call>\n{"name": "' }}
            {{- tool_call.name }}
            {{- '", "arguments": ' }}
            {{- tool_call.arguments | tojson }}
            {{- '}\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\n' }}
    {%- elif message.role == "tool" %}
        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\n<tool_response>\n' }}
        {{- message.content }}
        {{- '\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
{%- endif %}
"""

# The texts llama.cpp itself treats as end of generation (llama-vocab.cpp), when they are in the vocab.
EOG_TEXTS = {'<|endoftext|>', '<|im_end|>', '<|eot_id|>', '<|eom_id|>', '</s>', '<|end|>', '<end_of_turn>',
             '<|end_of_text|>', '<|return|>', '<|call|>', '<|fim_pad|>', '<|repo_name|>', '<|file_sep|>', '<EOT>'}

N_EMBD, N_LAYER, N_HEAD, N_HEAD_KV, N_FF = 64, 2, 4, 4, 128
CTX_TRAIN = 32768


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument('--tree', required=True, help='the llama.cpp source tree (gguf-py, models/ggml-vocab-*.gguf)')
    ap.add_argument('--vocab', required=True, choices=['qwen2', 'llama-bpe', 'llama-spm'])
    ap.add_argument('--out', required=True)
    ap.add_argument('--endless', action='store_true', help='end-of-generation never wins: the context fills')
    args = ap.parse_args()

    tree = Path(args.tree)
    sys.path.insert(0, str(tree / 'gguf-py'))
    import gguf  # noqa: E402  (the tree's own gguf-py, matching the llama-server built from it)

    reader = gguf.GGUFReader(tree / 'models' / f'ggml-vocab-{args.vocab}.gguf')
    writer = gguf.GGUFWriter(args.out, 'llama')
    writer.add_name(f'skein-tiny-{args.vocab}{"-endless" if args.endless else ""}')
    writer.add_context_length(CTX_TRAIN)
    writer.add_embedding_length(N_EMBD)
    writer.add_block_count(N_LAYER)
    writer.add_feed_forward_length(N_FF)
    writer.add_head_count(N_HEAD)
    writer.add_head_count_kv(N_HEAD_KV)
    writer.add_rope_dimension_count(N_EMBD // N_HEAD)
    writer.add_rope_freq_base(10000.0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)

    tokens: list[str] = []
    token_types: list[int] = []
    special_ids: list[int] = []
    for key, field in reader.fields.items():
        if not key.startswith('tokenizer.ggml.'):
            continue
        main = field.types[0]
        if main == gguf.GGUFValueType.ARRAY:
            values = field.contents()
            writer.add_key_value(key, values, main, sub_type=field.types[-1])
            if key == 'tokenizer.ggml.tokens':
                tokens = values
            elif key == 'tokenizer.ggml.token_type':
                token_types = values
        else:
            value = field.contents()
            writer.add_key_value(key, value, main)
            if key in ('tokenizer.ggml.eos_token_id', 'tokenizer.ggml.eot_token_id', 'tokenizer.ggml.eom_token_id'):
                special_ids.append(int(value))
    if not tokens:
        raise SystemExit(f'no tokenizer.ggml.tokens in ggml-vocab-{args.vocab}.gguf')
    writer.add_chat_template(QWEN25_TEMPLATE)

    n_vocab = len(tokens)
    control = {i for i, t in enumerate(token_types) if t == gguf.TokenType.CONTROL}
    eog = sorted({i for i, text in enumerate(tokens) if text in EOG_TEXTS} | {i for i in special_ids if 0 <= i < n_vocab})

    rng = np.random.default_rng(38)
    f16 = np.float16

    def rand(*shape: int, scale: float) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    # numpy shapes are (rows, cols) = GGUF's (ne1, ne0): a weight maps ne0 inputs to ne1 outputs.
    embd = rand(n_vocab, N_EMBD, scale=1.0)
    embd[:, 0] = 8.0  # the constant channel
    writer.add_tensor('token_embd.weight', embd.astype(f16))
    for layer in range(N_LAYER):
        p = f'blk.{layer}.'
        writer.add_tensor(p + 'attn_norm.weight', np.ones(N_EMBD, dtype=np.float32))
        writer.add_tensor(p + 'attn_q.weight', rand(N_EMBD, N_EMBD, scale=0.1).astype(f16))
        writer.add_tensor(p + 'attn_k.weight', rand(N_EMBD * N_HEAD_KV // N_HEAD, N_EMBD, scale=0.1).astype(f16))
        writer.add_tensor(p + 'attn_v.weight', rand(N_EMBD * N_HEAD_KV // N_HEAD, N_EMBD, scale=0.1).astype(f16))
        wo = rand(N_EMBD, N_EMBD, scale=0.1)
        wo[0, :] = 0  # nothing writes to the constant channel
        writer.add_tensor(p + 'attn_output.weight', wo.astype(f16))
        writer.add_tensor(p + 'ffn_norm.weight', np.ones(N_EMBD, dtype=np.float32))
        writer.add_tensor(p + 'ffn_gate.weight', rand(N_FF, N_EMBD, scale=0.1).astype(f16))
        writer.add_tensor(p + 'ffn_up.weight', rand(N_FF, N_EMBD, scale=0.1).astype(f16))
        down = rand(N_EMBD, N_FF, scale=0.1)
        down[0, :] = 0
        writer.add_tensor(p + 'ffn_down.weight', down.astype(f16))
    writer.add_tensor('output_norm.weight', np.ones(N_EMBD, dtype=np.float32))

    # After the norm, dimension 0 is about 8 / rms ≈ 5.6 and the others about 0.7 each:
    # the random logits have a spread of about 0.55 (the largest of 150k about 2.5).
    out = rand(n_vocab, N_EMBD, scale=0.1)
    out[:, 0] = 0
    if args.endless:
        for i in sorted(set(eog) | control):
            out[i, :] = 0
            out[i, 0] = -100.0  # a logit near -560: never sampled, not even greedily
    else:
        for i in eog:
            out[i, :] = 0
            out[i, 0] = 0.47  # a logit near 2.6, among the top few: a stop every few tens of tokens
    writer.add_tensor('output.weight', out.astype(f16))

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


if __name__ == '__main__':
    main()
