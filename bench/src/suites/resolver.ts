import { performance } from "node:perf_hooks";
import type { ToolDescriptor } from "@meshflow/core";
import {
  buildCapabilityCatalog,
  classifyTools,
  computeCoverage,
  createResolver,
  mergeAliasFiles,
  type Resolver,
  type Skill,
} from "@meshflow/resolver";
import { type Row, stats } from "../measure.js";

const SERVERS = 10;
const PER_SERVER = 100;
const DOMAINS = [
  "valuation",
  "credit",
  "fixed_income",
  "derivatives",
  "quant_risk",
  "macro",
  "esg",
  "pe",
  "venture",
  "insurance",
];
const VERBS = ["compute", "model", "analyse", "estimate", "report", "score", "forecast", "price", "test", "screen"];
const NOUNS = [
  "curve",
  "spread",
  "ratio",
  "exposure",
  "scenario",
  "portfolio",
  "cashflow",
  "covenant",
  "yield",
  "premium",
];
// ~60 prefixes, as the resolver's prefix tier is configured in practice
const PREFIXES = [...DOMAINS.map((d) => `${d}_`), ...Array.from({ length: 50 }, (_, i) => `domain${i}_`)];

/** 1,000 tools on 10 servers, names unique across servers, with descriptions and annotations. */
function generateTools(): ToolDescriptor[] {
  const tools: ToolDescriptor[] = [];
  for (let s = 0; s < SERVERS; s++)
    for (let t = 0; t < PER_SERVER; t++) {
      const name = `${VERBS[t % 10]}_${NOUNS[Math.floor(t / 10)]}_${s}`;
      const server = `srv${s}`;
      tools.push({
        qualifiedName: `${server}__${name}`,
        server,
        name,
        description: `${VERBS[t % 10]} the ${NOUNS[Math.floor(t / 10)]} for the ${DOMAINS[s]} desk`,
        inputSchema: { type: "object", properties: { id: { type: "string" } } },
        annotations: { readOnlyHint: t % 3 !== 0 },
      });
    }
  return tools;
}

/** Calls per second of `fn` over `inputs`, best of `rounds` (each round runs `perRound` calls). */
function rate(inputs: readonly string[], fn: (name: string) => unknown, perRound: number, rounds = 7): number {
  let sink = 0;
  const rates: number[] = [];
  for (let r = 0; r < rounds + 1; r++) {
    const start = performance.now();
    for (let i = 0; i < perRound; i++) if (fn(inputs[i % inputs.length] as string)) sink++;
    const elapsed = performance.now() - start;
    if (r > 0) rates.push(perRound / (elapsed / 1000)); // round 0 warms up the JIT
  }
  if (sink < 0) console.log(sink);
  return Math.max(...rates);
}

/** The resolver a static-map implementation would be: linear scans over the repertoire, same semantics. */
function naiveResolve(
  name: string,
  tools: readonly ToolDescriptor[],
  aliases: Record<string, string>,
): ToolDescriptor | undefined {
  const exact = tools.find((t) => t.qualifiedName === name || t.name === name);
  if (exact) return exact;
  const target = aliases[name];
  if (target) return tools.find((t) => t.qualifiedName === target || t.name === target);
  for (const prefix of PREFIXES)
    if (name.startsWith(prefix)) {
      const hit = tools.find((t) => t.name === name.slice(prefix.length));
      if (hit) return hit;
    }
  return undefined;
}

