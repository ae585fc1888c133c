import { type OrderedStories, type ParallelOrder, StoryOrder } from "./StoryOrder.js";

/** A story as {@link parallelWaves} reads it. */
export interface WaveStory {
  id: string;
  priority: number;
  dependsOn?: readonly string[] | undefined;
  /** `passes: true`: skipped, in no wave. */
  skipped?: boolean;
}

/**
 * The waves of a run of `parallel` stories at once (`flow plan --parallel n`): the stories the chief
 * analyst starts together, in run order, were each story to take as long as the others (a wave's stories
 * start together; the next wave once they have finished). `stories` are in run order.
 *
 * @example parallelWaves([{ id: "A", priority: 1 }, { id: "B", priority: 1 }], 2) // [["A", "B"]]
 */
export function parallelWaves(
  stories: readonly WaveStory[],
  parallel: number,
  order: ParallelOrder = "band",
): string[][] {
  const plan: OrderedStories = { stories: stories.map((s) => ({ id: s.id, story: s })) };
  const rule = new StoryOrder(() => plan, order);
  const waves: string[][] = [];
  let next = 0;
  while (next < stories.length) {
    const running: number[] = [];
    while (next < stories.length && running.length < Math.max(1, parallel)) {
      if (stories[next]?.skipped) {
        next++;
        continue;
      }
      if (!rule.canStart(next, running)) break;
      running.push(next++);
    }
    if (running.length) waves.push(running.map((i) => stories[i]?.id ?? ""));
  }
  return waves;
}
