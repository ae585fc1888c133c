import type { WorkspaceFile, WorkspaceFiles } from "../shared/WorkspaceFiles.js";
import type { RefactorConfig } from "./config.js";
import { type DuplicateBlock, findDuplicates, formatCopies } from "./findDuplicates.js";

/** A measured file. */
interface Measured {
  path: string;
  bytes: number;
  lines: number | null;
}

/** What the measurement found, and the evidence the step records. */
export type Measurement =
  | { problems: string[]; summary: string; evidence: Record<string, unknown> }
  | { blocked: string; evidence: Record<string, unknown> };

/** Lines as editors count them: a last line without a newline counts too. */
function countLines(text: string): number {
  if (!text) return 0;
  const newlines = text.split("\n").length - 1;
  return text.endsWith("\n") ? newlines : newlines + 1;
}

function describe(file: Measured, config: RefactorConfig): string | undefined {
  const over: string[] = [];
  if (file.lines !== null && file.lines > config.maxLines) over.push(`${file.lines} lines > ${config.maxLines}`);
  if (file.bytes > config.maxBytes) over.push(`${file.bytes} bytes > ${config.maxBytes}`);
  return over.length ? `${file.path}: ${over.join(", ")}` : undefined;
}

/**
 * Measures the files of the configured scope: sizes and line counts (from the listing tool when it
 * reports them, else from the files' text), duplicated blocks (from the text), against the limits.
 */
export async function measureWorkspace(files: WorkspaceFiles, config: RefactorConfig): Promise<Measurement> {
  const listing = await files.list(config);
  const tools = files.tools;
  const scope = { paths: config.paths, include: config.include, exclude: config.exclude };
  if (listing.truncated)
    return {
      blocked: `the listing stopped at ${listing.files.length} files; narrow "paths" or "include" so every file is measured`,
      evidence: { tools, scope },
    };
  if (!listing.files.length)
    return {
      blocked: `no file matches the scope ${JSON.stringify(scope)}: nothing to measure`,
      evidence: { tools, scope },
    };

  const needText = config.duplicates.enabled || listing.files.some((f) => typeof f.lines !== "number" && !f.binary);
  if (needText && !files.canRead) {
    const why = config.duplicates.enabled ? "duplicated blocks" : "line counts";
    return {
      blocked: `cannot measure ${why}: no filesystem_read tool reads file contents (set duplicates.enabled: false to measure sizes only)`,
      evidence: { tools, scope },
    };
  }
  const measured: Measured[] = [];
  const texts: Array<{ path: string; text: string }> = [];
  for (const file of listing.files as WorkspaceFile[]) {
    if (file.binary) {
      measured.push({ path: file.path, bytes: file.bytes ?? 0, lines: null });
      continue;
    }
    if (!needText) {
      measured.push({ path: file.path, bytes: file.bytes ?? 0, lines: file.lines ?? null });
      continue;
    }
    const content = await files.read(file.path);
    if (content.binary) {
      measured.push({ path: file.path, bytes: file.bytes ?? 0, lines: null });
      continue;
    }
    texts.push({ path: file.path, text: content.text });
    measured.push({
      path: file.path,
      bytes: file.bytes ?? Buffer.byteLength(content.text),
      lines: typeof file.lines === "number" ? file.lines : countLines(content.text),
    });
  }

  const oversized = measured.map((f) => describe(f, config)).filter((d): d is string => d !== undefined);
  const duplicates: DuplicateBlock[] = config.duplicates.enabled
    ? findDuplicates(texts, config.duplicates.minLines)
    : [];
  const tooManyDuplicates = config.duplicates.maxBlocks !== null && duplicates.length > config.duplicates.maxBlocks;
  const totals = {
    files: measured.length,
    bytes: measured.reduce((n, f) => n + f.bytes, 0),
    lines: measured.reduce((n, f) => n + (f.lines ?? 0), 0),
  };
  const largest = [...measured]
    .sort((a, b) => (b.lines ?? 0) - (a.lines ?? 0) || b.bytes - a.bytes)
    .slice(0, config.report)
    .map((f) => `${f.path}: ${f.lines ?? "binary"} lines, ${f.bytes} bytes`);
  const evidence = {
    tools,
    scope,
    limits: { maxLines: config.maxLines, maxBytes: config.maxBytes, duplicates: config.duplicates },
    totals,
    largest,
    oversized,
    duplicates: duplicates.map((d) => `${d.lines} lines in ${d.copies.length} places: ${formatCopies(d)}`),
  };

  const problems = [...oversized];
  if (tooManyDuplicates)
    problems.push(`${duplicates.length} duplicated blocks (more than ${config.duplicates.maxBlocks})`);
  const measuredText = `${totals.files} files, ${totals.lines} lines, ${duplicates.length} duplicated block${duplicates.length === 1 ? "" : "s"}`;
  if (!problems.length)
    return {
      problems,
      summary: `${measuredText}; every file within ${config.maxLines} lines and ${config.maxBytes} bytes`,
      evidence,
    };
  const what = oversized.length
    ? `${oversized.length} file${oversized.length === 1 ? "" : "s"} over the limits: ${oversized.join("; ")}`
    : "";
  const dup = tooManyDuplicates ? `${duplicates.length} duplicated blocks (limit ${config.duplicates.maxBlocks})` : "";
  return { problems, summary: `${[what, dup].filter(Boolean).join("; ")} (${measuredText})`, evidence };
}
