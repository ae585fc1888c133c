import { describe, expect, it } from "vitest";
import { ModelNameSchema, parseModelName } from "../ModelName.js";
import { MODEL_HELP, MODEL_PROVIDER_PARTS, MODEL_PROVIDERS, modelProviderPart } from "./modelProviders.js";

describe("MODEL_PROVIDER_PARTS", () => {
  it("names each provider once, in a form the model-name pattern takes as it is", () => {
    expect(new Set(MODEL_PROVIDERS).size).toBe(MODEL_PROVIDERS.length);
    for (const name of MODEL_PROVIDERS) expect(name).toMatch(/^[a-z][a-z0-9-]*$/);
  });

  it("gives every part's example a name that parses to that part", () => {
    for (const part of MODEL_PROVIDER_PARTS) {
      const name = `${part.name}:${part.exampleModel}`;
      expect(ModelNameSchema.safeParse(name).success).toBe(true);
      expect(modelProviderPart(parseModelName(name).provider)).toBe(part);
    }
    expect(ModelNameSchema.safeParse("acme:model-1").success).toBe(false);
  });

  it("derives the help texts from the parts", () => {
    expect(MODEL_HELP.prefixes).toBe("anthropic:…, openai:…, openai-compatible:…");
    expect(MODEL_HELP.keyVariables).toBe("FLOW_MODEL_API_KEY, ANTHROPIC_API_KEY, OPENAI_API_KEY");
    expect(MODEL_HELP.baseUrlExample).toBe("http://127.0.0.1:11434/v1 (Ollama)");
    expect(MODEL_HELP.keys).toBe(
      "Keys: anthropic reads FLOW_MODEL_API_KEY, else ANTHROPIC_API_KEY; openai reads FLOW_MODEL_API_KEY, else OPENAI_API_KEY; openai-compatible reads only FLOW_MODEL_API_KEY (OPENAI_API_KEY is not sent; a warning says so)",
    );
  });

  it("has an endpoint rule and a key variable for every part", () => {
    for (const part of MODEL_PROVIDER_PARTS) {
      expect(part.keyVariables.length).toBeGreaterThan(0);
      expect("default" in part.baseUrl || "required" in part.baseUrl).toBe(true);
    }
  });
});
