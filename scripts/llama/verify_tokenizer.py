#!/usr/bin/env python3
"""Checks a running tiny-llama3 llama-server against the Llama 3 tokenizer.json.

1. /tokenize (no special tokens added) gives the same ids as tokenizer.json for a set of texts.
2. /v1/completions: usage.prompt_tokens == len(encode(prompt)) + 1 (the BOS the server adds),
   usage.completion_tokens == max_tokens (ignore_eos) == len(encode(generated text)).
3. /v1/chat/completions: usage.prompt_tokens == len(encode(template(messages))), where the
   template is tokenizer_config.json's chat_template rendered with add_generation_prompt=True
   and the rendered special tokens (<|begin_of_text|>, <|start_header_id|>...) count as one
   token each; usage.completion_tokens == len(encode(content)).
Each of 2 and 3 is checked streaming (stream_options.include_usage) and not.
Exits 1 on any mismatch. Needs the PyPI packages tokenizers and jinja2.
"""

import argparse
import json
import random
import sys
import urllib.request

import jinja2
from tokenizers import Tokenizer

TEXTS = [
    "Hello world",
    "The quick brown fox jumps over the lazy dog.",
    "  leading and trailing spaces  ",
    "tabs\tand\nnewlines\r\n\n\nend",
    "numbers 1 12 123 1234 12345 3.14159 -42 1e10",
    "contractions: I'm, you're, it's, we'll, they'd, can't, I've",
    "Unicode: café naïve résumé Ünïcödé ß Ελληνικά русский",
    "CJK: 你好，世界。日本語のテキスト。한국어",
    "emoji: 😀🎉👍🏽 👨‍👩‍👧‍👦",
    "code: def f(x):\n    return {'a': [1, 2, 3]}  # comment\n",
    "special tokens in text: <|begin_of_text|>hi<|eot_id|>",
    "",
]


def post(url, body):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.load(resp)


def post_stream(url, body):
    """Returns (concatenated text, usage, number of data chunks) of an SSE response."""
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    text, usage, chunks = [], None, 0
    with urllib.request.urlopen(req, timeout=60) as resp:
        for raw in resp:
            line = raw.decode().strip()
            if not line.startswith("data:"):
                continue
            data = line[len("data:"):].strip()
            if data == "[DONE]":
                break
            ev = json.loads(data)
            chunks += 1
            for ch in ev.get("choices") or []:
                text.append(ch.get("text") or (ch.get("delta") or {}).get("content") or "")
            if ev.get("usage"):
                usage = ev["usage"]
    return "".join(text), usage, chunks


def synthetic_text(n_words, seed):
    rng = random.Random(seed)
    words = ["the", "model", "server", "token", "Llama", "benchmark", "latency", "ünïcode",
             "数据", "🙂", "123", "4567", "it's", "(x)", "==", "\n", "\t", "  ", "."]
    return " ".join(rng.choice(words) for _ in range(n_words))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--tokenizer-config", required=True)
    args = ap.parse_args()

    tok = Tokenizer.from_file(args.tokenizer)
    with open(args.tokenizer_config, encoding="utf-8") as f:
        config = json.load(f)
    template = jinja2.Environment().from_string(config["chat_template"])
    failures = 0

    def check(what, got, want):
        nonlocal failures
        ok = got == want
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {what}: server {got}, expected {want}")

    def encode(s):
        return tok.encode(s, add_special_tokens=False).ids

    # 1. /tokenize
    texts = TEXTS + [synthetic_text(5000, 1)]
    same = 0
    for s in texts:
        ids = post(args.url + "/tokenize", {"content": s, "add_special": False})["tokens"]
        if ids == encode(s):
            same += 1
        else:
            print(f"FAIL /tokenize {s[:40]!r}: server {ids[:12]}..., tokenizer.json {encode(s)[:12]}...")
    check("/tokenize texts identical", same, len(texts))
    ids = post(args.url + "/tokenize", {"content": "Hello world", "add_special": True})["tokens"]
    check("/tokenize add_special prepends BOS 128000", ids, [128000] + encode("Hello world"))

    # 2. /v1/completions
    for prompt in ["Hello world", synthetic_text(300, 2)]:
        n = len(encode(prompt))
        for stream in (False, True):
            body = {"model": args.model, "prompt": prompt, "max_tokens": 40, "ignore_eos": True}
            if stream:
                body |= {"stream": True, "stream_options": {"include_usage": True}}
                text, usage, chunks = post_stream(args.url + "/v1/completions", body)
            else:
                r = post(args.url + "/v1/completions", body)
                text, usage, chunks = r["choices"][0]["text"], r["usage"], 1
            tag = f"completions stream={stream} prompt={n} tokens"
            print(f"     {tag} usage={usage} chunks={chunks}")
            check(f"{tag}: prompt_tokens = ours + 1", usage["prompt_tokens"], n + 1)
            check(f"{tag}: completion_tokens = max_tokens", usage["completion_tokens"], 40)
            check(f"{tag}: completion_tokens = ours on the text", usage["completion_tokens"], len(encode(text)))

    # 3. /v1/chat/completions
    conversations = [
        [{"role": "user", "content": "Hello world"}],
        [{"role": "user", "content": "  padded  "}],
        [{"role": "system", "content": "You are terse."}, {"role": "user", "content": synthetic_text(200, 3)}],
        [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello there"},
         {"role": "user", "content": "and again"}],
    ]
    for msgs in conversations:
        rendered = template.render(messages=msgs, bos_token=config["bos_token"], add_generation_prompt=True)
        want = len(encode(rendered))
        content = sum(len(encode(m["content"])) for m in msgs)
        for stream in (False, True):
            body = {"model": args.model, "messages": msgs, "max_tokens": 40, "ignore_eos": True}
            if stream:
                body |= {"stream": True, "stream_options": {"include_usage": True}}
                text, usage, chunks = post_stream(args.url + "/v1/chat/completions", body)
            else:
                r = post(args.url + "/v1/chat/completions", body)
                text, usage, chunks = r["choices"][0]["message"]["content"], r["usage"], 1
            tag = f"chat stream={stream} {len(msgs)} msgs content={content} tokens"
            print(f"     {tag} usage={usage} chunks={chunks} text={text[:40]!r}")
            check(f"{tag}: prompt_tokens = template tokens", usage["prompt_tokens"], want)
            check(f"{tag}: completion_tokens = ours on the content", usage["completion_tokens"], len(encode(text)))
        print(f"     overhead: template {want} - content {content} = {want - content} "
              f"(1 + 5 per message + 4 = {1 + 5 * len(msgs) + 4} when trim changes nothing)")

    if failures:
        print(f"{failures} check(s) failed")
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
