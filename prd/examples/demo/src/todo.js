import { normaliseTitle } from "./format.js";

/** A new open task. */
export function createTask(title, id) {
  return { id, title: normaliseTitle(title), done: false };
}

/** The task marked done (a new object; tasks are never changed in place). */
export function completeTask(task) {
  return { ...task, done: true };
}

/** Tasks still open, in their original order. */
export function openTasks(tasks) {
  return tasks.filter((task) => !task.done);
}
