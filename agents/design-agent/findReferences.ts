import { posix } from "node:path";

// Quoted strings (imports, href/src attributes, JSON) and CSS url(...) values: where one file names another.
const QUOTED = /["'`]([^"'`\s]{1,300})["'`]/g;
const CSS_URL = /url\(\s*([^)"'\s]{1,300})\s*\)/g;

function candidates(text: string): string[] {
  const found: string[] = [];
  for (const re of [QUOTED, CSS_URL]) for (const m of text.matchAll(re)) if (m[1]) found.push(m[1]);
  return found;
}

/** The root-relative path a reference in `from` points at (query and hash dropped), or undefined for URLs. */
function target(from: string, spec: string): string | undefined {
  const bare = spec.replace(/[?#].*$/, "");
  if (!bare || /^[a-z][a-z0-9+.-]*:/i.test(bare) || bare.startsWith("//")) return undefined;
  const joined = bare.startsWith("/") ? bare.slice(1) : posix.join(posix.dirname(from), bare);
  return posix.normalize(joined).replace(/\/$/, "");
}

/** True when `spec`, written in `from`, names `file` (an import may leave out the extension or `/index`). */
function names(from: string, spec: string, file: string): boolean {
  const path = target(from, spec);
  if (!path) return false;
  const ext = posix.extname(file);
  const stem = file.slice(0, file.length - ext.length);
  return path === file || path === stem || (posix.basename(stem) === "index" && path === posix.dirname(file));
}

/** For each of `files`, the other files whose text references it. */
export function findReferences(
  files: readonly string[],
  texts: ReadonlyArray<{ path: string; text: string }>,
): Map<string, string[]> {
  const referrers = new Map(files.map((f) => [f, [] as string[]]));
  for (const { path, text } of texts) {
    const specs = candidates(text);
    for (const file of files)
      if (file !== path && specs.some((spec) => names(path, spec, file))) referrers.get(file)?.push(path);
  }
  return referrers;
}
