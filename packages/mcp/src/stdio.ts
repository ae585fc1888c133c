// `@meshflow/mcp/stdio`: the bounded stdio server transport alone, for an MCP server of meshflow's
// (`flow workspace-server`) that needs it without loading the toolset and call-chain code of `./server`.

export { BoundedStdioServerTransport } from "./server/BoundedStdioServerTransport.js";
