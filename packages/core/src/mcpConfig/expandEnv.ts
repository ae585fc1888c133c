const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Result of expanding `${VAR}` references in one string. */
export type ExpandResult =
  | {
      ok: true;
      value: string;
      /** What each reference took from the environment (not defaults written in the file). */
      values: string[];
    }
  | { ok: false; missing: string[] };

/**
 * Expands `${VAR}` and `${VAR:-default}` (default when VAR is unset or empty), the syntax of `.mcp.json`.
 * A `${VAR}` without default whose variable is unset is reported, never replaced by an empty string.
 */
export function expandEnv(input: string, env: Readonly<Record<string, string | undefined>>): ExpandResult {
  const missing: string[] = [];
  const values: string[] = [];
  const value = input.replace(REFERENCE, (whole, name: string, fallback: string | undefined) => {
    const found = env[name];
    if (found !== undefined && found !== "") {
      values.push(found);
      return found;
    }
    if (fallback !== undefined) return fallback;
    if (found === "") return "";
    missing.push(name);
    return whole;
  });
  return missing.length ? { ok: false, missing } : { ok: true, value, values };
}
