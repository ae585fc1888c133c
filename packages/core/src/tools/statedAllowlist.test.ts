import { describe, expect, it } from "vitest";
import { ALLOW_META_KEY, allowlistAllows, statedAllowlist } from "./statedAllowlist.js";

describe("statedAllowlist", () => {
  it("reads the executables a tool states under meshflow/allow", () => {
    expect(statedAllowlist({ meta: { [ALLOW_META_KEY]: ["npm", "node"] } })).toEqual(["npm", "node"]);
    expect(statedAllowlist({ meta: { [ALLOW_META_KEY]: [] } })).toEqual([]);
  });

  it("is undefined for a tool that states nothing, or something else than a list of names", () => {
    expect(statedAllowlist({})).toBeUndefined();
    expect(statedAllowlist({ meta: { other: ["npm"] } })).toBeUndefined();
    expect(statedAllowlist({ meta: { [ALLOW_META_KEY]: "npm" } })).toBeUndefined();
    expect(statedAllowlist({ meta: { [ALLOW_META_KEY]: ["npm", 1] } })).toBeUndefined();
  });
});

describe("allowlistAllows", () => {
  it("matches a bare name exactly, as the workspace server does", () => {
    expect(allowlistAllows(["npm", "node"], "npm")).toBe(true);
    expect(allowlistAllows([], "npm")).toBe(false);
    expect(allowlistAllows(["npm"], "NPM")).toBe(false);
    expect(allowlistAllows(["./bin/npm"], "npm")).toBe(false);
  });

  it("matches a path naming the same file, and cannot tell what depends on the server's root", () => {
    expect(allowlistAllows(["scripts/test.sh"], "./scripts/test.sh")).toBe(true);
    expect(allowlistAllows(["/usr/bin/node"], "/usr/bin/node")).toBe(true);
    expect(allowlistAllows(["npm"], "./scripts/test.sh")).toBe(false);
    expect(allowlistAllows(["scripts/lint.sh"], "scripts/test.sh")).toBe(false);
    expect(allowlistAllows(["/work/app/scripts/test.sh"], "scripts/test.sh")).toBeUndefined();
    expect(allowlistAllows(["scripts/test.sh"], "../scripts/test.sh")).toBeUndefined();
  });
});
