import type { ToolDescriptor, ToolResult } from "@meshflow/core";
import type { ThinkContext } from "@meshflow/runtime";
import { normalizePath, type Scope, scopeMatcher } from "./scope.js";
import { fullText, structured, ToolProblem } from "./toolResults.js";

/** One file of a listing; `bytes` and `lines` are filled in when the listing tool reports them. */
export interface WorkspaceFile {
  path: string;
  bytes?: number;
  lines?: number | null;
  binary?: boolean;
}

/** A scope's files. */
export interface Listing {
  files: WorkspaceFile[];
  /** The listing tool stopped early: the files are not all of the scope's. */
  truncated: boolean;
}

/** A file's text, or the fact that it is binary. */
export type FileContent = { text: string; binary: false } | { binary: true };

// The file tools the pack knows how to call, by the names servers give them. Tools are found by
// capability (`filesystem_read`); their names say which arguments they take and what they return.
const LISTERS = ["file_stats", "list_files", "directory_tree", "list_directory"] as const;
const READERS = ["read_text_file", "read_file"] as const;

type Lister = (typeof LISTERS)[number];

interface TreeNode {
  name: string;
  type: string;
  children?: TreeNode[];
}

/** Folders a tree listing is asked to leave out (the walk filters them again). */
const TREE_EXCLUDES = ["node_modules", "**/node_modules", ".git", "**/.git", ".flow"];

/** The JSON tree `directory_tree` returns; anything else is a tool problem, not a crash of the specialist. */
function parseTree(tool: string, result: ToolResult): TreeNode[] {
  try {
    const nodes: unknown = JSON.parse(fullText(result));
    if (Array.isArray(nodes)) return nodes as TreeNode[];
  } catch {
    // reported below
  }
  throw new ToolProblem(tool, {
    isError: true,
    content: [
      { type: "text", text: `expected a JSON array of {name, type, children}, got: ${fullText(result).slice(0, 200)}` },
    ],
  });
}

/** A read failure that means "no such file" (workspace server code, or the filesystem server's ENOENT). */
function isNotFound(problem: ToolProblem): boolean {
  const code = structured(problem.result).code;
  return code === "not_found" || /\bENOENT\b/.test(fullText(problem.result));
}

function pick<N extends string>(tools: readonly ToolDescriptor[], names: readonly N[]) {
  for (const name of names) {
    const tool = tools.find((t) => t.name === name);
    if (tool) return { tool, kind: name };
  }
  return undefined;
}

function hasProperty(tool: ToolDescriptor, property: string): boolean {
  const properties = (tool.inputSchema as { properties?: Record<string, unknown> }).properties;
  return properties !== undefined && property in properties;
}

/**
 * Lists and reads workspace files through the `filesystem_read` tools of a step's repertoire — the
 * workspace server's `file_stats` / `read_file`, the filesystem server's `directory_tree` /
 * `read_text_file`, or any server whose tools have those names. Paths are relative to the server's root.
 * Every call goes through `ctx.call` (resolver, journal, middleware): nothing is read behind the run's back.
 */
export class WorkspaceFiles {
  readonly #ctx: ThinkContext;
  readonly #lister: { tool: ToolDescriptor; kind: Lister };
  readonly #reader: ToolDescriptor | undefined;
  /** Contents already read in this step: a check that looks at a file twice calls the tool once. */
  readonly #read = new Map<string, FileContent>();

  private constructor(
    ctx: ThinkContext,
    lister: { tool: ToolDescriptor; kind: Lister },
    reader: ToolDescriptor | undefined,
  ) {
    this.#ctx = ctx;
    this.#lister = lister;
    this.#reader = reader;
  }

  /** The file tools of `ctx`'s repertoire, or why there are none it can list files with. */
  static from(ctx: ThinkContext): WorkspaceFiles | string {
    const readers = ctx.toolsWith("filesystem_read");
    const lister = pick(readers, LISTERS);
    if (!lister) {
      const have = readers.map((t) => t.qualifiedName).join(", ") || "none";
      return `no tool to list files with: the repertoire's filesystem_read tools (${have}) include none of ${LISTERS.join(", ")}`;
    }
    return new WorkspaceFiles(ctx, lister, pick(readers, READERS)?.tool);
  }

  /** Qualified names of the tools in use, for evidence. */
  get tools(): { list: string; read: string | null } {
    return { list: this.#lister.tool.qualifiedName, read: this.#reader?.qualifiedName ?? null };
  }

  /** True when file contents can be read (some checks need only the listing). */
  get canRead(): boolean {
    return this.#reader !== undefined;
  }

  async #call(tool: ToolDescriptor, args: Record<string, unknown>): Promise<ToolResult> {
    const result = await this.#ctx.call(tool.qualifiedName, args);
    if (result.isError) throw new ToolProblem(tool.qualifiedName, result);
    return result;
  }

