import { describe, expect, it } from "vitest";
import { detectClient, parseClientMode } from "./clientMode.js";

const hello = (name: string, capabilities: Record<string, unknown> = {}) => ({
  clientInfo: { name, version: "1.0.0" },
  capabilities,
});

describe("detectClient", () => {
  it.each([
    ["claude-code", "anthropic", true],
    ["Claude-Desktop", "anthropic", true],
    ["claude-ai", "anthropic", true],
    ["cline", "dynamic", false],
    ["roo-code", "dynamic", true],
    ["gemini-cli", "dynamic", false],
    ["antigravity", "dynamic", false],
    ["cursor", "static", false],
    ["cursor-vscode", "static", false],
    ["windsurf", "static", false],
  ] as const)("maps %s to %s (annotation-aware: %s)", (name, mode, aware) => {
    const client = detectClient(hello(name));
    expect(client).toMatchObject({ mode, annotationAware: aware, source: "client-name" });
  });

  it("serves an unknown client that declares tools.listChanged dynamically", () => {
    expect(detectClient(hello("my-agent", { tools: { listChanged: true } }))).toMatchObject({
      name: "my-agent",
      mode: "dynamic",
      source: "capability",
      annotationAware: false,
    });
  });

  it("serves an unknown client without that capability statically", () => {
    expect(detectClient(hello("my-agent"))).toMatchObject({ mode: "static", source: "default" });
    expect(detectClient({})).toMatchObject({ name: "unknown", mode: "static", annotationAware: false });
  });

  it("does not take a name that only starts like a known one", () => {
    expect(detectClient(hello("cursorial")).mode).toBe("static");
    expect(detectClient(hello("clinewise")).source).toBe("default");
  });

  it("lets FLOW_CLIENT_MODE override the mode but not the annotation awareness", () => {
    expect(detectClient(hello("cursor"), { modeOverride: "dynamic" })).toMatchObject({
      mode: "dynamic",
      source: "env",
      annotationAware: false,
    });
    expect(detectClient(hello("claude-code"), { modeOverride: "static" })).toMatchObject({
      mode: "static",
      annotationAware: true,
    });
  });

  it("consults the config's client profiles before the built-in ones", () => {
    const profiles = {
      cursor: { mode: "dynamic" as const },
      "my-ide": { mode: "anthropic" as const, annotationAware: true },
    };
    expect(detectClient(hello("cursor"), { profiles })).toMatchObject({ mode: "dynamic", annotationAware: false });
    expect(detectClient(hello("my-ide"), { profiles })).toMatchObject({ mode: "anthropic", annotationAware: true });
  });
});

describe("parseClientMode", () => {
  it("accepts the three modes in any case and nothing else", () => {
    expect(parseClientMode("Dynamic")).toBe("dynamic");
    expect(parseClientMode(undefined)).toBeUndefined();
    expect(parseClientMode("  ")).toBeUndefined();
    expect(() => parseClientMode("eager")).toThrow(
      /FLOW_CLIENT_MODE: unknown client mode "eager"; expected dynamic, static, anthropic/,
    );
  });
});
