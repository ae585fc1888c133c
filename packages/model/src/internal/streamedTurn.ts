import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import type { TextListener } from "../ChatModel.js";

/** What meshflow reads of a model's answer to one request, streamed or not. */
export type TurnResult = Pick<LanguageModelV3GenerateResult, "content" | "finishReason" | "usage" | "warnings">;

type FinishPart = Extract<LanguageModelV3StreamPart, { type: "finish" }>;

/** An error part of a stream as a thrown error: the provider's own error, or its payload in the message. */
function streamError(error: unknown): Error {
  if (error instanceof Error) return error;
  const detail = typeof error === "string" ? error : JSON.stringify(error);
  return new Error(`the model's streamed answer failed: ${detail}`);
}

/**
 * One request of a turn as a stream (the provider's `doStream`): each piece of text goes to `onText`
 * as it arrives, and the stream's parts are gathered into what `doGenerate` answers — the text and
 * tool calls in order, the usage and finish reason of its end, its warnings. An error part is thrown.
 */
export async function streamedTurn(
  model: LanguageModelV3,
  options: LanguageModelV3CallOptions,
  onText: TextListener,
): Promise<TurnResult> {
  const { stream } = await model.doStream(options);
  const reader = stream.getReader();
  const content: LanguageModelV3Content[] = [];
  /** The text part of each text id, in the order they started. */
  const texts = new Map<string, { type: "text"; text: string }>();
  let said = "";
  let warnings: TurnResult["warnings"] = [];
  let finish: FinishPart | undefined;
  try {
    for (;;) {
      const { done, value: part } = await reader.read();
      if (done) break;
      if (part.type === "stream-start") warnings = part.warnings;
      else if (part.type === "text-start" || part.type === "text-delta") {
        let text = texts.get(part.id);
        if (!text) {
          text = { type: "text", text: "" };
          texts.set(part.id, text);
          content.push(text);
        }
        if (part.type === "text-delta" && part.delta) {
          text.text += part.delta;
          said += part.delta;
          onText(part.delta, said);
        }
      } else if (part.type === "tool-call") content.push(part);
      else if (part.type === "finish") finish = part;
      else if (part.type === "error") throw streamError(part.error);
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    throw error;
  }
  if (!finish) throw new Error("the model's streamed answer ended without its finish (no usage, no finish reason)");
  return { content, finishReason: finish.finishReason, usage: finish.usage, warnings };
}
