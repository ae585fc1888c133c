import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { MeshflowError } from "@meshflow/core";
import { composeEnrichers, type ToolEnricher, type ToolMap } from "@meshflow/resolver";
import { harnessReadOnlyEnricher, stripMcpEnricher } from "../enrichers/harnessEnrichers.js";
import type { AgentHarness, OutputFormat } from "../harness/AgentHarness.js";
import { type AgentRender, type HarnessTool, type HarnessWriter, harnessTools } from "../harness/HarnessWriter.js";
import { harnessWriter } from "../harness/harnessWriters.js";
import { baseToolMap, repertoireMap, type ToolUniverse } from "../model/baseToolMap.js";
import type { ExportSpecialist } from "../model/ExportSpecialist.js";
import { type DocumentUpdate, jsonDocument, jsonInPlace, yamlDocument } from "./agentsDocument.js";
import { GENERATED_MARK, generatedComment, isGeneratedMarkdown, markdownFile } from "./markdownFile.js";

/** What {@link planAgentExport} writes, and from what. */
export interface AgentExportInput {
  harness: AgentHarness;
  format: OutputFormat;
  /** The specialists to export, in the order to write them. */
  specialists: readonly ExportSpecialist[];
  /** The discovered tools, skills and classification the repertoires are computed from. */
  universe: ToolUniverse;
  /** Per specialist, the servers its MCP tools come from (default: every discovered server). */
  servers?: ReadonlyMap<string, readonly string[]>;
  /** Enrichers for this harness, in order: after the harness's own, before the read-only rule. */
  enrichers?: readonly ToolEnricher[];
  /** Extra definition keys per specialist (e.g. `model`); a key the writer sets itself is refused. */
  extras?: (specialist: string) => Readonly<Record<string, unknown>>;
  /** The folder the harness's files are written under (a project root). */
  outDir: string;
  /**
   * Remove what earlier exports wrote for specialists no longer exported: generated Markdown files and
   * entries of documents this package owns. Set it for a full export, never for a `--specialist` subset.
   */
  prune?: boolean;
}

/** One exported agent: its enriched tool map and how the harness names its tools. */
export interface ExportedAgent {
  name: string;
  toolMap: ToolMap;
  tools: HarnessTool[];
  /** The file it is written to, relative to the output folder. */
  file: string;
}

/** What happens to a file: written new, rewritten, left as it is, or removed (a stale generated file). */
export type FileStatus = "create" | "update" | "unchanged" | "remove";

/** One file of an export. */
export interface PlannedFile {
  /** Relative to the output folder, POSIX separators. */
  file: string;
  /** Absolute path. */
  path: string;
  status: FileStatus;
  /** The content to write (absent for `remove`). */
  content?: string;
  /** The agents it holds (or held, for `remove`). */
  agents: string[];
}

/** Everything an export would write, compared with the disk. Nothing is written until {@link writeExportPlan}. */
export interface ExportPlan {
  harness: AgentHarness;
  format: OutputFormat;
  outDir: string;
  agents: ExportedAgent[];
  files: PlannedFile[];
  /** How the harness gets this format's output. */
  note: string;
}

/**
 * The enricher chain of an export to `writer`'s harness: MCP tools stripped first when the harness cannot
 * call them, then the configured enrichers in order, then the read-only rule, so no enricher can hand a
 * write tool to a read-only specialist.
 */
function exportEnricher(writer: HarnessWriter, configured: readonly ToolEnricher[] = []): ToolEnricher {
  return composeEnrichers([...(writer.mcp ? [] : [stripMcpEnricher()]), ...configured, harnessReadOnlyEnricher()]);
}

function readIfExists(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, "utf8") : undefined;
}

function statusOf(existing: string | undefined, content: string): FileStatus {
  if (existing === undefined) return "create";
  return existing === content ? "unchanged" : "update";
}

function checkExtras(writer: HarnessWriter, specialist: string, extras: Readonly<Record<string, unknown>>): void {
  const reserved = Object.keys(extras).filter((key) => writer.reservedKeys.includes(key));
  if (reserved.length)
    throw new MeshflowError(
      "export_invalid",
      `specialist "${specialist}": ${writer.harness} sets ${reserved.map((k) => `"${k}"`).join(", ")} itself; ` +
        "extra definition keys may not override it",
      { details: { specialist, keys: reserved } },
    );
}

