import { createHash } from "node:crypto";

/**
 * One block of a request's prefix in the order a provider caches it (tools, system, messages): its
 * content without any cache mark, and whether the request put a cache mark on it.
 */
export interface CacheBlock {
  text: string;
  mark: boolean;
}

/** How a provider caches prompts: only up to marks (Anthropic), or every long prefix (OpenAI). */
export type CacheStyle = "breakpoints" | "automatic";

/** What a request read from and wrote to the cache, in tokens. */
export interface CacheUse {
  read: number;
  write: number;
}

/** Blocks a breakpoint looks back for an earlier cached prefix (Anthropic's documented 20). */
const LOOKBACK = 20;
/** OpenAI counts cached tokens in steps of 128. */
const OPENAI_STEP = 128;

/** Tokens of text at the server's rate: about four characters a token. */
const tokensOf = (chars: number) => Math.ceil(chars / 4);

/**
 * The scripted server's prompt cache, per model, modelled on what the providers document. Anthropic
 * (`breakpoints`): a request reads the longest earlier-cached prefix that ends at one of its cache
 * marks or up to 20 blocks before one, and writes the prefix up to its last mark (what is beyond the
 * read); prefixes shorter than `minTokens` are not cached. OpenAI (`automatic`): a request reads the
 * longest prefix an earlier request of the model shared, in steps of 128 tokens, from `minTokens` on.
 */
export class PromptCache {
  readonly #minTokens: number;
  /** Digests of cached prefixes, by model. */
  readonly #cached = new Map<string, Set<string>>();

  /** `minTokens`: the shortest prefix a provider caches (1,024 for both by default). */
  constructor(minTokens = 1024) {
    this.#minTokens = minTokens;
  }

  /** What a request of `model` made of `blocks` reads from and writes to the cache. */
  use(model: string, style: CacheStyle, blocks: readonly CacheBlock[]): CacheUse {
    let store = this.#cached.get(model);
    if (!store) {
      store = new Set();
      this.#cached.set(model, store);
    }
    const digests: string[] = [];
    const tokens: number[] = [];
    let hash = createHash("sha256");
    let chars = 0;
    for (const block of blocks) {
      hash = hash.copy().update(block.text).update("\u0000");
      chars += block.text.length;
      digests.push(hash.copy().digest("hex"));
      tokens.push(tokensOf(chars));
    }
    return style === "breakpoints"
      ? this.#breakpoints(store, blocks, digests, tokens)
      : this.#automatic(store, digests, tokens);
  }

  #breakpoints(store: Set<string>, blocks: readonly CacheBlock[], digests: string[], tokens: number[]): CacheUse {
    const marks = blocks.flatMap((b, i) => (b.mark ? [i] : []));
    let hit = -1;
    for (const mark of marks)
      for (let i = mark; i >= 0 && i > mark - LOOKBACK; i--)
        if (i > hit && store.has(digests[i] as string)) {
          hit = i;
          break;
        }
    const read = hit >= 0 ? (tokens[hit] ?? 0) : 0;
    let write = 0;
    for (const mark of marks) {
      const size = tokens[mark] ?? 0;
      if (size < this.#minTokens) continue;
      store.add(digests[mark] as string);
      if (mark > hit) write = Math.max(write, size - read);
    }
    return { read, write };
  }

  #automatic(store: Set<string>, digests: string[], tokens: number[]): CacheUse {
    let hit = -1;
    for (let i = digests.length - 1; i >= 0; i--)
      if (store.has(digests[i] as string)) {
        hit = i;
        break;
      }
    for (const digest of digests) store.add(digest);
    const shared = hit >= 0 ? (tokens[hit] ?? 0) : 0;
    const read = shared >= this.#minTokens ? Math.floor(shared / OPENAI_STEP) * OPENAI_STEP : 0;
    return { read, write: 0 };
  }
}
