import { describe, expect, it } from "vitest";
import { ByteTail } from "./ByteTail.js";

const tailOf = (max: number, chunks: Array<string | Buffer>): ByteTail => {
  const tail = new ByteTail(max);
  for (const chunk of chunks) tail.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return tail;
};

describe("ByteTail", () => {
  it("keeps everything under the bound, as written", () => {
    expect(tailOf(100, ["flow: ", "1 problem(s)\n", "nothing was run\n"]).text()).toBe(
      "flow: 1 problem(s)\nnothing was run\n",
    );
  });

  it("keeps at most max bytes of the end, from a whole line, whatever the chunks", () => {
    const lines = Array.from({ length: 400 }, (_, i) => `prd.json: $.userStories[${i}]: problem ${i}\n`).join("");
    for (const size of [1, 7, 64, 4096, lines.length]) {
      const chunks: string[] = [];
      for (let at = 0; at < lines.length; at += size) chunks.push(lines.slice(at, at + size));
      const text = tailOf(4096, chunks).text();
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4096);
      expect(text.endsWith("problem 399\n")).toBe(true);
      expect(text.startsWith("prd.json: ")).toBe(true);
      expect(lines.endsWith(text)).toBe(true);
    }
  });

  it("reads a character split between two chunks whole, and never starts inside one", () => {
    // Decoding each chunk on its own turned the halves of a split character into two U+FFFD.
    const euro = Buffer.from("€"); // three bytes
    expect(tailOf(100, [euro.subarray(0, 1), Buffer.concat([euro.subarray(1), Buffer.from(" ok")])]).text()).toBe(
      "€ ok",
    );
    // One long line cut in the middle of a character: the text starts at the next whole one.
    const long = Buffer.from("€".repeat(10));
    const text = tailOf(10, [long]).text();
    expect(text).toBe("€€€");
    expect(text).not.toContain("\ufffd");
  });

  it("drops terminal colour codes", () => {
    expect(tailOf(100, ["\u001b[31merror\u001b[39m: bad\n"]).text()).toBe("error: bad\n");
  });
});
