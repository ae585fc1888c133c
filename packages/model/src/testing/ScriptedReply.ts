import type { ReceivedRequest } from "./ReceivedRequest.js";
import type { ScriptedToolCall } from "./ScriptedToolCall.js";
import type { ScriptedUsage } from "./ScriptedUsage.js";

/**
 * One scripted model turn: text and/or tool calls, or an HTTP error; `delayMs` waits before answering.
 * `hold` (streamed answers only): the frames up to the one with the first piece of the text are sent at
 * once, the rest when `hold` settles — a test keeps the turn open until it has seen that piece arrive.
 */
export type ScriptedReply =
  | {
      text?: string;
      toolCalls?: ScriptedToolCall[];
      usage?: ScriptedUsage;
      delayMs?: number;
      hold?: PromiseLike<unknown>;
    }
  | {
      /** An HTTP error in the API's format; `headers` go with it (`{"retry-after": "2"}`). */
      error: { status: number; message: string; headers?: Record<string, string> };
      delayMs?: number;
    };

/** Decides the reply to one request; `index` is the request's position in `ScriptedModelServer.requests`. */
export type ScriptedHandler = (request: ReceivedRequest, index: number) => ScriptedReply | Promise<ScriptedReply>;

/** A successful reply with every default filled in, as the wire formats render it. */
export interface ResolvedReply {
  text: string;
  /** `inputText` is the arguments' JSON text as the wire formats send it. */
  toolCalls: Array<{ id: string; name: string; input: Record<string, unknown>; inputText: string; namespace?: string }>;
  usage: ScriptedUsage;
}
