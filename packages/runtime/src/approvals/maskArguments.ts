/** Argument names whose values are secrets whatever they hold. */
const SECRET_NAMES = /pass(word|phrase)?$|secret|token|api[-_]?key|authorization|credential|private[-_]?key/i;

/**
 * A call's arguments as a person is shown them: the MCP config's secret values masked wherever they
 * appear (`mask`), and the value of every argument named like a secret (`password`, `apiKey`,
 * `token`…) replaced by `***`, at any depth.
 */
export function maskArguments(
  args: Record<string, unknown>,
  mask: ((text: string) => string) | undefined,
): Record<string, unknown> {
  const masked = mask ? (JSON.parse(mask(JSON.stringify(args))) as Record<string, unknown>) : args;
  return hideNamed(masked) as Record<string, unknown>;
}

function hideNamed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(hideNamed);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value))
    out[name] = SECRET_NAMES.test(name) && inner !== null && typeof inner !== "object" ? "***" : hideNamed(inner);
  return out;
}
