// Minimal typing for the `oidc-provider` test dependency (it ships no types; only test/helpers/oidc-stack.ts uses it).
declare module 'oidc-provider' {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type Any = any;
  const Provider: Any;
  type Provider = Any;
  export default Provider;
  export const errors: Any;
}
