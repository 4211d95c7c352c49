// Independent ground-truth o200k_base token ids for the builtin tokenizer's tests.
//
//   node tiktoken.mjs NODE_MODULES TEXT_FILE... > ids.json
//
// Loads OpenAI's tiktoken (the npm package: its Rust core compiled to WebAssembly, with the
// o200k_base ranks bundled) from NODE_MODULES, encodes the UTF-8 text of each TEXT_FILE with
// encode_ordinary (special-token text as plain text), and writes {"encoder", "files": [{"name",
// "text_bytes", "text_sha256", "ids"}]} as JSON, name being the file's base name.
// scripts/tokenizers.sh runs this.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, join } from "node:path";

const [nodeModules, ...textFiles] = process.argv.slice(2);
if (!nodeModules || textFiles.length === 0) {
  process.stderr.write("usage: node tiktoken.mjs NODE_MODULES TEXT_FILE...\n");
  process.exit(2);
}

const require = createRequire(join(nodeModules, "tiktoken", "package.json"));
const { get_encoding } = require("tiktoken");
const version = JSON.parse(readFileSync(join(nodeModules, "tiktoken", "package.json"), "utf8")).version;

const enc = get_encoding("o200k_base");
const files = textFiles.map((textFile) => {
  const bytes = readFileSync(textFile);
  const ids = Array.from(enc.encode_ordinary(bytes.toString("utf8")));
  if (ids.length === 0 || !ids.every(Number.isInteger)) {
    throw new Error(`tiktoken: encode_ordinary of ${textFile} returned no integer ids`);
  }
  return {
    name: basename(textFile),
    text_bytes: bytes.length,
    text_sha256: createHash("sha256").update(bytes).digest("hex"),
    ids,
  };
});
enc.free();

process.stdout.write(JSON.stringify({ encoder: `tiktoken@${version}`, files }) + "\n");
