import { Worker } from "node:worker_threads";
import type { SearchMatch } from "../WorkspaceResults.js";
import { WorkspaceToolError } from "../WorkspaceToolError.js";
import { patternDetails, patternPreview, regexReason } from "./patternPreview.js";
import type { WalkedFile } from "./walkFiles.js";

/** Files larger than this are not searched (counted in `skipped.tooLarge`). */
export const SEARCH_FILE_BYTES = 4 * 1024 * 1024;
/** Longest line text returned per match; longer lines are windowed around the match. */
const LINE_CHARS = 400;

/** What a search found and what it could not look at. */
export interface SearchOutcome {
  matches: SearchMatch[];
  filesSearched: number;
  truncated: boolean;
  skipped: { binary: number; tooLarge: number; unreadable: number };
}

/**
 * The scan runs in a worker thread so that a pattern that backtracks catastrophically can be stopped:
 * a regular expression cannot be interrupted on the thread that runs it. Plain JavaScript, evaluated, so it
 * needs no build step.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { closeSync, constants, fstatSync, openSync, readFileSync, readlinkSync, realpathSync, statSync } = require("node:fs");
const path = require("node:path");
const { files, source, flags, maxResults, maxFileBytes, lineChars, root, fdLinks } = workerData;
const inside = (p) => { const r = path.relative(root, p); return r === "" || (!r.startsWith("..") && !path.isAbsolute(r)); };
// What is read is what was checked: the descriptor's own real path must be inside the root.
function readConfined(abs) {
  const fd = openSync(abs, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  try {
    const info = fstatSync(fd);
    let real;
    if (fdLinks) real = readlinkSync(fdLinks + "/" + fd);
    else {
      real = realpathSync(abs);
      const named = statSync(real);
      if (named.dev !== info.dev || named.ino !== info.ino) return "outside";
    }
    if (!inside(real)) return "outside";
    if (!info.isFile()) return "unreadable";
    if (info.size > maxFileBytes) return "tooLarge";
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}
const re = new RegExp(source, flags);
const out = { matches: [], filesSearched: 0, truncated: false, skipped: { binary: 0, tooLarge: 0, unreadable: 0 } };
outer: for (const file of files) {
  let buf;
  try {
    buf = readConfined(file.abs);
  } catch { out.skipped.unreadable++; continue; }
  if (buf === "tooLarge") { out.skipped.tooLarge++; continue; }
  if (typeof buf === "string") { out.skipped.unreadable++; continue; }
  if (buf.subarray(0, 8000).includes(0)) { out.skipped.binary++; continue; }
  out.filesSearched++;
  const lines = buf.toString("utf8").split(/\\r?\\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const m = re.exec(line);
    if (!m) continue;
    if (out.matches.length >= maxResults) { out.truncated = true; break outer; }
    let text = line;
    if (line.length > lineChars) {
      const from = Math.max(0, m.index - Math.floor(lineChars / 4));
      text = (from > 0 ? "…" : "") + line.slice(from, from + lineChars) + (from + lineChars < line.length ? "…" : "");
    }
    out.matches.push({ path: file.rel, line: i + 1, column: m.index + 1, text, match: m[0].slice(0, lineChars) });
  }
}
parentPort.postMessage(out);
`;

/**
 * Compiles the pattern here first, so a bad one is an `invalid_pattern` refusal rather than a failure of
 * the search. V8 parses a pattern when it is constructed but compiles it only when it first runs: a
 * pattern too large to compile (a 1 MB literal) constructs fine and failed in the worker's first exec,
 * which came back as `internal`. Running it once on the empty string compiles it, at no risk of
 * backtracking.
 */
function compileRegex(source: string, caseSensitive: boolean): string {
  const flags = caseSensitive ? "" : "i";
  try {
    new RegExp(source, flags).test("");
  } catch (error) {
    throw invalidPattern(source, error);
  }
  return flags;
}

function invalidPattern(source: string, error: unknown): WorkspaceToolError {
  return new WorkspaceToolError(
    "invalid_pattern",
    `pattern ${patternPreview(source)} is not a valid regular expression: ${regexReason(error)}`,
    patternDetails(source),
  );
}

/** Searches `files` line by line for `source`, stopping at `maxResults` matches or after `timeoutMs`. */
export function searchFiles(
  files: readonly WalkedFile[],
  source: string,
  options: { root: string; caseSensitive: boolean; maxResults: number; timeoutMs: number; signal?: AbortSignal },
): Promise<SearchOutcome> {
  const flags = compileRegex(source, options.caseSensitive);
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        files: files.map((f) => ({ rel: f.rel, abs: f.abs })),
        source,
        flags,
        maxResults: options.maxResults,
        maxFileBytes: SEARCH_FILE_BYTES,
        lineChars: LINE_CHARS,
        root: options.root,
        fdLinks: process.platform === "linux" ? "/proc/self/fd" : null,
      },
      resourceLimits: { maxOldGenerationSizeMb: 512 },
    });
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      void worker.terminate();
      fn();
    };
    const timer = setTimeout(
      () =>
        settle(() =>
          reject(
            new WorkspaceToolError(
              "search_timeout",
              `search for ${JSON.stringify(source)} did not finish within ${options.timeoutMs} ms and was stopped; ` +
                "simplify the pattern (nested quantifiers such as (a+)+ backtrack exponentially) or narrow path/pattern",
              { pattern: source, timeoutMs: options.timeoutMs },
            ),
          ),
        ),
      options.timeoutMs,
    );
    const onAbort = (): void =>
      settle(() =>
        reject(new WorkspaceToolError("search_timeout", "search cancelled by the client", { pattern: source })),
      );
    options.signal?.addEventListener("abort", onAbort, { once: true });
    worker.once("message", (outcome: SearchOutcome) => settle(() => resolve(outcome)));
    worker.once("error", (error) =>
      settle(() =>
        reject(
          // The pattern was compiled above with the same flags; should the worker still refuse it, it is the pattern's fault.
          error.name === "SyntaxError"
            ? invalidPattern(source, error)
            : new WorkspaceToolError("internal", `search failed: ${error.message.slice(0, 500)}`),
        ),
      ),
    );
    worker.once("exit", (code) =>
      settle(() => reject(new WorkspaceToolError("internal", `search worker exited with ${code} before answering`))),
    );
  });
}
