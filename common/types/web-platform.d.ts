// The WHATWG URL API that common/ uses. Browsers and Node both have it, but its
// types come with the DOM library or with Node's, and common/ is checked with
// neither (common/tsconfig.json) so that it cannot reach for `window`,
// `document`, `Buffer` or `process`. Only common/'s own check reads this file;
// the other checks have the full declarations. Add a member here only when it
// exists in both runtimes.

interface URL {
  readonly hostname: string
  readonly origin: string
  hash: string
  readonly href: string
  readonly protocol: string
  readonly username: string
  readonly password: string
  readonly searchParams: URLSearchParams
}
// eslint-disable-next-line no-var -- a global the platform defines is a var, as in TypeScript's own lib files: it is also a property of globalThis
declare var URL: {
  prototype: URL
  new (url: string, base?: string): URL
}

interface URLSearchParams {
  get (name: string): string | null
  getAll (name: string): string[]
  has (name: string): boolean
}
// eslint-disable-next-line no-var -- a global the platform defines is a var, as in TypeScript's own lib files: it is also a property of globalThis
declare var URLSearchParams: {
  prototype: URLSearchParams
  new (init?: string): URLSearchParams
}
