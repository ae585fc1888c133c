/** Test support of @meshflow/model: a scripted model server speaking real provider wire formats. */
export type { ReceivedMessage, ReceivedRequest } from "./testing/ReceivedRequest.js";
export { ScriptedModelServer, type ScriptedModelServerOptions } from "./testing/ScriptedModelServer.js";
export type { ScriptedHandler, ScriptedReply } from "./testing/ScriptedReply.js";
export type { ScriptedToolCall } from "./testing/ScriptedToolCall.js";
export type { ScriptedUsage } from "./testing/ScriptedUsage.js";
