/**
 * The terminal UI: a {@link TerminalPresenter} for `parley call` and other interactive commands.
 * @module
 */
export { TerminalPresenter, openInBrowser, type TerminalPresenterOptions } from './presenter.js';
export { askField, checkField, fieldLabel, CANCELLED, SKIPPED, type FieldIo } from './fields.js';
