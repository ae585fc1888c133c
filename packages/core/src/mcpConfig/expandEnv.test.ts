import { describe, expect, it } from "vitest";
import { expandEnv } from "./expandEnv.js";

describe("expandEnv", () => {
  const env = { HOME: "/home/u", EMPTY: "", TOKEN: "s3cret" };

  it("replaces ${VAR} with its value", () => {
    expect(expandEnv("${HOME}/data and ${TOKEN}", env)).toEqual({
      ok: true,
      value: "/home/u/data and s3cret",
      values: ["/home/u", "s3cret"],
    });
  });

  it("uses the default of ${VAR:-default} when VAR is unset or empty", () => {
    // A default is written in the file, so it is not among the values taken from the environment.
    expect(expandEnv("${NOPE:-/tmp/x}", env)).toEqual({ ok: true, value: "/tmp/x", values: [] });
    expect(expandEnv("${EMPTY:-fallback}", env)).toEqual({ ok: true, value: "fallback", values: [] });
    expect(expandEnv("${HOME:-unused}", env)).toEqual({ ok: true, value: "/home/u", values: ["/home/u"] });
    expect(expandEnv("${NOPE:-}", env)).toEqual({ ok: true, value: "", values: [] });
  });

  it("reports every unset variable without a default instead of blanking it", () => {
    expect(expandEnv("${A}-${B}-${HOME}", env)).toEqual({ ok: false, missing: ["A", "B"] });
  });

  it("leaves text without references, and $VAR without braces, alone", () => {
    expect(expandEnv("plain $HOME text", env)).toEqual({ ok: true, value: "plain $HOME text", values: [] });
  });
});
