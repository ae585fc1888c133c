// `@meshflow/mcp/http`: the one front of meshflow's HTTP servers (`flow serve --http`, `flow console`,
// `flow dashboard`, a harness step's server). It loads no MCP SDK module, so any server can use it.

export {
  allowedHostnames,
  checkFront,
  type FrontPolicy,
  type FrontRefusal,
} from "./http/httpFront.js";
export { bearerToken } from "./http/httpGuards.js";
export { type BodyRead, type JsonReadOptions, readJsonRequest, readRequestBody } from "./http/readRequestBody.js";
