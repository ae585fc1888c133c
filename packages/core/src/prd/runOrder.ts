import type { Prd, Story } from "./PrdSchema.js";

/** A story with its position in the file (the index its JSON paths use). */
export interface IndexedStory {
  story: Story;
  index: number;
}

/** Stories in run order: ascending priority, ties in file order. Stories with `passes: true` are included. */
export function storiesInRunOrder(prd: Prd): IndexedStory[] {
  return prd.userStories
    .map((story, index) => ({ story, index }))
    .sort((a, b) => a.story.priority - b.story.priority || a.index - b.index);
}
