import { ConfirmationGate } from "@meshflow/mcp";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { Gateway } from "./Gateway.js";
import { serveOnInitialize } from "./serveOnInitialize.js";

describe("serveOnInitialize", () => {
  it("builds the server from the client's initialize request, capabilities as sent", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const seen: unknown[] = [];
    const connection = await serveOnInitialize(serverSide, (params) => {
      seen.push(params);
      return new McpServer({ name: "built", version: "1.0.0" }, { instructions: `hello ${params.clientInfo.name}` });
    });
    // Not in the SDK's ClientCapabilities type, yet some clients send it: detection must see it.
    const client = new Client(
      { name: "probe", version: "2.0" },
      { capabilities: { tools: { listChanged: true } } as object },
    );
    await client.connect(clientSide);
    expect(client.getInstructions()).toBe("hello probe");
    expect(client.getServerVersion()).toEqual({ name: "built", version: "1.0.0" });
    expect(seen).toEqual([expect.objectContaining({ capabilities: { tools: { listChanged: true } } })]);
    await client.close();
    await connection.closed;
  });

  it("answers a request before initialize with an error and builds nothing", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    let built = 0;
    await serveOnInitialize(serverSide, () => {
      built++;
      return new McpServer({ name: "x", version: "1" });
    });
    const answers: JSONRPCMessage[] = [];
    clientSide.onmessage = (m) => answers.push(m);
    await clientSide.start();
    await clientSide.send({ jsonrpc: "2.0", id: 7, method: "tools/list", params: {} });
    await clientSide.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    for (let i = 0; i < 50 && !answers.length; i++) await new Promise((r) => setTimeout(r, 10));
    expect(answers).toEqual([
      {
        jsonrpc: "2.0",
        id: 7,
        error: { code: -32600, message: "the server is not initialized: send initialize first" },
      },
    ]);
    expect(built).toBe(0);
    await clientSide.close();
  });
});

describe("Gateway", () => {
  it("detects each client from its own handshake and serves its own tools with all three hints", async () => {
    const gateway = await Gateway.start({ servers: new Map() });
    try {
      for (const [name, mode] of [
        ["claude-code", "anthropic"],
        ["cline", "dynamic"],
        ["cursor", "static"],
      ] as const) {
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
        await serveOnInitialize(serverSide, (params) => gateway.serverFor(params));
        const client = new Client({ name, version: "1" });
        await client.connect(clientSide);
        const sessions = gateway.hub.sessions().map((s) => s.session.client);
        expect(sessions.at(-1)).toMatchObject({ name, mode });
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(
          expect.arrayContaining([
            "flow_diagnose",
            "flow_emergency_stop",
            "flow_emergency_unlock",
            "get_confirmation_token",
          ]),
        );
        for (const tool of tools)
          expect(Object.keys(tool.annotations ?? {}), tool.name).toEqual(
            expect.arrayContaining(["readOnlyHint", "destructiveHint", "idempotentHint"]),
          );
        await client.close();
      }
      const unlock = gateway.hub.registry.tool("flow_emergency_unlock");
      expect(unlock && new ConfirmationGate().requiresConfirmation(unlock.descriptor)).toBe(true);
    } finally {
      await gateway.close();
    }
  });
});
