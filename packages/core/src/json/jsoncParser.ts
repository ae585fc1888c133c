import { createRequire } from "node:module";

type JsoncParser = typeof import("jsonc-parser");

let loaded: JsoncParser | undefined;

/**
 * jsonc-parser, loaded on first use: to say where a text that is not JSON goes wrong, and for edits
 * that keep every other byte of a file (a story's `passes` and `notes`, and the write-back's general
 * path). A command that never writes a valid PRD never loads it.
 */
export function jsoncParser(): JsoncParser {
  loaded ??= createRequire(import.meta.url)("jsonc-parser") as JsoncParser;
  return loaded;
}