  /** The files of a scope, sorted by path. Throws {@link ToolProblem} when a tool fails. */
  async list(scope: Scope): Promise<Listing> {
    const inScope = scopeMatcher(scope);
    const found = new Map<string, WorkspaceFile>();
    let truncated = false;
    for (const root of scope.paths.map(normalizePath)) {
      const part = await this.#listPath(root);
      truncated ||= part.truncated;
      for (const file of part.files) if (inScope(file.path)) found.set(file.path, file);
    }
    return { files: [...found.values()].sort((a, b) => a.path.localeCompare(b.path)), truncated };
  }

  async #listPath(root: string): Promise<Listing> {
    const { tool, kind } = this.#lister;
    if (kind === "file_stats" || kind === "list_files") {
      const data = structured(await this.#call(tool, { path: root }));
      const files = (Array.isArray(data.files) ? data.files : []) as WorkspaceFile[];
      return { files: files.map((f) => ({ ...f, path: normalizePath(f.path) })), truncated: data.truncated === true };
    }
    if (kind === "directory_tree") {
      const args: Record<string, unknown> = { path: root };
      if (hasProperty(tool, "excludePatterns")) args.excludePatterns = TREE_EXCLUDES;
      const result = await this.#ctx.call(tool.qualifiedName, args);
      // A file named in `paths` is not a directory: it is listed as itself if it can be read.
      if (result.isError) return this.#asSingleFile(root, new ToolProblem(tool.qualifiedName, result));
      const nodes = parseTree(tool.qualifiedName, result);
      const files: WorkspaceFile[] = [];
      const walk = (node: TreeNode, prefix: string) => {
        const path = prefix === "." ? node.name : `${prefix}/${node.name}`;
        if (node.type === "directory") for (const child of node.children ?? []) walk(child, path);
        else files.push({ path });
      };
      for (const node of nodes) walk(node, root);
      return { files, truncated: false };
    }
    return this.#listDirectory(root);
  }

  async #listDirectory(root: string): Promise<Listing> {
    const tool = this.#lister.tool;
    const files: WorkspaceFile[] = [];
    const pending = [root];
    for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
      const result = await this.#ctx.call(tool.qualifiedName, { path: dir });
      if (result.isError) {
        if (dir === root) return this.#asSingleFile(root, new ToolProblem(tool.qualifiedName, result));
        throw new ToolProblem(tool.qualifiedName, result);
      }
      for (const line of fullText(result).split("\n")) {
        const m = /^\[(FILE|DIR)\]\s+(.+?)\s*$/.exec(line);
        if (!m?.[2]) continue;
        const path = dir === "." ? m[2] : `${dir}/${m[2]}`;
        if (m[1] === "DIR") {
          if (!["node_modules", ".git"].includes(m[2])) pending.push(path);
        } else files.push({ path });
      }
    }
    return { files, truncated: false };
  }

  async #asSingleFile(path: string, problem: ToolProblem): Promise<Listing> {
    if (!this.#reader) throw problem;
    try {
      await this.read(path);
      return { files: [{ path }], truncated: false };
    } catch {
      throw problem;
    }
  }

  /**
   * A file's content, or undefined when it does not exist (the read tool said not found). Other
   * failures throw {@link ToolProblem}.
   */
  async readIfExists(path: string): Promise<FileContent | undefined> {
    try {
      return await this.read(path);
    } catch (error) {
      if (error instanceof ToolProblem && isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** A file's whole text (read in pages when the tool pages), or `binary`. Throws {@link ToolProblem}. */
  async read(path: string): Promise<FileContent> {
    const known = this.#read.get(normalizePath(path));
    if (known) return known;
    const content = await this.#readNow(path);
    this.#read.set(normalizePath(path), content);
    return content;
  }

  async #readNow(path: string): Promise<FileContent> {
    const tool = this.#reader;
    if (!tool) throw new Error("no filesystem_read tool reads file contents (read_text_file, read_file)");
    let text = "";
    let startLine: number | undefined;
    for (;;) {
      const args: Record<string, unknown> = startLine === undefined ? { path } : { path, startLine };
      const result = await this.#ctx.call(tool.qualifiedName, args);
      const data = structured(result);
      if (result.isError) {
        if (data.code === "binary_file") return { binary: true };
        throw new ToolProblem(tool.qualifiedName, result);
      }
      text += typeof data.content === "string" ? data.content : fullText(result);
      const next = data.nextStartLine;
      if (typeof next !== "number" || !hasProperty(tool, "startLine")) break;
      startLine = next;
    }
    // A reader that does not detect binaries hands back their bytes as text.
    return text.includes("\u0000") ? { binary: true } : { text, binary: false };
  }
}
