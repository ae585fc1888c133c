import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findMcpConfig, loadMcpConfig, redactServerConfig } from "./loadMcpConfig.js";

function workspace(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-mcpcfg-"));
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir, name);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  }
  return dir;
}

const servers = (mcpServers: Record<string, unknown>) => ({ mcpServers });

describe("findMcpConfig", () => {
  const dir = workspace({
    ".mcp.json": servers({}),
    "flag.json": servers({}),
    "env.json": servers({}),
  });

  it("prefers --mcp-config, then FLOW_MCP_CONFIG, then ./.mcp.json", () => {
    expect(findMcpConfig({ file: "flag.json", env: { FLOW_MCP_CONFIG: "env.json" }, cwd: dir })).toEqual({
      file: "flag.json",
      source: "flag",
    });
    expect(findMcpConfig({ env: { FLOW_MCP_CONFIG: "env.json" }, cwd: dir })).toEqual({
      file: "env.json",
      source: "env",
    });
    expect(findMcpConfig({ env: {}, cwd: dir })).toEqual({ file: ".mcp.json", source: "cwd" });
  });

  it("returns undefined when nothing is configured, and fails when a named file is missing", () => {
    const empty = workspace({});
    expect(findMcpConfig({ env: {}, cwd: empty })).toBeUndefined();
    expect(() => findMcpConfig({ file: "nope.json", env: {}, cwd: empty })).toThrow(
      "nope.json: MCP config named by --mcp-config does not exist",
    );
    expect(() => findMcpConfig({ env: { FLOW_MCP_CONFIG: "gone.json" }, cwd: empty })).toThrow(
      "gone.json: MCP config named by FLOW_MCP_CONFIG does not exist",
    );
  });
});

