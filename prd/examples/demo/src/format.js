/** A task title as the list shows it: trimmed, single spaces, capitalised, at most 80 characters. */
export function normaliseTitle(title) {
  const collapsed = title.trim().replace(/\s+/g, " ");
  const capitalised = collapsed.charAt(0).toUpperCase() + collapsed.slice(1);
  return capitalised.length > 80 ? `${capitalised.slice(0, 79)}…` : capitalised;
}

/** One line of the text list: a box, then the title. */
export function formatTask(task) {
  return `${task.done ? "[x]" : "[ ]"} ${task.title}`;
}
