import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolDescriptor } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { FileClassificationCache } from "../cache/FileClassificationCache.js";
import { buildCapabilityCatalog, loadCapabilityCatalog } from "./CapabilityCatalog.js";
import { loadCapabilityOverrides } from "./CapabilityOverrides.js";
import type { Classifier } from "./Classifier.js";
import { classifyTools } from "./classifyTools.js";

const catalog = loadCapabilityCatalog();

function tool(name: string, description: string, readOnly: boolean, server = "srv"): ToolDescriptor {
  return {
    qualifiedName: `${server}__${name}`,
    server,
    name,
    description,
    inputSchema: { type: "object", properties: { path: { type: "string" } } },
    annotations: { readOnlyHint: readOnly },
  };
}

const reader = tool("fetch_document", "Read the contents of files in the workspace", true);
const writer = tool("persist_blob", "Writes a file to disk, overwriting it", false);

function tempFile(name: string, text?: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "meshflow-classify-")), name);
  if (text !== undefined) writeFileSync(file, text);
  return file;
}

describe("classifyTools", () => {
  it("classifies by name, description and annotations with the rule classifier", async () => {
    const index = await classifyTools([reader, writer], { catalog });
    expect(index.capabilitiesOf(reader.qualifiedName)).toEqual(["filesystem_read"]);
    expect(index.capabilitiesOf(writer.qualifiedName)).toEqual(["filesystem_write"]);
    expect(index.get(reader.qualifiedName)).toMatchObject({ source: "rule", classifier: "rule@1" });
    expect(index.get(reader.qualifiedName)?.reasons[0]).toMatch(/^filesystem_read: description matches/);
    expect(index.toolsWith("filesystem_write")).toEqual([writer.qualifiedName]);
  });

  it("annotations gate the rules: the same description without readOnlyHint is no filesystem_read", async () => {
    const unannotated = { ...reader, annotations: {} };
    const index = await classifyTools([unannotated], { catalog });
    expect(index.capabilitiesOf(reader.qualifiedName)).toEqual([]);
  });

  it("overrides always win over the classifier and the cache", async () => {
    const file = tempFile(
      "overrides.yaml",
      "overrides:\n  srv__fetch_document: [web_read]\n  persist_blob: { add: [code_execute], remove: [filesystem_write] }\n",
    );
    const overrides = loadCapabilityOverrides(file, catalog);
    const cache = new FileClassificationCache(tempFile("cache.json"));
    for (let pass = 0; pass < 2; pass++) {
      const index = await classifyTools([reader, writer], { catalog, cache, overrides });
      expect(index.get(reader.qualifiedName)).toMatchObject({ capabilities: ["web_read"], source: "override" });
      expect(index.get(writer.qualifiedName)).toMatchObject({ capabilities: ["code_execute"], source: "override" });
      expect(index.stats).toMatchObject({ overridden: 2, fromCache: pass === 0 ? 0 : 2 });
    }
  });

  it("an override naming an unknown capability is an error with the file, the JSON path and a suggestion", () => {
    const file = tempFile("overrides.yaml", "overrides:\n  srv__x: { add: [filesystem_reed] }\n");
    expect(() => loadCapabilityOverrides(file, catalog)).toThrow(
      `${file}: $.overrides.srv__x.add[0]: unknown capability "filesystem_reed" (did you mean "filesystem_read", "filesystem_write"?)`,
    );
  });

  it("reuses cached verdicts and re-classifies a tool whose definition changed", async () => {
    const file = tempFile("classifications.json");
    let calls: string[] = [];
    const rule = (await import("./ruleClassifier.js")).createRuleClassifier();
    const counting: Classifier = {
      id: "rule",
      version: "1",
      classify: (tools, c) => {
        calls = tools.map((t) => t.qualifiedName);
        return rule.classify(tools, c);
      },
    };
    const first = await classifyTools([reader, writer], {
      catalog,
      classifier: counting,
      cache: new FileClassificationCache(file),
    });
    expect(first.stats).toMatchObject({ classified: 2, fromCache: 0 });
    expect(Object.keys(JSON.parse(readFileSync(file, "utf8")).entries)).toEqual([
      reader.qualifiedName,
      writer.qualifiedName,
    ]);

    // a new process: a fresh cache object over the same file
    calls = [];
    const second = await classifyTools([reader, writer], {
      catalog,
      classifier: counting,
      cache: new FileClassificationCache(file),
    });
    expect(calls).toEqual([]);
    expect(second.get(reader.qualifiedName)?.source).toBe("cache");

    // the writer's annotations change: only it is classified again, and the result follows the change
    const changed = { ...writer, annotations: { readOnlyHint: true } };
    const third = await classifyTools([reader, changed], {
      catalog,
      classifier: counting,
      cache: new FileClassificationCache(file),
    });
    expect(calls).toEqual([writer.qualifiedName]);
    expect(third.get(writer.qualifiedName)).toMatchObject({ source: "rule", capabilities: [] });
    expect(third.stats).toMatchObject({ classified: 1, fromCache: 1 });
  });

  it("re-classifies everything when the catalog or the classifier version changes", async () => {
    const cache = new FileClassificationCache(tempFile("classifications.json"));
    await classifyTools([reader], { catalog, cache });
    const other = buildCapabilityCatalog({
      version: 1,
      capabilities: { docs: { description: "documents", tools: ["fetch_document"] } },
    });
    const byCatalog = await classifyTools([reader], { catalog: other, cache });
    expect(byCatalog.get(reader.qualifiedName)).toMatchObject({ source: "rule", capabilities: ["docs"] });
    const v2: Classifier = {
      id: "rule",
      version: "2",
      classify: (tools) => tools.map(() => ({ capabilities: [], reasons: [] })),
    };
    expect((await classifyTools([reader], { catalog: other, cache, classifier: v2 })).stats.classified).toBe(1);
  });

  it("a corrupt cache file counts as empty and is replaced", async () => {
    const file = tempFile("classifications.json", "{ not json");
    const index = await classifyTools([reader], { catalog, cache: new FileClassificationCache(file) });
    expect(index.stats.classified).toBe(1);
    expect(JSON.parse(readFileSync(file, "utf8")).version).toBe(1);
  });

  it("a pluggable classifier is used as given, and an unknown capability from it is an error", async () => {
    const model: Classifier = {
      id: "model",
      version: "2025-01",
      classify: async (tools) => tools.map(() => ({ capabilities: ["web_search"], reasons: ["model says so"] })),
    };
    const index = await classifyTools([reader], { catalog, classifier: model });
    expect(index.get(reader.qualifiedName)).toMatchObject({
      source: "model",
      classifier: "model@2025-01",
      capabilities: ["web_search"],
    });
    const broken: Classifier = {
      id: "broken",
      version: "1",
      classify: (tools) => tools.map(() => ({ capabilities: ["telepathy"], reasons: [] })),
    };
    await expect(classifyTools([reader], { catalog, classifier: broken })).rejects.toThrow(
      'classifier broken gave srv__fetch_document the capability "telepathy", which skills/capabilities.yaml does not define',
    );
  });
});
