// Public API of @meshflow/resolver: filled in by its issue.
export {};
