import type { HttpServerConfig, McpServerConfig, StdioServerConfig } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { allowedText, allowFix } from "./allowFix.js";

const stdio = (name: string, args: string[]): StdioServerConfig => ({
  name,
  transport: "stdio",
  command: "npx",
  args,
  argsAsWritten: args,
  env: {},
  cwd: "/app",
});
const http: HttpServerConfig = {
  name: "remote",
  transport: "http",
  url: "http://x",
  urlAsWritten: "http://x",
  headers: {},
};
const config = (...servers: McpServerConfig[]) => ({
  file: ".mcp.json",
  servers: new Map(servers.map((s) => [s.name, s])),
});
const ROOT = ["--no", "--", "flow", "workspace-server", "--root", "."];

describe("allowFix", () => {
  it("adds --allow to the args of a server started without a list, or with --allow already (they add up)", () => {
    const fix = 'add "--allow", "npm" to the args of MCP server "workspace" in .mcp.json';
    expect(allowFix("workspace", "npm", config(stdio("workspace", ROOT)))).toBe(fix);
    expect(allowFix("workspace", "npm", config(stdio("workspace", [...ROOT, "--allow", "node"])))).toBe(fix);
    expect(
      allowFix("workspace", "npm", config(stdio("workspace", [...ROOT, "--config", "ws.yaml", "--allow=git"]))),
    ).toBe(fix);
  });

  it("names the config file's list when --config gives it (an --allow would replace that list)", () => {
    expect(allowFix("ws", "npm", config(stdio("ws", [...ROOT, "--config", "ws.yaml"])))).toBe(
      'add "npm" to "allow" in ws.yaml (the --config file of MCP server "ws" in .mcp.json)',
    );
    expect(allowFix("ws", "npm", config(stdio("ws", [...ROOT, "--config=conf/ws.json"])))).toBe(
      'add "npm" to "allow" in conf/ws.json (the --config file of MCP server "ws" in .mcp.json)',
    );
  });

  it("says only what to allow where it cannot know the server's args", () => {
    expect(allowFix("remote", "npm", config(http))).toBe('allow "npm" on MCP server "remote"');
    expect(allowFix("gone", "npm", config())).toBe('allow "npm" on MCP server "gone"');
  });

  it("says a stated allowlist on one line, without control characters, at most 20 entries", () => {
    expect(allowedText([])).toBe("none");
    expect(allowedText(["git", "npm"])).toBe("git, npm");
    expect(allowedText(["evil\u001b[2J\nname"])).toBe("evil [2J name");
    const many = Array.from({ length: 25 }, (_, i) => `tool${i}`);
    expect(allowedText(many)).toBe(`${many.slice(0, 20).join(", ")}, and 5 more`);
    expect(allowedText(["x".repeat(5_000)])).toHaveLength(200);
  });
});
