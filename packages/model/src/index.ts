/** The public API of @meshflow/model. */
export {};
