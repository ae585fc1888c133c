import { describe, expect, it } from "vitest";
import { coded, plural } from "./output.js";

describe("coded", () => {
  it("prints the code once when the message already starts with it", () => {
    // A refusal's text is "<code>: <message>"; events carried it as the message and were prefixed again.
    expect(coded("guard_locked", "guard_locked: calls over the limit")).toBe("guard_locked: calls over the limit");
    expect(coded("guard_locked", "calls over the limit")).toBe("guard_locked: calls over the limit");
  });
});

describe("plural", () => {
  it("does singular and irregular plurals", () => {
    expect(plural(1, "story", "stories")).toBe("1 story");
    expect(plural(2, "story", "stories")).toBe("2 stories");
    expect(plural(0, "step")).toBe("0 steps");
  });
});
