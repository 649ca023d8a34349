// Reads one JSON array [encoding, text] per line on standard input and
// writes, per line, the JSON array of the text's token ranks under OpenAI's
// tokenizer (the Rust tiktoken compiled to WASM), special tokens counted as
// ordinary text: encode_ordinary.
"use strict";
const readline = require("node:readline");
const { get_encoding } = require("tiktoken");

const encodings = new Map();
function encoding(name) {
  let e = encodings.get(name);
  if (e === undefined) {
    e = get_encoding(name);
    encodings.set(name, e);
  }
  return e;
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  const [name, text] = JSON.parse(line);
  const ranks = encoding(name).encode_ordinary(text);
  process.stdout.write(JSON.stringify(Array.from(ranks)) + "\n");
});
