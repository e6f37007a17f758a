/** mcp-parley/schema: the elicitation form-schema subset of every protocol revision. Pure, no I/O. */
export * from './types.js';
