import { readFileSync } from "node:fs";
import { MeshflowError } from "../../errors/MeshflowError.js";
import { packageFile } from "../../fs/packageFile.js";
import { formatJsonPath } from "../../json/jsonPath.js";
import { parseYaml } from "../../yaml/parseYaml.js";
import { type ModelPrice, type PriceFile, PriceFileSchema } from "./ModelPrice.js";

const SHIPPED_FILE = packageFile(import.meta.url, "data/model-prices.yaml");

/** The prices a run counts cost with: the shipped table and what overrides it. */
export interface PriceTable {
  /** The date of the newest file the table was built from. */
  readonly date: string;
  /** Where its entries came from, the shipped file first. */
  readonly sources: readonly string[];
  readonly models: ReadonlyMap<string, ModelPrice>;
}

/** A price file's text, validated: `prices_invalid` naming the file and the JSON path of what is wrong. */
function parsePriceFile(text: string, file: string): PriceFile {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (cause) {
    throw new MeshflowError("prices_invalid", `${file}: $: not valid YAML or JSON: ${String(cause)}`, { cause });
  }
  const parsed = PriceFileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new MeshflowError(
      "prices_invalid",
      `${file}: ${formatJsonPath(issue?.path ?? [])}: ${issue?.message ?? "not a price file"} (expected {"date": "YYYY-MM-DD", "models": {"<provider>:<model-id>": {"input": …, "output": …}}})`,
      { details: { file } },
    );
  }
  return parsed.data;
}

/** Reads a price file (`--prices <file>`, YAML or JSON). */
export function readPriceFile(file: string): PriceFile {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (cause) {
    throw new MeshflowError("file_not_found", `${file}: cannot read the price file (${(cause as Error).message})`, {
      cause,
    });
  }
  return parsePriceFile(text, file);
}

let shipped: PriceTable | undefined;

/** The price table meshflow ships (`data/model-prices.yaml` of `@meshflow/core`), with its date. */
export function shippedPrices(): PriceTable {
  if (!shipped) {
    const file = parsePriceFile(readFileSync(SHIPPED_FILE, "utf8"), SHIPPED_FILE);
    shipped = { date: file.date, sources: [SHIPPED_FILE], models: new Map(Object.entries(file.models)) };
  }
  return shipped;
}

/**
 * A table with `entries` over `table`, field by field (an entry that gives only `contextWindow` keeps
 * the prices it had). `date`: the overriding file's, when it is newer.
 */
export function overridePrices(
  table: PriceTable,
  entries: Readonly<Record<string, ModelPrice>>,
  source: string,
  date?: string,
): PriceTable {
  if (!Object.keys(entries).length) return table;
  const models = new Map(table.models);
  for (const [name, price] of Object.entries(entries)) models.set(name, { ...models.get(name), ...price });
  return {
    date: date && date > table.date ? date : table.date,
    sources: [...table.sources, source],
    models,
  };
}

/**
 * The prices of a model name: its own entry, else the entry of the name without a date suffix
 * (`claude-sonnet-4-5-20250929` → `claude-sonnet-4-5`); undefined when the table does not know it.
 */
export function priceOf(table: PriceTable, name: string): ModelPrice | undefined {
  return table.models.get(name) ?? table.models.get(name.replace(/[-@]\d{8}$/, ""));
}
