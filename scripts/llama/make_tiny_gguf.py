#!/usr/bin/env python3
"""Writes a tiny random-weight Llama GGUF that carries the real Llama 3 tokenizer.

The tokenizer (tokens, token types, merges, BOS) is copied from llama.cpp's
models/ggml-vocab-llama-bpe.gguf. Before writing, it is checked against the Hugging Face
tokenizer.json the client side uses (Meta-Llama-3-8B-Instruct): same 128256 tokens in the same
order, same merges, same special tokens, same BOS. EOS is <|eot_id|>, BOS is added to plain
prompts (as in real Llama 3 GGUFs) and the chat template is the one in tokenizer_config.json, so
llama-server counts prompt tokens exactly as a Llama 3 8B Instruct deployment would.

The weights are random (seeded, so the file is byte-for-byte reproducible): generated text is
gibberish, but tokenization, batching, streaming and timing are real. By default the weights
are shaped so that the model only ever samples "word" tokens: a space followed by 2+ lowercase
ASCII letters ("Ġhello"), whose bare form ("hello") is a token too. Any sequence of them
detokenizes to text that the Llama 3 tokenizer encodes back to exactly as many tokens (even
when a server strips the leading space), so a client's output token count equals the server's
usage.completion_tokens. --output-tokens any samples the whole vocabulary instead.

Needs numpy and llama.cpp's gguf-py on PYTHONPATH.
"""

import argparse
import json
import re
import sys

import numpy as np
from gguf import GGUFReader, GGUFWriter, LlamaFileType, TokenType

BOS = "<|begin_of_text|>"
EOS = "<|eot_id|>"


def read_vocab(path):
    """Returns (tokens, token_types, merges, fields) from a vocab-only GGUF."""
    reader = GGUFReader(path)
    fields = {k: f.contents() for k, f in reader.fields.items() if not k.startswith("GGUF.")}
    for key in ("tokenizer.ggml.tokens", "tokenizer.ggml.token_type", "tokenizer.ggml.merges"):
        if key not in fields:
            sys.exit(f"{path}: no {key}")
    if fields.get("tokenizer.ggml.model") != "gpt2" or fields.get("tokenizer.ggml.pre") != "llama-bpe":
        sys.exit(f"{path}: not a llama-bpe vocabulary")
    return (
        fields["tokenizer.ggml.tokens"],
        [int(t) for t in fields["tokenizer.ggml.token_type"]],
        fields["tokenizer.ggml.merges"],
        fields,
    )


def check_against_tokenizer_json(path, tokens, types, merges, bos_id):
    """Exits unless tokenizer.json has exactly the GGUF's vocabulary, merges and specials."""
    with open(path, encoding="utf-8") as f:
        tj = json.load(f)
    model = tj["model"]
    if model.get("type") != "BPE":
        sys.exit(f"{path}: model type {model.get('type')}, want BPE")
    by_id = {}
    for tok, i in model["vocab"].items():
        by_id[i] = tok
    special = set()
    for added in tj.get("added_tokens", []):
        by_id[added["id"]] = added["content"]
        if added.get("special"):
            special.add(added["id"])
    if sorted(by_id) != list(range(len(tokens))):
        sys.exit(f"{path}: {len(by_id)} token ids, GGUF has {len(tokens)}")
    bad = [i for i in range(len(tokens)) if by_id[i] != tokens[i]]
    if bad:
        i = bad[0]
        sys.exit(f"{path}: {len(bad)} tokens differ from the GGUF, first id {i}: {by_id[i]!r} vs {tokens[i]!r}")
    tj_merges = [m if isinstance(m, str) else " ".join(m) for m in model["merges"]]
    if tj_merges != list(merges):
        sys.exit(f"{path}: merges differ from the GGUF ({len(tj_merges)} vs {len(merges)})")
    control = {i for i, t in enumerate(types) if t == TokenType.CONTROL}
    if special != control:
        sys.exit(f"{path}: special tokens differ from the GGUF's control tokens "
                 f"({len(special)} vs {len(control)})")
    if by_id[bos_id] != BOS:
        sys.exit(f"GGUF BOS id {bos_id} is {by_id[bos_id]!r}, want {BOS}")
    print(f"tokenizer.json agrees with the GGUF vocab: {len(tokens)} tokens, "
          f"{len(merges)} merges, {len(special)} special tokens", file=sys.stderr)


