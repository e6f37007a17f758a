/** The web console of `parley up`: {@link startConsole}, {@link WebPresenter} and the {@link HostApi} it needs. @module */
export { startConsole, type ConsoleOptions, type ConsoleHandle } from './server.js';
export { WebPresenter, type PresenterEvent, type AnswerOutcome, type WebPresenterOptions } from './presenter.js';
export { promptPayload, issueField, type FieldView, type PromptPayload } from './fields.js';
export { HostApiError } from './hostApi.js';
export type {
  HostApi,
  HostEvent,
  ServerInfo,
  ServerState,
  ToolInfo,
  ToolContent,
  CallToolResult,
  RootInfo,
  PresetInfo,
  AuditFilter,
} from './hostApi.js';
export { hostApiFor } from './hostAdapter.js';
