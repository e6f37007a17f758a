/** mcp-parley: the package root re-exports the schema core. Subpaths: ./schema, ./server, ./host, ./testing. */
export * from './schema/index.js';
