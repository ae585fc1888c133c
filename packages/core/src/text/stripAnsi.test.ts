import { describe, expect, it } from "vitest";
import { stripAnsi, stripAnsiDeep } from "./stripAnsi.js";

const ESC = "\u001b";

describe("stripAnsi", () => {
  it("removes colour and cursor sequences and keeps the text", () => {
    // A failed vitest run's output showed `[31m⎯⎯⎯[39m` on the console's pages and in flow run's log.
    expect(stripAnsi(`${ESC}[31m⎯⎯⎯${ESC}[39m ${ESC}[1m${ESC}[41m FAIL ${ESC}[49m${ESC}[22m done${ESC}[2K`)).toBe(
      "⎯⎯⎯  FAIL  done",
    );
    expect(stripAnsi("plain [31m text")).toBe("plain [31m text");
    // A server that returns JSON as text escapes the ESC byte: the codes are as unreadable there.
    expect(stripAnsi('[{"name": "\\u001b[32mok\\u001b[39m"}]')).toBe('[{"name": "ok"}]');
  });

  it("cleans every string of a JSON value", () => {
    expect(stripAnsiDeep({ content: [{ type: "text", text: `${ESC}[32mok${ESC}[39m` }], isError: false })).toEqual({
      content: [{ type: "text", text: "ok" }],
      isError: false,
    });
  });
});