function markdownFiles(writer: HarnessWriter, input: AgentExportInput, renders: readonly AgentRender[]): PlannedFile[] {
  const files: PlannedFile[] = renders.map((render) => {
    const file = writer.agentFile(render.specialist.name);
    const path = join(input.outDir, file);
    const { frontmatter, body } = writer.markdown(render);
    const content = markdownFile(frontmatter, body, generatedComment(render.specialist.name));
    return { file, path, status: statusOf(readIfExists(path), content), content, agents: [render.specialist.name] };
  });
  if (!input.prune) return files;
  // A generated file whose specialist is gone: its first line says who wrote it.
  const written = new Set(files.map((f) => f.path));
  const folders = new Set(files.map((f) => f.file.slice(0, f.file.lastIndexOf("/") + 1)));
  if (!folders.size) folders.add(writer.agentFile("x").replace(/[^/]*$/, ""));
  for (const folder of folders) {
    const dir = join(input.outDir, folder);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (!name.endsWith(".md") || written.has(path)) continue;
      const text = readFileSync(path, "utf8");
      if (!isGeneratedMarkdown(text)) continue;
      const agent = /from the meshflow specialist "([^"]+)"/.exec(text)?.[1] ?? name;
      files.push({ file: `${folder}${name}`, path, status: "remove", agents: [agent] });
    }
  }
  return files;
}

function documentFile(writer: HarnessWriter, input: AgentExportInput, renders: readonly AgentRender[]): PlannedFile {
  const format = input.format === "json" ? "json" : "yaml";
  let file = writer.documentFile(format);
  // A harness config edited in place may be JSONC under its other name (opencode.jsonc).
  if (writer.jsonInPlace && format === "json" && !existsSync(join(input.outDir, file)))
    if (existsSync(join(input.outDir, `${file}c`))) file = `${file}c`;
  const path = join(input.outDir, file);
  const existing = readIfExists(path);
  const update: DocumentUpdate = {
    existing,
    file,
    path: writer.documentPath,
    empty: writer.emptyDocument,
    entries: renders.map((render) => [render.specialist.name, writer.entry(render)] as const),
    replace: input.prune === true,
  };
  const content =
    format === "yaml"
      ? yamlDocument(update, ` ${GENERATED_MARK} from the meshflow specialists: edit them, then export again.`)
      : writer.jsonInPlace
        ? jsonInPlace({ ...update, replace: false })
        : jsonDocument(update);
  return {
    file,
    path,
    status: statusOf(existing, content),
    content,
    agents: renders.map((r) => r.specialist.name),
  };
}

/**
 * Computes an export without writing: each specialist's enriched tool map for the harness (base map =
 * its `harnessTools` + its MCP repertoire; then {@link exportEnricher}), rendered in the harness's layout
 * and format, each file compared with what is on disk.
 *
 * @example
 * const plan = planAgentExport({ harness: "claude-code", format: "md", specialists, universe, outDir: "." });
 * writeExportPlan(plan);
 */
export function planAgentExport(input: AgentExportInput): ExportPlan {
  const writer = harnessWriter(input.harness);
  const enrich = exportEnricher(writer, input.enrichers);
  const agents: ExportedAgent[] = [];
  const renders: AgentRender[] = [];
  for (const specialist of input.specialists) {
    const base = baseToolMap(
      specialist,
      repertoireMap(specialist, input.universe, input.servers?.get(specialist.name)),
    );
    const toolMap = enrich(input.harness, specialist, base);
    const tools = harnessTools(writer, toolMap);
    const extras = input.extras?.(specialist.name) ?? {};
    checkExtras(writer, specialist.name, extras);
    renders.push({ specialist, tools, extras });
    const file = input.format === "md" ? writer.agentFile(specialist.name) : writer.documentFile(input.format);
    agents.push({ name: specialist.name, toolMap, tools, file });
  }
  const files = input.format === "md" ? markdownFiles(writer, input, renders) : [documentFile(writer, input, renders)];
  for (const agent of agents) agent.file = files.find((f) => f.agents.includes(agent.name))?.file ?? agent.file;
  return {
    harness: input.harness,
    format: input.format,
    outDir: input.outDir,
    agents,
    files,
    note: writer.notes[input.format],
  };
}
