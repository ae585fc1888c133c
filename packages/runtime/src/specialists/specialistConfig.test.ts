import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineSpecialist } from "./defineSpecialist.js";
import { loadSpecialistConfig, mergeConfig, stepConfig } from "./specialistConfig.js";

const Schema = z.strictObject({
  maxLines: z.number().int().positive(),
  paths: z.array(z.string()),
  limits: z.strictObject({ soft: z.number(), hard: z.number() }),
});

function file(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "meshflow-config-")), name);
  writeFileSync(path, text);
  return path;
}

describe("mergeConfig", () => {
  it("merges objects deeply, replaces arrays and values, and changes neither input", () => {
    const base = { maxLines: 400, paths: ["."], limits: { soft: 1, hard: 2 } };
    const override = { paths: ["src"], limits: { hard: 5 } };
    expect(mergeConfig(base, override)).toEqual({ maxLines: 400, paths: ["src"], limits: { soft: 1, hard: 5 } });
    expect(base).toEqual({ maxLines: 400, paths: ["."], limits: { soft: 1, hard: 2 } });
    expect(override).toEqual({ paths: ["src"], limits: { hard: 5 } });
  });
});

describe("stepConfig", () => {
  const specialist = {
    name: "refactor-agent",
    config: { maxLines: 400, paths: ["."], limits: { soft: 1, hard: 2 } },
    configSchema: Schema,
  };

  it("puts the story's agentConfig for the specialist over its config, validated", () => {
    const story = { id: "US-001", agentConfig: { "refactor-agent": { maxLines: 120 }, other: { maxLines: "x" } } };
    expect(stepConfig(specialist, story)).toEqual({
      ok: true,
      config: { maxLines: 120, paths: ["."], limits: { soft: 1, hard: 2 } },
    });
  });

  it("names the story and the field of invalid settings", () => {
    const story = { id: "US-002", agentConfig: { "refactor-agent": { limits: { hard: "high" } } } };
    const result = stepConfig(specialist, story);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(
      /^invalid settings \(refactor-agent's config with US-002's agentConfig\["refactor-agent"\] over it\): limits\.hard: /,
    );
  });

  it("hands out the merged settings unchecked when the specialist has no schema", () => {
    expect(stepConfig({ name: "x" }, { id: "US-003", agentConfig: { x: { any: [1] } } })).toEqual({
      ok: true,
      config: { any: [1] },
    });
  });
});

describe("loadSpecialistConfig", () => {
  it("reads YAML (comments allowed) from a path or a file URL and validates it", () => {
    const path = file("config.yaml", "# limits\nmaxLines: 300\npaths: [src]\nlimits: { soft: 1, hard: 3 }\n");
    const expected = { maxLines: 300, paths: ["src"], limits: { soft: 1, hard: 3 } };
    expect(loadSpecialistConfig(path, Schema)).toEqual(expected);
    expect(loadSpecialistConfig(pathToFileURL(path), Schema)).toEqual(expected);
  });

  it("names the file and the line of invalid YAML, and the file and field of invalid settings", () => {
    const broken = file("broken.yaml", "maxLines: 3\npaths: [src\n");
    expect(() => loadSpecialistConfig(broken, Schema)).toThrow(new RegExp(`^${broken}:\\d+:\\d+: invalid YAML: `));
    const invalid = file("invalid.yaml", "maxLines: -1\npaths: []\nlimits: { soft: 1, hard: 2 }\n");
    expect(() => loadSpecialistConfig(invalid, Schema)).toThrow(`${invalid}: maxLines: `);
    const list = file("list.yaml", "- a\n- b\n");
    expect(() => loadSpecialistConfig(list, Schema)).toThrow(
      `${list}: expected a mapping of settings at the top level`,
    );
    expect(() => loadSpecialistConfig(join(tmpdir(), "no-such-dir", "config.yaml"))).toThrow(
      /cannot read the specialist's config file/,
    );
  });
});

describe("defineSpecialist with settings", () => {
  it("refuses default settings its schema rejects, naming the specialist and the field", () => {
    expect(() =>
      defineSpecialist({
        name: "refactor-agent",
        description: "d",
        config: { maxLines: 0, paths: [], limits: { soft: 1, hard: 2 } },
        configSchema: Schema,
      }),
    ).toThrow(/^invalid config of specialist "refactor-agent": maxLines: /);
    expect(() =>
      defineSpecialist({ name: "x-agent", description: "d", configSchema: {} as unknown as typeof Schema }),
    ).toThrow(/configSchema: configSchema must have a safeParse method/);
  });
});
