import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { npmServerEntry, writeMcpConfig } from "../helpers/mcpServers.js";
import { runFlow } from "../helpers/runFlow.js";

let dir: string;
let config: string;
let brokenConfig: string;
let env: Record<string, string>;

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "meshflow-cli-tools-")));
  env = { FLOW_LOG_DIR: join(dir, "logs") };
  config = writeMcpConfig(dir, {
    everything: npmServerEntry("server-everything", ["stdio"]),
    memory: npmServerEntry("server-memory", [], { MEMORY_FILE_PATH: join(dir, "memory.jsonl") }),
    filesystem: npmServerEntry("server-filesystem", [dir]),
  });
  const brokenDir = mkdtempSync(join(dir, "broken-"));
  brokenConfig = writeMcpConfig(brokenDir, {
    everything: npmServerEntry("server-everything", ["stdio"]),
    broken: { command: process.execPath, args: ["-e", "console.error('cannot open database'); process.exit(4)"] },
    silent: { command: process.execPath, args: ["-e", "process.exit(5)"] },
    unset: { command: "node", args: ["${MESHFLOW_TEST_UNSET_VAR}"] },
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("flow tools list", () => {
  it("lists every tool of every server with its hints; exit 0", async () => {
    const result = await runFlow(["tools", "list", "--mcp-config", config], { env });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^everything \(\d+ tools\)$/m);
    expect(result.stdout).toMatch(/^ {2}everything__echo +Echoes back the input string {2}\[read-only, idempotent\]$/m);
    expect(result.stdout).toMatch(/^ {2}memory__delete_entities +.*\[destructive, idempotent\]$/m);
    expect(result.stdout).toMatch(/^ {2}filesystem__write_file +/m);
    expect(result.stdout).toMatch(/^\d+ tools from 3 servers$/m);
  });

  it("--json prints [{qualifiedName, server, name, description, annotations}]; --server narrows it", async () => {
    const result = await runFlow(["tools", "list", "--server", "memory", "--json", "--mcp-config", config], { env });
    expect(result.code).toBe(0);
    const tools = JSON.parse(result.stdout) as Record<string, unknown>[];
    expect(tools.map((t) => t.server)).toEqual(Array(tools.length).fill("memory"));
    expect(tools.find((t) => t.name === "read_graph")).toEqual({
      qualifiedName: "memory__read_graph",
      server: "memory",
      name: "read_graph",
      description: "Read the entire knowledge graph",
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    });
  });

  it("reports a server that fails to start (name, command, stderr tail), still lists the others; exit 3", async () => {
    const result = await runFlow(["tools", "list", "--mcp-config", brokenConfig], { env });
    expect(result.code).toBe(3);
    expect(result.stdout).toContain("everything__echo");
    expect(result.stderr).toContain(
      `flow: server "broken" (${process.execPath} -e console.error('cannot open database'); process.exit(4)) could not be started or reached: exited; stderr:\n    cannot open database`,
    );
    expect(result.stderr).toContain("full stderr log:");
    // A server that exits without a word said `stderr:` and nothing after it.
    expect(result.stderr).toContain(
      `flow: server "silent" (${process.execPath} -e process.exit(5)) could not be started or reached: exited; it wrote nothing to stderr`,
    );
    expect(result.stderr).not.toMatch(/stderr:\n\s*(\n|$)/);
    expect(result.stderr).toContain(
      "$.mcpServers.unset.args[0]: environment variable MESHFLOW_TEST_UNSET_VAR is not set",
    );
    expect(readFileSync(join(dir, "logs", "broken.log"), "utf8")).toContain("cannot open database");
  });

  it("exits 1 for a misconfigured server alone", async () => {
    const result = await runFlow(["tools", "list", "--server", "unset", "--mcp-config", brokenConfig], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("MESHFLOW_TEST_UNSET_VAR is not set");
  });

  it("exits 2 for an unknown --server, with a suggestion, and without any MCP config", async () => {
    const unknown = await runFlow(["tools", "list", "--server", "memroy", "--mcp-config", config], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--server: unknown MCP server "memroy" (did you mean "memory"?)');
    const none = await runFlow(["tools", "list"], { env, cwd: mkdtempSync(join(dir, "empty-")) });
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(
      "flow: no MCP config found: pass --mcp-config <file>, set FLOW_MCP_CONFIG, or add ./.mcp.json\n",
    );
  });
});

describe("flow tools call", () => {
  it("prints the result of a call through the chain; exit 0", async () => {
    const result = await runFlow(
      ["tools", "call", "everything__echo", "--args", '{"message":"hi"}', "--mcp-config", config],
      {
        env,
      },
    );
    expect(result).toMatchObject({ code: 0, stdout: "Echo: hi\n", stderr: "" });
  });

  it("--json prints the whole result", async () => {
    const result = await runFlow(
      ["tools", "call", "everything__get-sum", "--args", '{"a":2,"b":3}', "--json", "--mcp-config", config],
      { env },
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ content: [{ type: "text", text: "The sum of 2 and 3 is 5." }] });
  });

  it("refuses invalid arguments with their path; exit 1", async () => {
    const result = await runFlow(
      ["tools", "call", "everything__get-sum", "--args", '{"a":"2"}', "--mcp-config", config],
      {
        env,
      },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'flow: invalid_arguments: invalid arguments for "everything__get-sum": $.b: is required; $.a: must be number\n',
    );
  });

  it("asks for --yes before a destructive tool runs, and runs it with --yes", async () => {
    const target = join(dir, "written.txt");
    const args = JSON.stringify({ path: target, content: "hello" });
    const refused = await runFlow(["tools", "call", "filesystem__write_file", "--args", args, "--mcp-config", config], {
      env,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("confirmation_required");
    expect(refused.stderr).toContain("re-run with --yes");
    expect(existsSync(target)).toBe(false);
    const confirmed = await runFlow(
      ["tools", "call", "filesystem__write_file", "--args", args, "--yes", "--mcp-config", config],
      { env },
    );
    expect(confirmed.code).toBe(0);
    expect(readFileSync(target, "utf8")).toBe("hello");
  });

  it("exits 1 on a tool error reported by the server", async () => {
    const result = await runFlow(
      ["tools", "call", "filesystem__read_text_file", "--args", '{"path":"/etc/hostname"}', "--mcp-config", config],
      { env },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Access denied");
  });

  it("suggests the qualified name for a bare or misspelt one; exit 1", async () => {
    const bare = await runFlow(["tools", "call", "echo", "--mcp-config", config], { env });
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain('(did you mean "everything__echo"?)');
    const misspelt = await runFlow(["tools", "call", "everything__ecoh", "--mcp-config", config], { env });
    expect(misspelt.stderr).toContain('server "everything" has no tool "ecoh" (did you mean "everything__echo"?)');
  });

  it("exits 3 when the tool's server cannot start", async () => {
    const result = await runFlow(["tools", "call", "broken__anything", "--mcp-config", brokenConfig], { env });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("flow: server_unreachable:");
  });

  it("exits 1 naming the config problem of a misconfigured server", async () => {
    const result = await runFlow(["tools", "call", "unset__anything", "--mcp-config", brokenConfig], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('flow: MCP server "unset" is misconfigured:');
    expect(result.stderr).toContain(
      "$.mcpServers.unset.args[0]: environment variable MESHFLOW_TEST_UNSET_VAR is not set",
    );
  });

  it("exits 2 on --args that are not a JSON object", async () => {
    const bad = await runFlow(["tools", "call", "everything__echo", "--args", '{"message":', "--mcp-config", config], {
      env,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--args: invalid JSON at line 1, column 12");
    const array = await runFlow(["tools", "call", "everything__echo", "--args", "[1]", "--mcp-config", config], {
      env,
    });
    expect(array.code).toBe(2);
    expect(array.stderr).toContain("--args: expected a JSON object of arguments, found [1]");
  });
});
