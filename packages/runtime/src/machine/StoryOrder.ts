/** What {@link StoryOrder} reads of a plan: each story's id, priority and `dependsOn`, in run order. */
export interface OrderedStories {
  stories: ReadonlyArray<{ id: string; story: { priority: number; dependsOn?: readonly string[] | undefined } }>;
}

/**
 * Which stories may run together (`--parallel-order`): `band`, stories of one priority band that do not
 * depend on one another; `deps`, any stories that do not depend on one another, whatever their priority.
 */
export type ParallelOrder = "band" | "deps";

/** What {@link StoryOrder} needs to know of a story: its priority band and the stories it waits for. */
interface Ordering {
  priority: number;
  /** Plan indexes of the stories it depends on that come before it in run order. */
  after: number[];
}

/**
 * When the next story of a run may start: the stories in progress are all of its priority
 * band (unless the order is `deps`), and every story it `dependsOn` that comes before it in run order has finished (a dependency
 * later in run order cannot have finished first, in a sequential run either, and is not waited for).
 * Each story's ordering is read once from the plan, and only when a story is in progress beside it.
 */
export class StoryOrder {
  readonly #plan: () => OrderedStories;
  readonly #bands: boolean;
  readonly #known = new Map<number, Ordering>();
  #ids: Map<string, number> | undefined;

  constructor(plan: () => OrderedStories, order: ParallelOrder = "band") {
    this.#plan = plan;
    this.#bands = order === "band";
  }

  #of(index: number): Ordering | undefined {
    let found = this.#known.get(index);
    if (found) return found;
    const planned = this.#plan().stories[index];
    if (!planned) return undefined;
    if (!this.#ids) this.#ids = new Map(this.#plan().stories.map((s, i) => [s.id, i]));
    const ids = this.#ids;
    const story = planned.story;
    const after = (story.dependsOn ?? []).flatMap((id) => {
      const at = ids.get(id);
      return at !== undefined && at < index ? [at] : [];
    });
    found = { priority: story.priority, after };
    this.#known.set(index, found);
    return found;
  }

  /**
   * Whether story `next` may start while the stories `running` (plan indexes; null entries are free
   * story actors) but `done` (one that has just concluded) are in progress.
   */
  canStart(next: number, running: ReadonlyArray<number | null>, done?: number): boolean {
    // With nothing in progress any story may start: its ordering (read from the story file) is not needed.
    if (running.every((story) => story === null || story === done)) return next < this.#plan().stories.length;
    const ordering = this.#of(next);
    if (!ordering) return false;
    for (const story of running) {
      if (story === null || story === done) continue;
      if (this.#bands && this.#of(story)?.priority !== ordering.priority) return false;
      if (ordering.after.includes(story)) return false;
    }
    return true;
  }
}
