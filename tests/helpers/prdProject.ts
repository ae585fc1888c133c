import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serverEntry } from "./flowWorkspace.js";
import { FLOW_BIN, type FlowResult, runFlow } from "./runFlow.js";

/** A fresh project folder for `flow prd`: package.json, and an MCP config of real servers unless asked not to. */
export interface PrdProject {
  dir: string;
  /** `flow <args>` in the project, with the built-in specialists and skills and no model settings. */
  flow(args: readonly string[], env?: Record<string, string | undefined>): Promise<FlowResult>;
  /** A file of the project, parsed as JSON. */
  json(file: string): Record<string, unknown>;
  write(file: string, text: string): string;
}

/** What {@link prdProject} puts in the folder. */
export interface PrdProjectOptions {
  /** package.json's test script (default `node --test`; null: none). */
  test?: string | null;
  /** Write `.mcp.json` with filesystem, memory and meshflow's workspace server (default true). */
  servers?: boolean;
}

/**
 * A throw-away project: package.json (`prd-app`), and `.mcp.json` with the real filesystem and memory
 * servers and our workspace server (run through the built `flow`), each started from its package.
 */
export function prdProject(options: PrdProjectOptions = {}): PrdProject {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-prd-"));
  const test = options.test === undefined ? "node --test" : options.test;
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "prd-app", scripts: test ? { test } : {} }));
  if (options.servers !== false) {
    const node = process.execPath;
    const config = {
      mcpServers: {
        filesystem: { command: node, args: [serverEntry("@modelcontextprotocol/server-filesystem"), dir] },
        memory: {
          command: node,
          args: [serverEntry("@modelcontextprotocol/server-memory")],
          env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") },
        },
        workspace: { command: node, args: [FLOW_BIN, "workspace-server", "--root", dir, "--allow", "npm"] },
      },
    };
    writeFileSync(join(dir, ".mcp.json"), JSON.stringify(config, null, 2));
  }
  const env = { FLOW_AGENTS: undefined, FLOW_SKILLS: undefined, FLOW_MODEL: undefined, FLOW_HOME: undefined };
  return {
    dir,
    flow: (args, more) => runFlow(args, { cwd: dir, env: { ...env, ...more } }),
    json: (file) => JSON.parse(readFileSync(join(dir, file), "utf8")) as Record<string, unknown>,
    write(file, text) {
      writeFileSync(join(dir, file), text);
      return join(dir, file);
    },
  };
}
