import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildCapabilityCatalog, loadCapabilityCatalog } from "./CapabilityCatalog.js";
import { capabilitiesOfName } from "./ruleClassifier.js";

function write(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "meshflow-catalog-")), "capabilities.yaml");
  writeFileSync(file, text);
  return file;
}

describe("loadCapabilityCatalog", () => {
  it("loads the shipped catalog with the categories skills ask for", () => {
    const catalog = loadCapabilityCatalog();
    for (const id of [
      "web_search",
      "web_read",
      "filesystem_read",
      "filesystem_write",
      "code_execute",
      "database_read",
      "database_write",
      "api_call",
      "memory_read",
      "memory_write",
    ])
      expect(catalog.capabilities.has(id), id).toBe(true);
    expect(catalog.knownNames.get("get_sum")).toEqual(["compute"]);
    expect(catalog.hash).toMatch(/^[0-9a-f]{16}$/);
  });

  it("names the file and JSON path of a bad regular expression and of a schema problem", () => {
    const badRule = write(
      "version: 1\ncapabilities:\n  x_read:\n    description: x\n    match: { name: ['(unclosed'] }\n",
    );
    expect(() => loadCapabilityCatalog(badRule)).toThrow(
      `${badRule}: $.capabilities.x_read.match.name[0]: not a valid regular expression`,
    );
    const badId = write("version: 1\ncapabilities:\n  Web-Search:\n    description: x\n");
    expect(() => loadCapabilityCatalog(badId)).toThrow("a capability id is lower_snake_case");
    const missing = write("version: 1\ncapabilities:\n  web_search: {}\n");
    expect(() => loadCapabilityCatalog(missing)).toThrow(`${missing}: $.capabilities.web_search.description:`);
  });

  it("a missing catalog file is file_not_found naming it", () => {
    expect(() => loadCapabilityCatalog("nope/capabilities.yaml")).toThrow(
      "nope/capabilities.yaml: cannot read capability catalog",
    );
  });
});

describe("capabilitiesOfName", () => {
  const catalog = buildCapabilityCatalog({
    version: 1,
    capabilities: {
      web_read: { description: "read pages", tools: ["fetch_url"], match: { name: ["^scrape_"] } },
      web_search: { description: "search", tools: ["fetch_url", "google_search"] },
    },
  });
  it("knows capability ids, known names (normalised) and name rules", () => {
    expect(capabilitiesOfName(catalog, "web_search")).toEqual(["web_search"]);
    expect(capabilitiesOfName(catalog, "fetchUrl")).toEqual(["web_read", "web_search"]);
    expect(capabilitiesOfName(catalog, "scrape-page")).toEqual(["web_read"]);
    expect(capabilitiesOfName(catalog, "unrelated")).toEqual([]);
  });
});
