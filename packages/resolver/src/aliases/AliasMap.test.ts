import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadAliasMaps } from "./AliasMap.js";

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-aliases-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe("loadAliasMaps", () => {
  it("merges YAML and JSON files of a folder into shared and per-specialist maps with prefixes", () => {
    const dir = folder({
      "a-shared.yaml": "prefixes: [fs_]\naliases:\n  fs_read: read_text_file\n",
      "quant.json": JSON.stringify({
        specialist: "quant-risk-analyst",
        prefixes: ["quant_risk_"],
        aliases: { quant_risk_var_calculation: "tail_risk_analysis" },
      }),
      "notes.txt": "ignored",
    });
    const map = loadAliasMaps(dir);
    expect(map.shared.get("fs_read")).toEqual({
      from: "fs_read",
      to: "read_text_file",
      file: join(dir, "a-shared.yaml"),
    });
    expect(map.bySpecialist.get("quant-risk-analyst")?.get("quant_risk_var_calculation")?.to).toBe(
      "tail_risk_analysis",
    );
    expect(map.sharedPrefixes).toEqual(["fs_"]);
    expect(map.prefixesBySpecialist.get("quant-risk-analyst")).toEqual(["quant_risk_"]);
    expect(map.sources).toEqual([join(dir, "a-shared.yaml"), join(dir, "quant.json")]);
  });

  it("loads the shipped alias maps", () => {
    const map = loadAliasMaps("skills/aliases");
    expect(map.shared.get("fs_read")?.to).toBe("read_text_file");
    expect(map.bySpecialist.get("security-agent")?.get("security_scan_secrets")?.to).toBe("search_files");
  });

  it("a name mapped to two targets in one scope is an error naming both files", () => {
    const dir = folder({
      "a.yaml": "aliases: { fs_read: read_file }\n",
      "b.yaml": "aliases: { fs_read: read_text_file }\n",
    });
    expect(() => loadAliasMaps(dir)).toThrow(
      `${join(dir, "b.yaml")}: $.aliases.fs_read: "fs_read" maps to "read_text_file" here but to "read_file" in ${join(dir, "a.yaml")} (shared entries); keep one`,
    );
  });

  it("names the file and JSON path of an invalid entry", () => {
    const dir = folder({ "bad.yaml": "specialist: Quant Agent\naliases:\n  ok: [not, a, string]\n" });
    let message = "";
    try {
      loadAliasMaps(dir);
    } catch (error) {
      message = String(error);
    }
    expect(message).toContain(`${join(dir, "bad.yaml")}: $.specialist: a specialist name is lower-case kebab-case`);
    expect(message).toContain(`${join(dir, "bad.yaml")}: $.aliases.ok:`);
  });
});