describe("loadMcpConfig", () => {
  it("loads stdio and Streamable HTTP servers with ${VAR} expansion, cwd relative to the config", () => {
    const dir = workspace({
      "cfg/.mcp.json": servers({
        fs: { command: "npx", args: ["-y", "server-fs", "${ROOT:-/srv}"], env: { TOKEN: "${TOKEN}" } },
        tools: { type: "stdio", command: "node", args: ["s.js"], cwd: "sub" },
        remote: { type: "http", url: "https://${HOST}/mcp", headers: { Authorization: "Bearer ${TOKEN}" } },
        bare: { url: "http://127.0.0.1:9/mcp" },
      }),
    });
    const config = loadMcpConfig({
      file: "cfg/.mcp.json",
      env: { TOKEN: "t0k", HOST: "mcp.example.com" },
      cwd: dir,
    });
    expect(config.problems).toEqual([]);
    expect(config.invalid.size).toBe(0);
    expect([...config.servers.keys()]).toEqual(["fs", "tools", "remote", "bare"]);
    expect(config.servers.get("fs")).toEqual({
      name: "fs",
      transport: "stdio",
      command: "npx",
      args: ["-y", "server-fs", "/srv"],
      argsAsWritten: ["-y", "server-fs", "${ROOT:-/srv}"],
      env: { TOKEN: "t0k" },
      cwd: join(dir, "cfg"),
      expandedValues: ["t0k"],
    });
    expect(config.servers.get("tools")).toMatchObject({ cwd: join(dir, "cfg", "sub") });
    expect(config.servers.get("remote")).toMatchObject({
      transport: "http",
      url: "https://mcp.example.com/mcp",
      headers: { Authorization: "Bearer t0k" },
    });
    // The values taken from the environment, not the defaults written in the file.
    expect(config.servers.get("remote")?.expandedValues).toEqual(["mcp.example.com", "t0k"]);
    expect(config.servers.get("bare")).toMatchObject({ transport: "http", headers: {} });
  });

  it("marks a server unusable with the JSON path of an unset variable, and keeps the others", () => {
    const dir = workspace({
      ".mcp.json": servers({
        ok: { command: "node" },
        gh: { url: "https://api.example.com/mcp", headers: { Authorization: "Bearer ${GITHUB_TOKEN}" } },
      }),
    });
    const config = loadMcpConfig({ env: {}, cwd: dir });
    expect([...config.servers.keys()]).toEqual(["ok"]);
    expect(config.invalid.get("gh")).toEqual([
      {
        file: ".mcp.json",
        path: "$.mcpServers.gh.headers.Authorization",
        message: "environment variable GITHUB_TOKEN is not set (write ${GITHUB_TOKEN:-default} to give a default)",
        severity: "error",
      },
    ]);
  });

  it("explains each malformed server entry precisely", () => {
    const dir = workspace({
      ".mcp.json": servers({
        a__b: { command: "x" },
        nothing: { args: [] },
        old: { type: "sse", url: "http://x/sse" },
        weird: { type: "grpc", url: "http://x" },
        badargs: { command: "x", args: "not-a-list" },
        ftp: { url: "ftp://x/y" },
      }),
    });
    const config = loadMcpConfig({ env: {}, cwd: dir });
    const messages = [...config.invalid.values()].flat().map((p) => `${p.path}: ${p.message}`);
    expect(messages).toEqual([
      '$.mcpServers.a__b: a server name may not contain "__" (it separates server and tool in qualified names)',
      "$.mcpServers.nothing: expected `command` (stdio server) or `url` (Streamable HTTP server)",
      '$.mcpServers.old.type: the SSE transport is not supported; use Streamable HTTP ("type": "http")',
      '$.mcpServers.weird.type: unknown type "grpc" (expected "stdio" or "http")',
      '$.mcpServers.badargs.args: expected array, found the string "not-a-list"',
      '$.mcpServers.ftp.url: expected an http(s) URL, found protocol "ftp:"',
    ]);
  });

  it("reports invalid JSON and a missing mcpServers key as file problems", () => {
    const broken = workspace({ ".mcp.json": '{ "mcpServers": { "a": { "command": "x", } } }' });
    expect(loadMcpConfig({ env: {}, cwd: broken }).problems.map((p) => p.message)).toEqual([
      "invalid JSON at line 1, column 42: expected a property name in double quotes",
    ]);
    const wrong = workspace({ ".mcp.json": { servers: {} } });
    expect(loadMcpConfig({ env: {}, cwd: wrong }).problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      "$.mcpServers: required record is missing",
    ]);
  });

  it("makes a ./ or ../ env value absolute against the server's folder, and leaves other values alone", () => {
    // A config flow init writes must travel with its project, yet the memory server resolves a relative
    // MEMORY_FILE_PATH against its own package folder: flow anchors it to the config's folder first.
    const dir = workspace({
      "sub/.mcp.json": servers({
        memory: { command: "npx", env: { MEMORY_FILE_PATH: "${MEM:-./.flow/memory.jsonl}", MODE: "fast" } },
        nested: { command: "node", cwd: "tools", env: { DATA: "../data.json" } },
      }),
    });
    const config = loadMcpConfig({ file: "sub/.mcp.json", cwd: dir, env: {} });
    const env = (name: string) => (config.servers.get(name) as { env: Record<string, string> }).env;
    expect(env("memory")).toEqual({ MEMORY_FILE_PATH: join(dir, "sub", ".flow", "memory.jsonl"), MODE: "fast" });
    expect(env("nested")).toEqual({ DATA: join(dir, "sub", "data.json") });
  });

  it("returns an empty config when none is found", () => {
    const config = loadMcpConfig({ env: {}, cwd: workspace({}) });
    expect(config).toMatchObject({ file: undefined, source: "none", problems: [] });
    expect(config.servers.size).toBe(0);
  });
});

describe("redactServerConfig", () => {
  it("never shows env values, header values, expanded args or URL passwords", () => {
    const dir = workspace({
      ".mcp.json": servers({
        s: { command: "srv", args: ["--token=${TOKEN}"], env: { API_KEY: "sk-live-123" } },
        h: { url: "https://user:pw@example.com/mcp?key=${KEY}", headers: { Authorization: "Bearer abc" } },
      }),
    });
    const config = loadMcpConfig({ env: { TOKEN: "tok-999", KEY: "k-777" }, cwd: dir });
    const printed = JSON.stringify([...config.servers.values()].map(redactServerConfig));
    for (const secret of ["sk-live-123", "tok-999", "k-777", "Bearer abc", ":pw@"])
      expect(printed).not.toContain(secret);
    expect(printed).toContain("--token=${TOKEN}");
    expect(printed).toContain('"API_KEY":"***"');
  });
});
