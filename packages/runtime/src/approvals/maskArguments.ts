/** Argument names whose values are secrets whatever they hold. */
const SECRET_NAMES = /pass(word|phrase)?$|secret|token|api[-_]?key|authorization|credential|private[-_]?key/i;

/**
 * A call's arguments as a person is shown them: the MCP config's secret values masked wherever they
 * appear (`mask`, applied to every string, key and number of the arguments), and the value of every
 * argument named like a secret (`password`, `apiKey`, `token`…) replaced by `***`, at any depth.
 */
export function maskArguments(
  args: Record<string, unknown>,
  mask: ((text: string) => string) | undefined,
): Record<string, unknown> {
  return hide(args, mask ?? ((text) => text)) as Record<string, unknown>;
}

function hide(value: unknown, mask: (text: string) => string): unknown {
  if (typeof value === "string") return mask(value);
  // A secret of digits passed as a number is masked as the text it would be.
  if (typeof value === "number") return mask(String(value)) === String(value) ? value : "***";
  if (Array.isArray(value)) return value.map((inner) => hide(inner, mask));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value))
    out[mask(name)] =
      SECRET_NAMES.test(name) && inner !== null && typeof inner !== "object" ? "***" : hide(inner, mask);
  return out;
}
