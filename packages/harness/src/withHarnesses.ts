import {
  chooseHarness,
  MeshflowError,
  type ModelCatalog,
  modelProviderPart,
  parseModelName,
  type StepModel,
} from "@meshflow/core";
import { apiKeyFor, type ModelBudgets } from "@meshflow/model";
import { findProgram } from "./findProgram.js";
import { HARNESSES } from "./HARNESSES.js";
import type { HarnessAdapter } from "./HarnessAdapter.js";
import { HarnessModel } from "./HarnessModel.js";

/** How a run's harnesses are built: the command's flags and the environment. */
export interface HarnessCatalogOptions {
  /** `--harness`: every specialist's steps, whatever the PRD says. */
  harness?: string;
  /** `--harness-builtin-tools`: the programs' own tools stay on. */
  builtinTools?: boolean;
  /** `--model-base-url` / `FLOW_MODEL_BASE_URL`. */
  baseUrl?: string;
  budgets: ModelBudgets;
  /** The project folder: where programs are looked for (`node_modules/.bin`) and work. */
  cwd?: string;
  env?: Readonly<Record<string, string | undefined>>;
}

/** The adapter of a harness name; `usage` listing the known ones when there is none. */
export function harnessAdapter(name: string, where = "--harness"): HarnessAdapter {
  const adapter = HARNESSES.get(name);
  if (!adapter)
    throw new MeshflowError(
      "usage",
      `${where}: unknown harness "${name}"; known: ${[...HARNESSES.keys()].join(", ")}`,
      {
        details: { known: [...HARNESSES.keys()] },
      },
    );
  return adapter;
}

/** The program of a harness, or `dependency_missing` naming the npm package that installs it. */
export function harnessProgram(
  adapter: HarnessAdapter,
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
) {
  const program = findProgram(adapter.program, cwd, env.PATH ?? "");
  if (!program)
    throw new MeshflowError(
      "dependency_missing",
      `harness "${adapter.name}" needs the program "${adapter.program}", found neither in ${cwd}/node_modules/.bin nor on PATH: install it with \`npm install -D ${adapter.packageName}\``,
      { details: { harness: adapter.name, package: adapter.packageName } },
    );
  return program;
}

/**
 * A run's models with harnesses: a step whose specialist has a harness (`--harness`, the story's or
 * the PRD's `harness`) is worked by that program thinking with the step's model, if one is named;
 * every other step by `models` as before.
 */
export function withHarnesses(models: ModelCatalog, options: HarnessCatalogOptions): ModelCatalog {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  if (options.harness) harnessAdapter(options.harness);
  const built = new Map<string, StepModel>();

  const build = (name: string | undefined, harness: string): StepModel => {
    const adapter = harnessAdapter(harness, "harness");
    const model = name === undefined ? undefined : parseModelName(name);
    if (model && !adapter.providers.includes(model.provider))
      throw new MeshflowError(
        "usage",
        `harness "${harness}" cannot think with ${name}: it takes ${adapter.providers.map((p) => `${p}:…`).join(", ")}`,
      );
    const key = model ? apiKeyFor(model.provider, env) : undefined;
    const baseUrl = options.baseUrl || env.FLOW_MODEL_BASE_URL || undefined;
    return new HarnessModel({
      adapter,
      program: harnessProgram(adapter, cwd, env),
      ...(model ? { model } : {}),
      ...(baseUrl ? { baseUrl } : {}),
      ...(key ? { apiKey: key } : {}),
      keyVariables: model ? [...modelProviderPart(model.provider).keyVariables].reverse() : adapter.keyVariables,
      budgets: options.budgets,
      builtinTools: options.builtinTools === true,
      cwd,
      env: env as NodeJS.ProcessEnv,
    });
  };

  /** The harness's model for a model name, built once: the check's and the steps' are the same. */
  const harnessModel = (name: string | undefined, harness: string): StepModel => {
    const id = `${harness}\u0000${name ?? ""}`;
    let model = built.get(id);
    if (!model) {
      model = build(name, harness);
      built.set(id, model);
    }
    return model;
  };

  return {
    nameFor: (story, prdModel) => models.nameFor(story, prdModel),
    harnessFor: (choice, specialist) => chooseHarness({ override: options.harness, ...choice }, specialist),
    get: (name, harness) => (harness ? harnessModel(name, harness) : models.get(name)),
    async check(names, harnesses = []) {
      for (const harness of harnesses) {
        const adapter = harnessAdapter(harness, "harness");
        harnessProgram(adapter, cwd, env);
        // With --harness every step is the program's: a model it cannot think with is refused now.
        if (options.harness) for (const name of new Set(names)) harnessModel(name, harness);
      }
      // A program given for every step reads its own login when meshflow has no key for it; a
      // refused key still ends the run at its first request.
      if (!options.harness && names.length) await models.check(names);
    },
  };
}
