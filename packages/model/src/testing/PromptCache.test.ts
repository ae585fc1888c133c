import { describe, expect, it } from "vitest";
import { type CacheBlock, PromptCache } from "./PromptCache.js";

/** Blocks of 400 characters (100 tokens) each, marked where `marks` says. */
const blocks = (texts: string[], marks: number[] = []): CacheBlock[] =>
  texts.map((t, i) => ({ text: t.padEnd(400, "."), mark: marks.includes(i) }));

describe("PromptCache", () => {
  it("writes up to an Anthropic request's last mark and reads the longest marked prefix a later one shares", () => {
    const cache = new PromptCache(0);
    expect(cache.use("m", "breakpoints", blocks(["tools", "system", "user"], [1, 2]))).toEqual({ read: 0, write: 300 });
    // The same prefix plus two blocks, marked at the old end and the new one: 300 read, 200 written.
    const next = blocks(["tools", "system", "user", "assistant", "result"], [1, 2, 4]);
    expect(cache.use("m", "breakpoints", next)).toEqual({ read: 300, write: 200 });
    // Without any mark nothing is read or written, even for a prefix the cache holds.
    expect(cache.use("m", "breakpoints", blocks(["tools", "system", "user"]))).toEqual({ read: 0, write: 0 });
    // Another model has a cache of its own.
    expect(cache.use("other", "breakpoints", next)).toEqual({ read: 0, write: 500 });
  });

  it("does not cache an Anthropic prefix shorter than the minimum", () => {
    const cache = new PromptCache(1024);
    const request = blocks(["tools", "system", "user"], [2]);
    expect(cache.use("m", "breakpoints", request)).toEqual({ read: 0, write: 0 });
    expect(cache.use("m", "breakpoints", request)).toEqual({ read: 0, write: 0 });
  });

  it("reads OpenAI's longest shared prefix in steps of 128 tokens, from the minimum on", () => {
    const cache = new PromptCache(200);
    const first = blocks(["tools", "system", "user"]);
    expect(cache.use("m", "automatic", first)).toEqual({ read: 0, write: 0 });
    expect(cache.use("m", "automatic", blocks(["tools", "system", "user", "more"]))).toEqual({ read: 256, write: 0 });
    expect(cache.use("m", "automatic", blocks(["tools", "changed"]))).toEqual({ read: 0, write: 0 });
  });
});
