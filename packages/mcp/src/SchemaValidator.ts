import { createRequire } from "node:module";
import { formatJsonPath, type ToolDescriptor } from "@meshflow/core";
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from "ajv";
import type { Ajv2019 } from "ajv/dist/2019.js";
import type { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

// The 2019-09 and 2020-12 dialects load only for a schema that declares one (ajv is CommonJS).
const require = createRequire(import.meta.url);

// ajv-formats is CommonJS with a default export; under NodeNext the callable is `.default` at run time.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => void;

/** The verdict on one set of arguments. */
export type ArgsCheck =
  | { ok: true }
  /** `problems` read `$.path: message`, one per violated constraint. */
  | { ok: false; problems: string[] }
  /** The tool's schema itself could not be compiled; the server is left to judge the arguments. */
  | { ok: "skipped"; reason: string };

type Compiled = { validate: ValidateFunction } | { error: string };

const OPTIONS: Options = {
  // Server schemas use keywords and formats ajv's strict mode rejects; they are still valid JSON Schema.
  strict: false,
  allErrors: true,
  logger: false,
  validateSchema: false,
};

/**
 * Validates tool arguments against the tools' input JSON Schemas with ajv. Each schema is compiled
 * once (per descriptor object: a rediscovered tool gets a fresh validator) and reused for every call;
 * the compiled validator is freed with its descriptor (ajv's own cache does not keep it).
 */
export class SchemaValidator {
  private readonly compiled = new WeakMap<ToolDescriptor, Compiled>();
  /** One ajv instance per JSON Schema dialect, created on first use. */
  private readonly instances = new Map<string, Ajv>();

  /** Checks `args` against `tool.inputSchema`. */
  check(tool: ToolDescriptor, args: Record<string, unknown>): ArgsCheck {
    let entry = this.compiled.get(tool);
    if (!entry) {
      entry = this.compile(tool.inputSchema);
      this.compiled.set(tool, entry);
    }
    if ("error" in entry) return { ok: "skipped", reason: entry.error };
    if (entry.validate(args)) return { ok: true };
    return { ok: false, problems: (entry.validate.errors ?? []).map(describeError) };
  }

  private compile(schema: Record<string, unknown>): Compiled {
    const ajv = this.ajvFor(schema);
    try {
      return { validate: ajv.compile(schema) };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    } finally {
      // ajv keeps every compiled schema (by object and by `$id`) for good; the validator lives with its
      // tool descriptor instead, so a long-lived server's rediscovered tools do not pile up, and a
      // changed schema with the same `$id` compiles again.
      ajv.removeSchema(schema);
    }
  }

  private ajvFor(schema: Record<string, unknown>): Ajv {
    const dialect = typeof schema.$schema === "string" ? schema.$schema : "";
    const key = dialect.includes("2020-12") ? "2020-12" : dialect.includes("2019-09") ? "2019-09" : "draft-07";
    let ajv = this.instances.get(key);
    if (!ajv) {
      ajv =
        key === "2020-12"
          ? new (require("ajv/dist/2020.js") as { Ajv2020: typeof Ajv2020 }).Ajv2020(OPTIONS)
          : key === "2019-09"
            ? new (require("ajv/dist/2019.js") as { Ajv2019: typeof Ajv2019 }).Ajv2019(OPTIONS)
            : new Ajv(OPTIONS);
      addFormats(ajv);
      this.instances.set(key, ajv);
    }
    return ajv;
  }
}

/** `/a/0/b` (JSON Pointer, `~1` and `~0` escaped) → `$.a[0].b`. */
function pointerToPath(pointer: string): string {
  if (!pointer) return "$";
  const segments = pointer
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  return formatJsonPath(segments);
}

function describeError(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "required" && typeof params.missingProperty === "string")
    return `${pointerToPath(`${error.instancePath}/${params.missingProperty.replace(/~/g, "~0").replace(/\//g, "~1")}`)}: is required`;
  if (error.keyword === "additionalProperties" && typeof params.additionalProperty === "string")
    return `${pointerToPath(`${error.instancePath}/${params.additionalProperty.replace(/~/g, "~0").replace(/\//g, "~1")}`)}: is not allowed (unknown property)`;
  if (error.keyword === "enum" && Array.isArray(params.allowedValues))
    return `${pointerToPath(error.instancePath)}: must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(", ")}`;
  return `${pointerToPath(error.instancePath)}: ${error.message ?? `fails "${error.keyword}"`}`;
}
