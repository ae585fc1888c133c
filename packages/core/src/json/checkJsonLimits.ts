import { formatJsonPath } from "./jsonPath.js";

/** Deepest nesting of objects and arrays allowed in tool arguments. */
export const MAX_ARGUMENT_DEPTH = 64;
/** Largest tool arguments allowed, in bytes of their JSON text. */
const MAX_ARGUMENT_BYTES = 1_048_576;
/**
 * Deepest nesting of objects and arrays allowed in a PRD, counted from its root: room for scripted
 * arguments at their own limit (`$.userStories[i].calls.stepN[j].args` is 6 levels down).
 */
export const MAX_PRD_DEPTH = 100;

/** What {@link checkJsonLimits} found: where, and a message naming the limit. */
export interface JsonLimitProblem {
  /** JSON path under the checked value (`$.a.b[0]`), prefixed with the caller's path. */
  path: string;
  message: string;
}

/**
 * Checks a JSON-like value against a nesting depth and a size limit without recursion, so a value
 * nested thousands deep is reported instead of overflowing the stack of whoever walks it next
 * (schema validation, digests, `JSON.stringify`). Returns the first problem, or undefined.
 *
 * @example
 * checkJsonLimits(args, { prefix: ["userStories", 0, "calls", "step1", 0, "args"] });
 */
export function checkJsonLimits(
  value: unknown,
  options: {
    maxDepth?: number;
    /** `Infinity` skips the size check (and the serialisation it needs). */
    maxBytes?: number;
    prefix?: readonly PropertyKey[];
    /** What the limits are of, for the message (default "tool arguments"). */
    limitOf?: string;
  } = {},
): JsonLimitProblem | undefined {
  const maxDepth = options.maxDepth ?? MAX_ARGUMENT_DEPTH;
  const maxBytes = options.maxBytes ?? MAX_ARGUMENT_BYTES;
  const prefix = options.prefix ?? [];
  const limitOf = options.limitOf ?? "tool arguments";
  // Depths only: a value within the limits (every call's arguments) costs no path. The path of the
  // value too deep is found by a second walk in the same order, only when there is one.
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length) {
    const item = values.pop();
    const depth = depths.pop() ?? 0;
    if (typeof item !== "object" || item === null) continue;
    if (depth >= maxDepth)
      return {
        path: formatJsonPath([...prefix, ...(firstPathAt(value, maxDepth) ?? [])]),
        message: `nested deeper than ${maxDepth} levels (the limit of ${limitOf})`,
      };
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      values.push(child);
      depths.push(depth + 1);
    }
  }
  if (maxBytes === Number.POSITIVE_INFINITY) return undefined;
  // Within the depth limit, serialising is safe.
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");
  if (bytes > maxBytes)
    return {
      path: formatJsonPath(prefix),
      message: `${bytes} bytes of JSON, more than ${maxBytes} (the limit of ${limitOf})`,
    };
  return undefined;
}

/**
 * The keys down to the first value `depth` levels deep, in the check's walk order (so the value it
 * found, whatever else shares that object), without recursion.
 */
function firstPathAt(root: unknown, depth: number): PropertyKey[] | undefined {
  const stack: Array<{ value: unknown; path: PropertyKey[] }> = [{ value: root, path: [] }];
  while (stack.length) {
    const item = stack.pop();
    if (!item || typeof item.value !== "object" || item.value === null) continue;
    if (item.path.length >= depth) return item.path;
    const entries: Array<[PropertyKey, unknown]> = Array.isArray(item.value)
      ? item.value.map((v, i) => [i, v])
      : Object.entries(item.value);
    for (const [key, child] of entries) stack.push({ value: child, path: [...item.path, key] });
  }
  return undefined;
}
