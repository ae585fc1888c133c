import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../json/canonicalJson.js";
import { parseYaml, yamlCacheDir } from "./parseYaml.js";

const fresh = () => mkdtempSync(join(tmpdir(), "meshflow-yaml-cache-"));

describe("parseYaml", () => {
  it("parses YAML and keeps its value, keyed by the text, for the next parse", () => {
    const dir = fresh();
    const text = "name: x\nlist:\n  - 1\n  - two\nnested: { a: true, b: null }\n";
    const value = { name: "x", list: [1, "two"], nested: { a: true, b: null } };
    expect(parseYaml(text, { cacheDir: dir })).toEqual(value);
    const cached = join(dir, `${sha256Hex(text)}.json`);
    expect(JSON.parse(readFileSync(cached, "utf8"))).toEqual(value);
    // The cached value is what a second parse returns (here: changed on disk to tell them apart).
    writeFileSync(cached, JSON.stringify({ from: "cache" }));
    expect(parseYaml(text, { cacheDir: dir })).toEqual({ from: "cache" });
    // Another text is another entry.
    expect(parseYaml(`${text}extra: 1\n`, { cacheDir: dir })).toEqual({ ...value, extra: 1 });
    expect(readdirSync(dir).filter((f) => f.endsWith(".json"))).toHaveLength(2);
  });

  it("throws on invalid YAML and caches nothing", () => {
    const dir = fresh();
    expect(() => parseYaml("a: [unclosed\n", { cacheDir: dir })).toThrow();
    expect(readdirSync(dir)).toEqual([]);
  });

  it("does not cache what JSON cannot hold exactly", () => {
    const dir = fresh();
    expect(parseYaml("limit: .inf\n", { cacheDir: dir })).toEqual({ limit: Number.POSITIVE_INFINITY });
    expect(readdirSync(dir)).toEqual([]);
  });

  it("parses without a cache when it is off, and passes by a cache folder it cannot use", () => {
    expect(yamlCacheDir({ FLOW_YAML_CACHE: "off" })).toBe(false);
    const dir = fresh();
    expect(yamlCacheDir({ FLOW_YAML_CACHE: dir })).toBe(dir);
    expect(parseYaml("a: 1\n", { cacheDir: false })).toEqual({ a: 1 });
    const missing = join(fresh(), "file-not-folder");
    writeFileSync(missing, "");
    expect(parseYaml("a: 2\n", { cacheDir: missing })).toEqual({ a: 2 });
    expect(existsSync(join(missing, `${sha256Hex("a: 2\n")}.json`))).toBe(false);
  });
});
