/** mcp-parley/testing: fixtures and helpers for testing hosts and servers built with parley. @module */
export { EVERY_KIND_FORM, EVERY_KIND_CONTENT, CONFIRM_ONLY } from './fixtures.js';
export { connect, TEST_REVISIONS } from './connect.js';
export type { AnswerFunction, ConnectOptions, TestAnswer, TestConnection, TestRevision, TestServerFactory } from './connect.js';
