import type { RunEvent } from "./RunEvent.js";

const lines = new WeakMap<RunEvent, string>();

/**
 * An event's JSON text, made once per event object: the run store writes it to the events file and
 * `--json` prints the same line, so an event is serialised once however many write it.
 */
export function eventLine(event: RunEvent): string {
  let line = lines.get(event);
  if (line === undefined) {
    line = JSON.stringify(event);
    lines.set(event, line);
  }
  return line;
}
