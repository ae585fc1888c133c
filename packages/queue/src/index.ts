// Public API of @meshflow/queue: filled in by its issue.
export {};
