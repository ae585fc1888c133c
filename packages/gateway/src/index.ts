// Public API of @meshflow/gateway: the gateway MCP server behind `flow serve`, its own tools and transports.
export { Gateway, type GatewayEvent, type GatewayOptions } from "./Gateway.js";
export {
  type ListenAddress,
  parseListenAddress,
} from "./listenAddress.js";
export type { DiagnoseContext, ServeInfo } from "./ownTools/diagnoseTool.js";

export type { RunToolsContext } from "./ownTools/runTools.js";

export type { RunToolsOptions } from "./runs/RunToolsOptions.js";
export type { TrackedRun } from "./runs/RunTracker.js";
export {
  assertBindAllowed,
  type HttpServeOptions,
  MIN_SERVE_TOKEN_CHARS,
  type RunningHttp,
  serveHttp,
  serveTokenChars,
} from "./serveHttp.js";
export type { ServedConnection } from "./serveOnInitialize.js";
export { serveStdio } from "./serveStdio.js";