def word_tokens(tokens, types):
    """Returns the ids of normal tokens "Ġ" + [a-z]{2,} whose bare form is also a token."""
    known = set(tokens)
    word = re.compile(r"\u0120[a-z]{2,}")
    return [i for i, t in enumerate(tokens)
            if types[i] == TokenType.NORMAL and word.fullmatch(t) and t[1:] in known]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vocab", required=True, help="llama.cpp models/ggml-vocab-llama-bpe.gguf")
    ap.add_argument("--tokenizer", required=True, help="Llama 3 tokenizer.json to check against")
    ap.add_argument("--tokenizer-config", required=True, help="tokenizer_config.json (chat template)")
    ap.add_argument("--out", required=True, help="output .gguf")
    ap.add_argument("--name", default="tiny-llama3")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--embd", type=int, default=64)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--heads-kv", type=int, default=4)
    ap.add_argument("--ff", type=int, default=128)
    # llama-server runs with -c 16384 -np 4 (4096 per slot); a training context of at least
    # that avoids "n_ctx_seq > n_ctx_train" warnings. Random weights do not care.
    ap.add_argument("--ctx", type=int, default=16384)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--output-tokens", choices=("words", "any"), default="words",
                    help="which tokens the model samples (see above)")
    args = ap.parse_args()

    tokens, types, merges, fields = read_vocab(args.vocab)
    bos_id = int(fields["tokenizer.ggml.bos_token_id"])
    check_against_tokenizer_json(args.tokenizer, tokens, types, merges, bos_id)
    with open(args.tokenizer_config, encoding="utf-8") as f:
        config = json.load(f)
    template = config["chat_template"]
    if config.get("bos_token") != BOS or config.get("eos_token") != EOS:
        sys.exit(f"{args.tokenizer_config}: bos/eos {config.get('bos_token')}/{config.get('eos_token')}, "
                 f"want {BOS}/{EOS}")
    eos_id = tokens.index(EOS)

    n_vocab, n_embd, n_ff = len(tokens), args.embd, args.ff
    head_dim = n_embd // args.heads
    n_embd_kv = head_dim * args.heads_kv

    w = GGUFWriter(args.out, "llama")
    w.add_name(args.name)
    w.add_context_length(args.ctx)
    w.add_embedding_length(n_embd)
    w.add_block_count(args.layers)
    w.add_feed_forward_length(n_ff)
    w.add_head_count(args.heads)
    w.add_head_count_kv(args.heads_kv)
    w.add_rope_dimension_count(head_dim)
    w.add_rope_freq_base(500000.0)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(n_vocab)
    w.add_file_type(LlamaFileType.MOSTLY_F16)

    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("llama-bpe")
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(merges)
    w.add_bos_token_id(bos_id)
    w.add_eos_token_id(eos_id)
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)
    w.add_chat_template(template)

    rng = np.random.default_rng(args.seed)

    def mat(rows, cols, dtype=np.float16):
        # numpy shape (rows, cols) is ggml ne = [cols, rows]: a weight mapping cols -> rows.
        return (rng.standard_normal((rows, cols), dtype=np.float32) * 0.02).astype(dtype)

    ones = np.ones(n_embd, dtype=np.float32)
    embd = mat(n_vocab, n_embd, np.float32)
    out = mat(n_vocab, n_embd, np.float32)
    if args.output_tokens == "words":
        allowed = word_tokens(tokens, types)
        # Every token embedding gets a large constant in dimension 0, so after the final RMS norm
        # the hidden state is ~+8 there (the layers add ~0.03). Output rows of allowed tokens have
        # +2 in dimension 0, all others -2: a logit gap of ~30, so nothing else is ever sampled.
        embd[:, 0] = 1.0
        out[:, 0] = -2.0
        out[allowed, 0] = 2.0
        print(f"output restricted to {len(allowed)} word tokens", file=sys.stderr)
    w.add_tensor("token_embd.weight", embd.astype(np.float16))
    for i in range(args.layers):
        p = f"blk.{i}."
        w.add_tensor(p + "attn_norm.weight", ones)
        w.add_tensor(p + "attn_q.weight", mat(n_embd, n_embd))
        w.add_tensor(p + "attn_k.weight", mat(n_embd_kv, n_embd))
        w.add_tensor(p + "attn_v.weight", mat(n_embd_kv, n_embd))
        w.add_tensor(p + "attn_output.weight", mat(n_embd, n_embd))
        w.add_tensor(p + "ffn_norm.weight", ones)
        w.add_tensor(p + "ffn_gate.weight", mat(n_ff, n_embd))
        w.add_tensor(p + "ffn_up.weight", mat(n_ff, n_embd))
        w.add_tensor(p + "ffn_down.weight", mat(n_embd, n_ff))
    w.add_tensor("output_norm.weight", ones)
    w.add_tensor("output.weight", out.astype(np.float16))

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    print(f"wrote {args.out}: llama, {args.layers} layers, n_embd {n_embd}, {args.heads} heads "
          f"({args.heads_kv} kv), ff {n_ff}, ctx {args.ctx}, vocab {n_vocab}, seed {args.seed}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
