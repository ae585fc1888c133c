import { createHash } from "node:crypto";
import { canonicalJson, sha256Hex } from "@meshflow/core";
import type { ChatMessage, ChatTool } from "../ChatModel.js";

/**
 * A message as the digest sees it: tool results reduced to whether they failed. A result the context
 * budget replaced by a marker digests as it did before: the marker is a function of the conversation.
 */
function digestPart(message: ChatMessage): unknown {
  return message.role === "tool"
    ? { role: "tool", results: message.results.map((r) => ({ id: r.id, isError: r.isError })) }
    : message;
}

/**
 * The digest a turn is journaled and recorded under: the instructions, the tools and the conversation,
 * with tool results reduced to whether they failed — live tools may answer with times, paths or ids,
 * and a replay must not break on them. A chain: the digest of the instructions and tools, then each
 * message folded in, so a step's turns digest in time linear in what they add.
 */
export class RequestDigest {
  #digest: string;
  #folded = 0;

  constructor(system: string, tools: readonly ChatTool[]) {
    this.#digest = sha256Hex(canonicalJson({ system, tools }));
  }

  /** The digest of a request whose first messages are those folded so far. */
  of(messages: readonly ChatMessage[]): string {
    for (; this.#folded < messages.length; this.#folded++)
      this.#digest = createHash("sha256")
        .update(this.#digest)
        .update(canonicalJson(digestPart(messages[this.#folded] as ChatMessage)))
        .digest("hex");
    return this.#digest;
  }
}
