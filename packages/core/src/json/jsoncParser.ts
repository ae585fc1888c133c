import { createRequire } from "node:module";

type JsoncParser = typeof import("jsonc-parser");

let loaded: JsoncParser | undefined;

/**
 * jsonc-parser, loaded on first use: to say where a text that is not JSON goes wrong, and for edits
 * that keep every other byte of a file (the write-back's general path, `flow reset`). A run whose PRD
 * is valid and nobody edited never loads it.
 */
export function jsoncParser(): JsoncParser {
  loaded ??= createRequire(import.meta.url)("jsonc-parser") as JsoncParser;
  return loaded;
}
