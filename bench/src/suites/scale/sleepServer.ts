// A stdio MCP server with one tool that takes a fixed time, for `npm run bench -- scale`: `sleep`
// waits `ms` milliseconds (default 50) and answers. Not idempotent, so every call is claimed and
// fenced in the journal as a real side effect would be.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "bench-sleep", version: "1.0.0" });
server.registerTool(
  "sleep",
  {
    description: "Waits ms milliseconds, then answers",
    inputSchema: { ms: z.number().int().min(0).max(10_000).default(50) },
    annotations: { readOnlyHint: false, idempotentHint: false },
  },
  async ({ ms }) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { content: [{ type: "text", text: `slept ${ms} ms` }] };
  },
);
await server.connect(new StdioServerTransport());