/** Resolutions per second by tier on a 1,000-tool repertoire, and coverage of 1,000 tools × 20 specialists. */
export async function resolverSuite(): Promise<Row[]> {
  const tools = generateTools();
  const aliasEntries = Object.fromEntries(tools.map((t, i) => [`agent_tool_${i}`, t.name]));
  const aliases = mergeAliasFiles([{ file: "bench.yaml", content: { prefixes: PREFIXES, aliases: aliasEntries } }]);
  const catalog = buildCapabilityCatalog({
    version: 1,
    capabilities: Object.fromEntries(
      NOUNS.map((noun) => [
        `${noun}_analytics`,
        { description: noun, tools: [`${noun}_tool`], match: { name: [`^compute_${noun}_0$`] } },
      ]),
    ),
  });
  const classifyStart = performance.now();
  const index = await classifyTools(tools, { catalog });
  const classifyMs = performance.now() - classifyStart;
  const resolver: Resolver = createResolver({ aliases, capabilities: index, onWarning: () => {} });

  const qualified = tools.map((t) => t.qualifiedName);
  const bare = tools.map((t) => t.name);
  const aliased = Object.keys(aliasEntries);
  const prefixed = tools.map((t, i) => `${PREFIXES[i % PREFIXES.length]}${t.name}`);
  // each capability (one per noun) has exactly one tool: compute_<noun>_0
  const capabilityNames = NOUNS.map((noun) => `${noun}_tool`);
  const perRound = 2_000_000;

  const exactQ = rate(qualified, (n) => resolver.resolve(n, tools), perRound);
  const exactB = rate(bare, (n) => resolver.resolve(n, tools), perRound);
  const alias = rate(aliased, (n) => resolver.resolve(n, tools), perRound);
  const prefix = rate(prefixed, (n) => resolver.resolve(n, tools), perRound / 4);
  const capability = rate(capabilityNames, (n) => resolver.resolve(n, tools), perRound / 4);
  const notFound = rate(
    ["no_such_tool_anywhere"],
    (n) => {
      try {
        return resolver.resolve(n, tools);
      } catch {
        return undefined;
      }
    },
    200,
    3,
  );
  const naiveMixed = rate([...qualified, ...aliased], (n) => naiveResolve(n, tools, aliasEntries), 20_000);
  const mixed = rate([...qualified, ...aliased], (n) => resolver.resolve(n, tools), perRound);

  // index build: the first resolution over a new repertoire array
  const buildSamples: number[] = [];
  for (let i = 0; i < 30; i++) {
    const copy = [...tools];
    const start = performance.now();
    resolver.resolve(qualified[i] as string, copy);
    buildSamples.push(performance.now() - start);
  }

  // coverage: 20 specialists, each on 3 of the 10 servers, half with skills, each with a 50-entry alias pack
  const skills: Skill[] = NOUNS.map((noun) => ({
    name: `${noun}-skill`,
    description: noun,
    permissions: [`${noun}_analytics`],
    body: "",
    file: `${noun}/SKILL.md`,
    metadata: {},
  }));
  const packs = mergeAliasFiles(
    Array.from({ length: 20 }, (_, s) => ({
      file: `pack${s}.yaml`,
      content: {
        specialist: `specialist-${s}`,
        prefixes: [],
        aliases: Object.fromEntries(
          Array.from({ length: 50 }, (_, k) => [`s${s}_name_${k}`, bare[(s * 50 + k) % bare.length] as string]),
        ),
      },
    })),
  );
  const specialists = Array.from({ length: 20 }, (_, s) => ({
    specialist: {
      name: `specialist-${s}`,
      readOnly: s % 4 === 0,
      ...(s % 2 ? { skills: [`${NOUNS[s % 10]}-skill`] } : {}),
    },
    servers: [`srv${s % 10}`, `srv${(s + 3) % 10}`, `srv${(s + 7) % 10}`],
  }));
  const coverageSamples: number[] = [];
  let report = computeCoverage({ tools, specialists, skills, index, aliases: packs });
  for (let i = 0; i < 30; i++) {
    const start = performance.now();
    report = computeCoverage({ tools, specialists, skills, index, aliases: packs });
    coverageSamples.push(performance.now() - start);
  }
  const coverage = stats(coverageSamples);
  const build = stats(buildSamples);

  const M = 1_000_000;
  const goal = (value: number) => ({
    baseline: { label: "goal 2 M/s", value: 2 },
    goal: "≥ 1.0× (2 M/s)",
    pass: value / M >= 2,
  });
  return [
    {
      suite: "resolver",
      case: "tier 1 exact, qualified name (1,000 tools)",
      value: exactQ / M,
      unit: "M res/s",
      ...goal(exactQ),
    },
    {
      suite: "resolver",
      case: "tier 1 exact, bare name (1,000 tools)",
      value: exactB / M,
      unit: "M res/s",
      ...goal(exactB),
    },
    { suite: "resolver", case: "tier 2 alias map (1,000 entries)", value: alias / M, unit: "M res/s", ...goal(alias) },
    { suite: "resolver", case: "tier 3 prefix strip (60 prefixes, warns)", value: prefix / M, unit: "M res/s" },
    { suite: "resolver", case: "tier 4 capability", value: capability / M, unit: "M res/s" },
    { suite: "resolver", case: "unresolved → tool_not_found + 5 candidates", value: notFound, unit: "res/s" },
    {
      suite: "resolver",
      case: "tiers 1–2 mixed",
      value: mixed / M,
      unit: "M res/s",
      baseline: { label: "linear-scan resolver", value: naiveMixed / M },
    },
    { suite: "resolver", case: "linear-scan resolver, tiers 1–2 mixed", value: naiveMixed / M, unit: "M res/s" },
    { suite: "resolver", case: "index build, first resolve on a new repertoire", value: build.p50, unit: "ms p50" },
    { suite: "resolver", case: "classifyTools, 1,000 tools (rule classifier)", value: classifyMs, unit: "ms" },
    {
      suite: "resolver",
      case: `coverage 1,000 tools × 20 specialists (${report.percent.toFixed(0)}%)`,
      value: coverage.p50,
      unit: "ms p50",
      baseline: { label: "goal 20 ms", value: 20 },
      goal: "< 1.0× (20 ms)",
      pass: coverage.p50 < 20,
    },
  ];
}
