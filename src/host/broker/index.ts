/** The host's elicitation broker. See docs/broker.md. @module */
export { COMPLETE_AUDIT_BURST, ElicitationBroker, REFUSAL_AUDIT_BURST, REFUSAL_AUDIT_REFILL_MS, revisionOf } from './broker.js';
export type { BrokerOptions } from './broker.js';
export { InvalidElicitationError, ElicitationCancelledError } from './errors.js';
export { RateLimiter, checkUrl } from './policy.js';
export { MAX_URL_ELICITATIONS, UrlElicitationRegistry } from './urls.js';
export { MAX_SAMPLING_MESSAGES, MAX_SAMPLING_SHOWN_CHARS, MAX_SAMPLING_REPLY_CHARS, SAMPLING_MODEL } from './sampling.js';
export type { UrlElicitationState } from './urls.js';
export { DEFAULT_BROKER_TIMEOUTS } from './types.js';
export type * from './types.js';
