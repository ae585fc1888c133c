import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { overridePrices, priceOf, readPriceFile, shippedPrices } from "./PriceTable.js";
import { turnCost } from "./turnCost.js";

describe("shippedPrices", () => {
  it("is dated and prices the providers' example models with their cache and context window", () => {
    const table = shippedPrices();
    expect(table.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const sonnet = priceOf(table, "anthropic:claude-sonnet-4-5");
    expect(sonnet).toMatchObject({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, contextWindow: 200_000 });
    expect(priceOf(table, "openai:gpt-4.1")).toMatchObject({ input: 2, cacheRead: 0.5 });
  });

  it("finds a dated model id under its undated entry, and nothing for a model it does not know", () => {
    const table = shippedPrices();
    expect(priceOf(table, "anthropic:claude-sonnet-4-5-20250929")).toBe(priceOf(table, "anthropic:claude-sonnet-4-5"));
    expect(priceOf(table, "openai-compatible:llama3.1")).toBeUndefined();
  });
});

describe("overridePrices", () => {
  it("replaces the fields an override gives and keeps the others", () => {
    const table = overridePrices(
      shippedPrices(),
      {
        "anthropic:claude-sonnet-4-5": { contextWindow: 1_000_000 },
        "openai-compatible:llama3.1": { input: 0, output: 0 },
      },
      "prd.json",
    );
    expect(priceOf(table, "anthropic:claude-sonnet-4-5")).toMatchObject({ input: 3, contextWindow: 1_000_000 });
    expect(priceOf(table, "openai-compatible:llama3.1")).toEqual({ input: 0, output: 0 });
    expect(table.sources.at(-1)).toBe("prd.json");
  });
});

describe("readPriceFile", () => {
  it("refuses a file without a date, naming the file and the path", () => {
    const dir = mkdtempSync(join(tmpdir(), "meshflow-prices-"));
    const file = join(dir, "prices.yaml");
    writeFileSync(file, "models:\n  openai:gpt-x: { input: 1, output: 2 }\n");
    expect(() => readPriceFile(file)).toThrow(expect.objectContaining({ code: "prices_invalid" }));
    expect(() => readPriceFile(file)).toThrow(/prices\.yaml: \$\.date/);
    writeFileSync(file, 'date: "2026-01-02"\nmodels:\n  openai:gpt-x: { input: -1, output: 2 }\n');
    expect(() => readPriceFile(file)).toThrow(/\$\.models\["openai:gpt-x"\]\.input|models\.openai:gpt-x\.input/);
  });
});

describe("turnCost", () => {
  it("prices fresh input, cache reads, cache writes and output at their own rates", () => {
    const price = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
    // 1,000 fresh + 8,000 read + 1,000 written, 200 out.
    const cost = turnCost(price, {
      inputTokens: 10_000,
      outputTokens: 200,
      cacheReadTokens: 8_000,
      cacheWriteTokens: 1_000,
    });
    expect(cost).toBeCloseTo((1_000 * 3 + 8_000 * 0.3 + 1_000 * 3.75 + 200 * 15) / 1e6, 12);
  });

  it("is unknown, not 0, for a model without prices", () => {
    expect(turnCost(undefined, { inputTokens: 10, outputTokens: 1 })).toBeUndefined();
    expect(turnCost({ contextWindow: 1000 }, { inputTokens: 10, outputTokens: 1 })).toBeUndefined();
  });
});
