import { KEY_VARIABLES } from "@meshflow/model";
import { describe, expect, it } from "vitest";
import { MODEL_KEYS_HELP } from "./shared.js";

describe("MODEL_KEYS_HELP", () => {
  it("names the variables each provider reads, in the order KEY_VARIABLES reads them", () => {
    for (const [provider, variables] of Object.entries(KEY_VARIABLES)) {
      const said = variables.length === 1 ? `reads only ${variables[0]}` : `reads ${variables.join(", else ")}`;
      expect(MODEL_KEYS_HELP).toContain(`${provider} ${said}`);
    }
  });
});
