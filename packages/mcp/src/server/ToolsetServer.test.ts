import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { LONG_TOOL, type ToolsetFixture, toolsetFixture } from "../test-support/toolsetFixture.js";
import { exposedToolName } from "./exposedToolName.js";
import { CODE_META_KEY } from "./ToolsetSession.js";

let fixture: ToolsetFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

async function setup(options: Parameters<typeof toolsetFixture>[0] = {}) {
  fixture = await toolsetFixture(options);
  return fixture;
}

async function names(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name);
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

const textOf = (r: CallToolResult) => (r.content[0] as { text?: string } | undefined)?.text ?? "";
const codeOf = (r: CallToolResult) => r._meta?.[CODE_META_KEY];
const data = (r: CallToolResult) => r.structuredContent as Record<string, unknown>;

/** Waits until `check` holds (notifications arrive asynchronously); fails after ~5 s. */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 250 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
  expect(check()).toBe(true);
}

describe("ToolsetServer", () => {
  it("loads core, discovery and the servers that fit in 40 tools by default", async () => {
    const f = await setup();
    const { client } = await f.connect("cline");
    const listed = await names(client);
    expect(listed).toHaveLength(38);
    expect(listed.slice(0, 5)).toEqual([
      "get_confirmation_token",
      "list_available_toolsets",
      "describe_toolset",
      "enable_toolset",
      "search_tools",
    ]);
    expect(listed).toContain("alpha__echo");
    expect(listed).toContain("beta__t29");
    expect(listed.some((n) => n.startsWith("gamma__"))).toBe(false);
    expect(f.events.find((e) => e.type === "session.opened")).toMatchObject({ source: "built-in", toolCount: 38 });
  });

  it("serves a name past 64 characters under its hashed name and routes calls to the real tool", async () => {
    const f = await setup();
    const { client } = await f.connect("cline");
    const served = exposedToolName(`alpha__${LONG_TOOL}`);
    expect(served).toHaveLength(64);
    expect(await names(client)).toContain(served);
    const result = await call(client, served);
    expect(textOf(result)).toBe("summary");
    expect(f.calls).toEqual([LONG_TOOL]);
  });

  it("loads what --toolsets names, all of them for `all`, and refuses an unknown name", async () => {
    const f = await setup({ toolsets: ["gamma"] });
    const { client } = await f.connect("cursor");
    const listed = await names(client);
    expect(listed).toHaveLength(5 + 10);
    expect(listed.filter((n) => n.startsWith("gamma__"))).toHaveLength(10);
    await f.close();

    const g = await setup({ toolsets: ["all"] });
    expect(await names((await g.connect("cursor")).client)).toHaveLength(5 + 3 + 30 + 10);
    expect(g.events.find((e) => e.type === "session.opened")).toMatchObject({
      source: "flag",
      warnings: [
        expect.stringMatching(/^toolset broken is unavailable: server "broken" .* could not be started/),
        "48 tools loaded (core, discovery, alpha, beta, gamma): more than 40, which some clients (Cursor) do not pass on",
      ],
    });
    expect(() => g.hub.openSession({ clientInfo: { name: "x" } })).not.toThrow();
    expect(() => g.hub.registry.select({ flag: ["gama"] })).toThrow(
      /--toolsets: unknown toolset "gama" \(did you mean "gamma"\?\)/,
    );
  });

  it("uses the config's override for a matching client and its default for the others", async () => {
    const f = await setup({
      config: { defaultToolsets: ["alpha"], clientOverrides: { cursor: ["gamma"] } },
    });
    const cursor = await names((await f.connect("cursor-vscode")).client);
    expect(cursor.filter((n) => n.startsWith("gamma__"))).toHaveLength(10);
    expect(cursor.some((n) => n.startsWith("alpha__"))).toBe(false);
    const other = await names((await f.connect("windsurf")).client);
    expect(other).toHaveLength(5 + 3);
  });

  describe("dynamic clients", () => {
    it("enable_toolset adds the toolset's tools and sends one list_changed", async () => {
      const f = await setup();
      const { client, listChanged } = await f.connect("cline");
      const result = await call(client, "enable_toolset", { name: "gamma" });
      expect(result.isError).toBeUndefined();
      expect(data(result)).toMatchObject({ status: "enabled", toolCount: 48, toolset: "gamma" });
      await until(() => listChanged() >= 1);
      expect(await names(client)).toHaveLength(48);
      await new Promise((r) => setTimeout(r, 50));
      expect(listChanged()).toBe(1);
      expect(textOf(await call(client, "gamma__t3"))).toBe("gamma t3");
      const again = await call(client, "enable_toolset", { name: "gamma" });
      expect(data(again).status).toBe("already_loaded");
    });

    it("meta-tools report the session's state accurately", async () => {
      const f = await setup();
      const { client } = await f.connect("gemini-cli");
      const before = data(await call(client, "list_available_toolsets"));
      expect(before.mode).toBe("dynamic");
      expect(before.loadedToolCount).toBe(38);
      const toolsets = before.toolsets as { name: string; loaded: boolean; toolCount: number; unavailable?: unknown }[];
      expect(toolsets.map((t) => [t.name, t.loaded, t.toolCount])).toEqual([
        ["core", true, 1],
        ["discovery", true, 4],
        ["alpha", true, 3],
        ["beta", true, 30],
        ["gamma", false, 10],
        ["broken", false, 0],
      ]);
      expect(toolsets.find((t) => t.name === "broken")?.unavailable).toMatchObject({ code: "server_unreachable" });

      const described = data(await call(client, "describe_toolset", { name: "alpha" }));
      expect(described).toMatchObject({ name: "alpha", loaded: true, toolCount: 3 });
      expect((described.tools as { name: string; hints: string }[])[1]).toMatchObject({
        name: "alpha__delete_item",
        hints: "Destructive: may overwrite or delete data; idempotent (repeating it changes nothing more).",
      });

      const search = data(await call(client, "search_tools", { query: "t7 gamma" }));
      expect((search.hits as { name: string; loaded: boolean }[])[0]).toEqual(
        expect.objectContaining({ name: "gamma__t7", loaded: false, toolset: "gamma" }),
      );

      await call(client, "enable_toolset", { name: "gamma" });
      const after = data(await call(client, "list_available_toolsets"));
      expect((after.toolsets as { name: string; loaded: boolean }[]).find((t) => t.name === "gamma")?.loaded).toBe(
        true,
      );

      const unknown = await call(client, "describe_toolset", { name: "gama" });
      expect(unknown.isError).toBe(true);
      expect(codeOf(unknown)).toBe("toolset_unknown");
      expect(textOf(unknown)).toContain('did you mean "gamma"');
    });

    it("enabling an unavailable toolset retries discovery and says why it failed", async () => {
      const f = await setup();
      const { client } = await f.connect("cline");
      const result = await call(client, "enable_toolset", { name: "broken" });
      expect(result.isError).toBe(true);
      expect(data(result)).toMatchObject({ status: "unavailable" });
      expect(textOf(result)).toMatch(/toolset "broken" is unavailable: /);
    });

    it("follows a downstream server's list_changed: the new tool is listed and the client told", async () => {
      const f = await setup();
      const { client, listChanged } = await f.connect("cline");
      expect(await names(client)).not.toContain("alpha__added");
      const live = f.alpha.at(-1);
      live?.registerTool("added", { description: "Added later.", inputSchema: { n: z.number() } }, async ({ n }) => ({
        content: [{ type: "text", text: `added ${n}` }],
      }));
      await until(() => listChanged() >= 1);
      await until(() => f.hub.registry.tool("alpha__added") !== undefined);
      expect(await names(client)).toContain("alpha__added");
      expect(textOf(await call(client, "alpha__added", { n: 2 }))).toBe("added 2");
    });
  });

  describe("static clients", () => {
    it("enable_toolset answers with guidance and changes nothing", async () => {
      const f = await setup();
      const { client, listChanged } = await f.connect("cursor");
      const result = await call(client, "enable_toolset", { name: "gamma" });
      expect(result.isError).toBeUndefined();
      expect(data(result)).toMatchObject({ status: "static_client", toolCount: 38, added: [] });
      expect(textOf(result)).toContain("Restart the server with --toolsets alpha,beta,gamma");
      expect(textOf(result)).toContain('clientOverrides["cursor"]');
      await new Promise((r) => setTimeout(r, 50));
      expect(listChanged()).toBe(0);
      expect(await names(client)).toHaveLength(38);
    });

    it("gets minimal descriptions and instructions that say how to get more tools", async () => {
      const f = await setup();
      const { client } = await f.connect("windsurf");
      const tools = (await client.listTools()).tools;
      expect(tools.find((t) => t.name === "alpha__echo")?.description).toBe("Echoes a message.");
      for (const t of tools) expect((t.description ?? "").length).toBeLessThanOrEqual(130);
      expect(client.getInstructions()).toContain(
        "You have 38 tools from the toolsets core (1), discovery (4), alpha (3), beta (30).",
      );
      expect(client.getInstructions()).toContain("need a server restart with a different --toolsets flag");
    });
  });

  describe("anthropic clients", () => {
    it("get rich descriptions and search-first instructions", async () => {
      const f = await setup();
      const { client } = await f.connect("claude-code");
      const echo = (await client.listTools()).tools.find((t) => t.name === "alpha__echo");
      expect(echo?.description).toContain("Echoes a message. Second sentence.");
      expect(echo?.description).toContain('Tool "echo" of MCP server "alpha"');
      expect(echo?._meta).toEqual({ "meshflow/toolset": "alpha" });
      expect(client.getInstructions()).toContain("Use tool search (or search_tools)");
      expect(client.getInstructions()).not.toContain("confirmation_token");
    });
  });

  describe("confirmation", () => {
    it("a destructive tool needs a token on a client that does not read annotations", async () => {
      const f = await setup();
      const { client } = await f.connect("cursor");
      const del = (await client.listTools()).tools.find((t) => t.name === "alpha__delete_item");
      expect(Object.keys((del?.inputSchema.properties as object) ?? {})).toEqual(["id", "confirmation_token"]);
      expect(del?.annotations).toMatchObject({ destructiveHint: true });

      const refused = await call(client, "alpha__delete_item", { id: "a" });
      expect(codeOf(refused)).toBe("confirmation_required");
      const token = (data(refused).error as { confirmationToken: string }).confirmationToken;
      expect(f.calls).toEqual([]);

      const wrongArgs = await call(client, "alpha__delete_item", { id: "b", confirmation_token: token });
      expect(codeOf(wrongArgs)).toBe("confirmation_invalid");

      const issued = data(
        await call(client, "get_confirmation_token", { tool: "alpha__delete_item", arguments: { id: "a" } }),
      );
      const expiresIn = Date.parse(issued.expiresAt as string) - Date.now();
      expect(expiresIn).toBeGreaterThan(50_000);
      expect(expiresIn).toBeLessThanOrEqual(60_000);
      const ok = await call(client, "alpha__delete_item", { id: "a", confirmation_token: issued.confirmation_token });
      expect(textOf(ok)).toBe("deleted a");
      expect(f.calls).toEqual(["delete_item a"]);

      const replay = await call(client, "alpha__delete_item", {
        id: "a",
        confirmation_token: issued.confirmation_token,
      });
      expect(codeOf(replay)).toBe("confirmation_invalid");
      expect(textOf(replay)).toContain("already used");
      expect(f.calls).toEqual(["delete_item a"]);
    });

    it("get_confirmation_token refuses tools that are not destructive or do not exist", async () => {
      const f = await setup();
      const { client } = await f.connect("cursor");
      expect(codeOf(await call(client, "get_confirmation_token", { tool: "alpha__echo" }))).toBe("invalid_arguments");
      const missing = await call(client, "get_confirmation_token", { tool: "alpha__delete" });
      expect(codeOf(missing)).toBe("tool_not_found");
      expect(textOf(missing)).toContain('did you mean "alpha__delete_item"');
    });

    it("an annotation-aware client calls a destructive tool directly", async () => {
      const f = await setup();
      const { client } = await f.connect("claude-code");
      const del = (await client.listTools()).tools.find((t) => t.name === "alpha__delete_item");
      expect(Object.keys((del?.inputSchema.properties as object) ?? {})).toEqual(["id"]);
      expect(textOf(await call(client, "alpha__delete_item", { id: "z" }))).toBe("deleted z");
    });
  });

  describe("middleware over MCP", () => {
    it("the guard refuses every proxied call while locked, and metrics count the refusals", async () => {
      const f = await setup();
      const { client } = await f.connect("cline");
      f.hub.guard.emergencyStop("incident 7");
      const refused = await call(client, "alpha__echo", { message: "x" });
      expect(refused.isError).toBe(true);
      expect(codeOf(refused)).toBe("guard_locked");
      expect(textOf(refused)).toBe("guard_locked: incident 7");
      expect(f.calls).toEqual([]);
      expect(f.hub.metrics.summary(true).perTool?.alpha__echo).toMatchObject({ callCount: 1, errorCount: 1 });
      f.hub.guard.unlock();
      expect(textOf(await call(client, "alpha__echo", { message: "x" }))).toBe("Echo: x");
    });

    it("arguments are checked against the server's JSON Schema before the call", async () => {
      const f = await setup();
      const { client } = await f.connect("cline");
      const result = await call(client, "alpha__echo", { message: 42 });
      expect(codeOf(result)).toBe("invalid_arguments");
      expect(textOf(result)).toContain("$.message: must be string");
      expect(f.calls).toEqual([]);
      const own = await call(client, "search_tools", { query: "" });
      expect(codeOf(own)).toBe("invalid_arguments");
    });

    it("lists the server's input schema unchanged", async () => {
      const f = await setup();
      const { client } = await f.connect("claude-code");
      const echo = (await client.listTools()).tools.find((t) => t.name === "alpha__echo");
      const original = f.pool.cachedTool("alpha__echo")?.inputSchema;
      expect(echo?.inputSchema).toEqual(original);
    });
  });
});
