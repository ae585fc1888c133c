import { once } from "node:events";
import type { ServerResponse } from "node:http";

/** Where a streamed answer may stop for a while, and what ends the wait. */
export interface StreamHold {
  /** The first piece of the answer's text, as the wire format split it (absent: no text). */
  firstText: string | undefined;
  /** The frames after the one carrying `firstText` (all of them, without text) wait for it to settle. */
  hold?: PromiseLike<unknown>;
  /** Aborted when the client went away or the server closes: the wait ends, the answer is dropped. */
  signal: AbortSignal;
}

/** The number of frames sent before a hold: through the first frame that carries `firstText` as a JSON string. */
function framesBeforeHold(frames: readonly string[], firstText: string | undefined): number {
  if (firstText === undefined) return 0;
  const encoded = JSON.stringify(firstText);
  return frames.findIndex((frame) => frame.includes(encoded)) + 1;
}

/** Writes a server-sent-event answer, frame by frame, waiting at its hold (if any) in between. */
export async function writeStream(response: ServerResponse, frames: readonly string[], at: StreamHold): Promise<void> {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const before = at.hold ? framesBeforeHold(frames, at.firstText) : frames.length;
  for (const frame of frames.slice(0, before)) response.write(frame);
  if (at.hold && before < frames.length) {
    const aborted = once(at.signal, "abort");
    await Promise.race([at.hold, aborted]);
    if (at.signal.aborted) {
      response.destroy();
      return;
    }
  }
  for (const frame of frames.slice(before)) response.write(frame);
  response.end();
}
