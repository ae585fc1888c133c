// Public API of @meshflow/gateway: the gateway MCP server behind `flow serve`, its own tools and transports.
export { GATEWAY_VERSION, Gateway, type GatewayEvent, type GatewayOptions } from "./Gateway.js";
export {
  DEFAULT_HTTP_HOST,
  isLoopbackHost,
  isWildcardHost,
  type ListenAddress,
  parseListenAddress,
} from "./listenAddress.js";
export { type DiagnoseContext, diagnoseTool, type ServeInfo } from "./ownTools/diagnoseTool.js";
export { planTools } from "./ownTools/planTools.js";
export { type RunToolsContext, runTools } from "./ownTools/runTools.js";
export { safetyTools, UNGUARDED_TOOLS } from "./ownTools/safetyTools.js";
export { PrdRoot } from "./runs/PrdRoot.js";
export type { RunToolsOptions } from "./runs/RunToolsOptions.js";
export { RunTracker, type TrackedRun } from "./runs/RunTracker.js";
export {
  assertBindAllowed,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_MS,
  type HttpServeOptions,
  MAX_BODY_BYTES,
  MCP_PATH,
  MIN_SERVE_TOKEN_CHARS,
  type RunningHttp,
  serveHttp,
  serveTokenChars,
} from "./serveHttp.js";
export { type ServedConnection, serveOnInitialize } from "./serveOnInitialize.js";
export { serveStdio } from "./serveStdio.js";
