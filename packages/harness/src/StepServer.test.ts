import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { StepServer } from "./StepServer.js";

let server: StepServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const TOOLS = [
  { name: "fs__write_file", description: "write", inputSchema: { properties: { path: { type: "string" } } } },
  { name: "step_pass", description: "done", inputSchema: { type: "object" } },
];

async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: "test", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  return client;
}

describe("StepServer", () => {
  it("offers exactly its tools to an MCP client and runs each call through the step's call", async () => {
    const calls: Array<[string, Record<string, unknown>]> = [];
    server = await StepServer.start(TOOLS, async (name, args) => {
      calls.push([name, args]);
      return name === "fs__write_file"
        ? { isError: true, code: "guard_locked", content: [{ type: "text", text: "the guard is locked" }] }
        : { content: [{ type: "text", text: "recorded" }] };
    });
    const { url, token } = server.address;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(Buffer.from(token, "base64url").length).toBeGreaterThanOrEqual(32);
    const client = await connect(url, token);
    const listed = await client.listTools();
    expect(listed.tools.map((t) => t.name)).toEqual(["fs__write_file", "step_pass"]);
    expect(listed.tools[0]?.inputSchema).toMatchObject({ type: "object", properties: { path: { type: "string" } } });
    const refused = await client.callTool({ name: "fs__write_file", arguments: { path: "a" } });
    expect(refused.isError).toBe(true);
    expect(refused.content).toEqual([
      { type: "text", text: "error (guard_locked)" },
      { type: "text", text: "the guard is locked" },
    ]);
    expect((await client.callTool({ name: "step_pass", arguments: { summary: "s" } })).content).toEqual([
      { type: "text", text: "recorded" },
    ]);
    expect(calls).toEqual([
      ["fs__write_file", { path: "a" }],
      ["step_pass", { summary: "s" }],
    ]);
    await client.close();
  });

  it("refuses a wrong token, a foreign Host or Origin, and every request once closed", async () => {
    server = await StepServer.start(TOOLS, async () => ({ content: [] }));
    const { url, token } = server.address;
    const post = (headers: Record<string, string>) =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
    expect((await post({ authorization: "Bearer wrong" })).status).toBe(401);
    expect((await post({})).status).toBe(401);
    expect((await post({ authorization: `Bearer ${token}`, origin: "null" })).status).toBe(403);
    expect((await post({ authorization: `Bearer ${token}`, origin: "https://evil.example" })).status).toBe(403);
    const ok = await post({ authorization: `Bearer ${token}` });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(2);
    await server.close();
    await expect(post({ authorization: `Bearer ${token}` })).rejects.toThrow();
    server = undefined;
  });
});
