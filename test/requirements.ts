// Requirements manifest: requirement id → spec file and section (as cited in
// ../shared/reference/protocol.md, spec commit b0f60ba5). A test verifies a row by calling
// `verifies(id, [era], [transport], [fn])` (test/helpers/verifies.ts); test/requirements.test.ts fails
// when a listed requirement has no such call or a call names an unknown id. Add rows as features land;
// never list a requirement no test verifies.

export interface Requirement {
  /** Spec file under docs/specification/ (or schema/). */
  spec: string;
  /** Section and lines. */
  section: string;
  /** The rule, in a few words. */
  rule: string;
}

export const REQUIREMENTS: Record<string, Requirement> = {
  'ELIC-0618-SUBSET-FLAT': {
    spec: '2025-06-18/client/elicitation.mdx',
    section: '§Request Schema l.197-279; schema.ts l.1485-1541',
    rule: 'requestedSchema is a flat object of primitive properties; no nesting, no arrays of objects',
  },
  'ELIC-0618-DEFAULT-BOOLEAN-ONLY': {
    spec: 'schema/2025-06-18/schema.ts',
    section: 'l.1485-1541',
    rule: 'only BooleanSchema has default in 2025-06-18',
  },
  'ELIC-1125-ENUM-SHAPES': {
    spec: 'schema/2025-11-25/schema.ts',
    section: 'l.2286-2466 (SEP-1330)',
    rule: 'untitled/titled single- and multi-select enums plus legacy enumNames',
  },
  'ELIC-1125-DEFAULTS': {
    spec: 'schema/2025-11-25/schema.ts',
    section: 'l.2247-2456 (SEP-1034)',
    rule: 'default on every primitive from 2025-11-25',
  },
  'ELIC-1125-FORMATS': {
    spec: 'schema/2025-11-25/schema.ts',
    section: 'StringSchema l.2240',
    rule: 'string formats are email, uri, date, date-time only',
  },
  'ELIC-1125-MODE-DEFAULT-FORM': {
    spec: '2025-11-25/client/elicitation.mdx',
    section: '§Elicitation Requests l.97',
    rule: 'a missing mode MUST be treated as form',
  },
  'ELIC-1125-PATTERN-NONNORMATIVE': {
    spec: 'schema/2025-11-25/schema.ts',
    section: 'StringSchema l.2240-2248 (page l.128 shows pattern)',
    rule: 'pattern is not in the normative schema',
  },
  'ELIC-RESULT-ACTIONS': {
    spec: '2025-06-18/client/elicitation.mdx',
    section: '§Response Actions l.281-317',
    rule: 'accept (with content) / decline / cancel are distinct; content only for accept',
  },
  'ELIC-VALIDATE-BOTH-SIDES': {
    spec: '2025-06-18/client/elicitation.mdx',
    section: '§Security Considerations l.323; 2025-11-25 §Form Mode Security l.745-749',
    rule: 'both parties SHOULD validate content against the requested schema',
  },
  'ELIC-NO-SENSITIVE-FORM': {
    spec: '2025-11-25/client/elicitation.mdx',
    section: '§User Interaction Model l.30-38',
    rule: 'servers MUST NOT request sensitive information through form mode',
  },
  'JSONSCHEMA-1125-DIALECT': {
    spec: '2025-11-25/basic/index.mdx',
    section: '§JSON Schema Usage l.136-186',
    rule: 'no $schema means 2020-12; unsupported dialects are handled with an error',
  },
  'MRTR-INPUT-REQUESTS-SHAPE': {
    spec: '2026-07-28/basic/patterns/mrtr.mdx',
    section: '§Wire shapes; schema.ts InputRequests l.553',
    rule: 'inputRequests maps keys to {method, params} elicitation/create, roots/list, sampling requests',
  },
  'ROOTS-URI-FILE': { spec: '2025-11-25/client/roots.mdx', section: '§Data Types / Root', rule: 'root uri MUST be a file:// URI' },
  'ROOTS-SERVER-VALIDATE-PATHS': {
    spec: '2025-11-25/client/roots.mdx',
    section: '§Security Considerations l.163-174',
    rule: 'servers SHOULD validate all paths against the provided roots',
  },
  'ROOTS-CLIENT-EXPOSE-PERMITTED': {
    spec: '2025-11-25/client/roots.mdx',
    section: '§Security Considerations l.163-174',
    rule: 'clients MUST only expose roots with appropriate permissions',
  },
  'ROOTS-CLIENT-VALIDATE-URIS': {
    spec: '2025-11-25/client/roots.mdx',
    section: '§Security Considerations l.163-174',
    rule: 'clients MUST validate root URIs to prevent path traversal',
  },
  'ROOTS-CLIENT-MONITOR': {
    spec: '2025-11-25/client/roots.mdx',
    section: '§Security Considerations / §Implementation Guidelines',
    rule: 'clients MUST monitor root accessibility',
  },
  'ROOTS-CLIENT-CAPABILITY': {
    spec: '2025-11-25/client/roots.mdx',
    section: '§Capabilities l.25-41',
    rule: 'clients that support roots MUST declare roots {listChanged}',
  },
  'ROOTS-CLIENT-LIST-CHANGED': {
    spec: '2025-11-25/client/roots.mdx',
    section: '§Root List Changes l.76-85',
    rule: 'clients that declared listChanged MUST send notifications/roots/list_changed',
  },
  'ROOTS-2607-INPUT-REQUEST': {
    spec: '2026-07-28/client/roots.mdx',
    section: 'protocol.md §3.2',
    rule: 'roots/list travels as an inputRequests entry; the answer is a bare ListRootsResult',
  },
  'ERA-DUAL-FALLBACK': {
    spec: '2026-07-28/basic/versioning.mdx',
    section: '§Backward Compatibility l.126-158',
    rule: 'stdio: probe server/discover; any other error or silence means fall back to initialize',
  },
  'ERA-DUAL-MODERN': {
    spec: '2026-07-28/basic/versioning.mdx',
    section: '§Backward Compatibility l.126-158',
    rule: 'a DiscoverResult means modern; do not fall back',
  },
  'ERA-VERDICT-CACHE': {
    spec: '2026-07-28/basic/versioning.mdx',
    section: '§Backward Compatibility l.126-158',
    rule: 'cache the era verdict per server process; MAY reuse it across restarts',
  },
  'ELIC-1125-URL-REQUIRED-ERROR': {
    spec: '2025-11-25/client/elicitation.mdx',
    section: '§URL Elicitation Required Error l.424-453; §Error Handling l.692-700',
    rule: '-32042 lists the required URL elicitations',
  },
  'ELIC-1125-URL-COMPLETE': {
    spec: '2025-11-25/client/elicitation.mdx',
    section: '§Completion Notifications l.396-422',
    rule: 'clients MAY wait for notifications/elicitation/complete to retry; unknown ids ignored',
  },
  'CANCEL-SERVER-REQUEST': {
    spec: '2025-11-25/basic/utilities/cancellation.mdx',
    section: '§Behavior Requirements l.37-40',
    rule: 'the receiver of notifications/cancelled SHOULD stop processing and not respond',
  },
  'ASSOC-1125-SERVER-REQUESTS': {
    spec: 'seps/2260',
    section: 'protocol.md §5.3',
    rule: 'elicitation/create and roots/list only in association with a client request in flight',
  },
  'TIMEOUT-HUMAN-PAUSE': {
    spec: '2025-11-25/basic/lifecycle.mdx',
    section: '§Timeouts l.246-261',
    rule: 'timeouts on sent requests; the tools/call timeout must cover nested human time',
  },
  'TIMEOUT-MAX-TOTAL': {
    spec: '2025-11-25/basic/lifecycle.mdx',
    section: '§Timeouts l.246-261',
    rule: 'SHOULD always enforce a maximum total timeout',
  },
  'ELIC-1125-URL-ID': {
    spec: '2025-11-25/client/elicitation.mdx',
    section: '§URL Mode l.340-345',
    rule: 'URL mode MUST carry mode, message, url and a unique elicitationId',
  },
  'ELIC-2607-URL-NO-ID': {
    spec: '2026-07-28/client/elicitation.mdx',
    section: 'protocol.md §2.3',
    rule: 'URL mode has no elicitationId; correlation goes through requestState',
  },
  'ELIC-0618-NO-MODE': {
    spec: 'schema/2025-06-18/schema.ts',
    section: 'ElicitRequest l.1458-1477',
    rule: 'a 2025-06-18 elicitation/create has no mode param',
  },
  'ELIC-1125-NO-UNDECLARED-MODE': {
    spec: '2025-11-25/client/elicitation.mdx',
    section: '§Capabilities l.77',
    rule: 'servers MUST NOT send elicitation modes the client did not declare',
  },
  'ELIC-1125-URL-BIND-USER': {
    spec: '2025-11-25/client/elicitation.mdx',
    section: '§Statefulness l.569-582; §Phishing l.767',
    rule: 'elicitation state is bound to the user, never to a session id alone',
  },
  'MRTR-SERVER-REASK': {
    spec: '2026-07-28/basic/patterns/mrtr.mdx',
    section: '§Server Requirements',
    rule: 'missing answers SHOULD get input_required again, not an error',
  },
  'MRTR-STATE-INTEGRITY': {
    spec: '2026-07-28/basic/patterns/mrtr.mdx',
    section: '§Security Considerations',
    rule: 'requestState is attacker-controlled; integrity-protected and rejected when verification fails',
  },
  'MRTR-STATE-BIND-PRINCIPAL': {
    spec: '2026-07-28/basic/patterns/mrtr.mdx',
    section: '§Security Considerations',
    rule: 'SHOULD bind requestState to the principal, a TTL and the originating request',
  },
  'ROOTS-LIST-CHANGED-INVALIDATE': {
    spec: '2025-11-25/client/roots.mdx',
    section: '§Root List Changes l.76-85; §Implementation Guidelines',
    rule: 'servers cache roots and refresh them on list_changed',
  },
  'TRANS-1125-ORIGIN-403': {
    spec: '2025-11-25/basic/transports.mdx',
    section: '§Security Warning l.74-84',
    rule: 'servers MUST validate Origin (invalid → HTTP 403) and SHOULD bind to localhost',
  },
  'ELIC-1125-CLIENT-SHOW-SERVER': {
    spec: '2025-11-25/client/elicitation.mdx',
    section: '§User Interaction Model l.40-45',
    rule: 'clients MUST make clear which server is requesting',
  },
  'ELIC-URL-ACCEPT-NO-CONTENT': {
    spec: '2025-11-25/client/elicitation.mdx',
    section: '§Response Actions l.552; 2026-07-28 §URL Mode l.377',
    rule: 'URL-mode accept means consent and carries no content',
  },
  'ELIC-1125-CLIENT-RATE-LIMIT': {
    spec: '2025-11-25/client/elicitation.mdx',
    section: '§Security Considerations l.702-709',
    rule: 'clients SHOULD implement rate limiting',
  },
  'ELIC-1125-URL-SAFE-HANDLING': {
    spec: '2025-11-25/client/elicitation.mdx',
    section: '§Safe URL Handling l.711-733',
    rule: 'clients MUST handle URLs carefully (scheme allowlist)',
  },
  'ELIC-1125-URL-WARN-PUNYCODE': {
    spec: '2025-11-25/client/elicitation.mdx',
    section: '§Safe URL Handling l.711-733',
    rule: 'clients SHOULD warn about ambiguous or suspicious URIs such as Punycode',
  },
  'ELIC-1125-URL-CONSENT': {
    spec: '2025-11-25/client/elicitation.mdx',
    section: '§User Interaction Model l.40-45; §Safe URL Handling',
    rule: 'show the full URL and get consent before navigating',
  },
  'ELIC-1125-URL-NO-PREFETCH': {
    spec: '2025-11-25/client/elicitation.mdx',
    section: '§Safe URL Handling l.711-733',
    rule: 'clients MUST NOT prefetch the URL or its metadata',
  },
  'ELIC-1125-URL-SHOW-FULL': {
    spec: '2025-11-25/client/elicitation.mdx',
    section: '§Safe URL Handling l.711-733',
    rule: 'clients MUST show the full URL before consent and SHOULD highlight the domain',
  },
  'MRTR-MISSING-CAPABILITY': {
    spec: '2026-07-28/changelog.mdx',
    section: 'Capabilities; schema.ts MissingRequiredClientCapabilityError',
    rule: 'a missing client capability is answered with -32021 and data.requiredCapabilities',
  },
  'LIST-2607-LISTEN-DELIVERY': {
    spec: '2026-07-28/basic/patterns/subscriptions.mdx',
    section: '§Opening a Stream; §Notification Filter',
    rule: 'a stream that asked for toolsListChanged receives notifications/tools/list_changed when tools change',
  },
  'LIST-2607-LISTEN-FILTER': {
    spec: '2026-07-28/basic/patterns/subscriptions.mdx',
    section: '§Opening a Stream',
    rule: 'the server MUST NOT send notification types the client has not explicitly requested',
  },
  'SAMPLING-HUMAN-IN-LOOP': {
    spec: '2025-11-25/client/sampling.mdx',
    section: '§User Interaction Model',
    rule: 'a human SHOULD be in the loop with the ability to deny sampling requests (and to review or edit the reply)',
  },
  'AUTH-RS-PRM': {
    spec: '2025-11-25/basic/authorization.mdx',
    section: '§Authorization Server Location (RFC 9728)',
    rule: 'MCP servers MUST implement protected resource metadata and point to it from WWW-Authenticate on 401',
  },
  'AUTH-RS-AUDIENCE': {
    spec: '2025-11-25/basic/authorization.mdx',
    section: '§Token Handling; §Access Token Privilege Restriction (RFC 8707)',
    rule: 'servers MUST validate that tokens were issued for them as the audience and reject others',
  },
  'AUTH-RS-401': {
    spec: '2025-11-25/basic/authorization.mdx',
    section: '§Error Handling',
    rule: 'invalid or expired tokens get HTTP 401; insufficient scope gets 403',
  },
  'LIST-1125-TOOLS-LIST-CHANGED': {
    spec: '2025-11-25/server/tools.mdx',
    section: '§List Changed Notification',
    rule: 'servers that declared listChanged SHOULD send notifications/tools/list_changed when the list changes',
  },
};
