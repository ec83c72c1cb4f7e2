// Writes the reference encodings of reference-texts.json (a JSON array of texts) with OpenAI's
// tiktoken: the npm package "tiktoken" 1.0.22, its Rust core compiled to WebAssembly. Regenerate:
//   (cd /tmp/ref && npm install tiktoken@1.0.22)
//   NODE_PATH=/tmp/ref/node_modules node reference.js reference-texts.json > reference.jsonl
const { get_encoding } = require("tiktoken");
const fs = require("fs");
const texts = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const out = [];
for (const enc of ["o200k_base", "cl100k_base"]) {
  const e = get_encoding(enc);
  for (const text of texts) out.push({ encoding: enc, text, ids: Array.from(e.encode_ordinary(text)) });
  e.free();
}
process.stdout.write(out.map((o) => JSON.stringify(o)).join("\n") + "\n");
