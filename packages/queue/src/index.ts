export type { CallJournal, JournalEntry, JournalStart } from "./CallJournal.js";
export type { Executor } from "./Executor.js";
export { InlineExecutor } from "./InlineExecutor.js";
