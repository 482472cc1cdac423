/**
 * Small readers for environment variables. Each one names the variable in its
 * error, so a bad value stops the server with a message an operator can act on.
 */

export type Env = Readonly<Record<string, string | undefined>>

/** A configuration value that cannot be used; `variable` names the culprit. */
export class ConfigError extends Error {
  readonly code = 'THRESHOLD_INVALID_CONFIG'
  constructor (readonly variable: string, reason: string, value?: string) {
    super(`${variable} ${reason}${value === undefined ? '' : ` (got ${JSON.stringify(truncate(value))})`}`)
    this.name = 'ConfigError'
  }
}

function truncate (value: string): string {
  return value.length > 80 ? `${value.slice(0, 77)}...` : value
}

/** The trimmed value, or undefined when the variable is unset or blank. */
export function readString (env: Env, name: string): string | undefined {
  const value = env[name]?.trim()
  return value === undefined || value === '' ? undefined : value
}

export function readInteger (env: Env, name: string, options: { min: number, max: number, fallback: number }): number {
  const raw = readString(env, name)
  if (raw === undefined) return options.fallback
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number from ${options.min} to ${options.max}`, raw)
  const value = Number(raw)
  if (value < options.min || value > options.max) {
    throw new ConfigError(name, `must be a whole number from ${options.min} to ${options.max}`, raw)
  }
  return value
}

/** `true` or `false` (any case); the fallback when unset. Anything else is refused rather than read as false. */
export function readBoolean (env: Env, name: string, fallback: boolean): boolean {
  const raw = readString(env, name)
  if (raw === undefined) return fallback
  const value = raw.toLowerCase()
  if (value !== 'true' && value !== 'false') throw new ConfigError(name, 'must be true or false', raw)
  return value === 'true'
}

/** An absolute http(s) URL without credentials, query or fragment. */
export function readHttpUrl (env: Env, name: string): URL | undefined {
  const raw = readString(env, name)
  if (raw === undefined) return undefined
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ConfigError(name, 'must be an absolute http or https URL', raw)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(name, 'must use http or https', raw)
  }
  if (url.username !== '' || url.password !== '') throw new ConfigError(name, 'must not contain credentials')
  if (url.search !== '' || url.hash !== '') throw new ConfigError(name, 'must not have a query string or fragment', raw)
  return url
}

/**
 * An http(s) origin without a path, such as PUBLIC_URL (the edge and the
 * reference service read that one the same way).
 */
export function readOrigin (env: Env, name: string): URL | undefined {
  const url = readHttpUrl(env, name)
  if (url !== undefined && url.pathname !== '/') throw new ConfigError(name, 'must be an origin, without a path', url.href)
  return url
}

/**
 * The URL of a backing service (Redis, PostgreSQL) using one of `protocols`.
 * Such URLs usually carry a password, so an error never repeats the value.
 */
export function readServiceUrl (
  env: Env,
  name: string,
  options: { protocols: readonly string[], example: string, accept?: (url: URL) => boolean }
): URL | undefined {
  const raw = readString(env, name)
  if (raw === undefined) return undefined
  const schemes = options.protocols.map((protocol) => `${protocol}//`).join(' or ')
  const refusal = new ConfigError(name, `must be a ${schemes} URL such as ${options.example} (value not shown: it may hold a password)`)
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw refusal
  }
  if (!options.protocols.includes(url.protocol) || url.hash !== '' || options.accept?.(url) === false) throw refusal
  return url
}

/** A comma-separated list; blanks are dropped, each item checked by `accept`. */
export function readList (
  env: Env,
  name: string,
  accept: (item: string) => boolean,
  what: string
): readonly string[] {
  const raw = readString(env, name)
  if (raw === undefined) return Object.freeze([])
  const items = raw.split(',').map((item) => item.trim()).filter((item) => item !== '')
  for (const item of items) {
    if (!accept(item)) throw new ConfigError(name, `must be a comma-separated list of ${what}`, item)
  }
  return Object.freeze(items)
}

/** Deep-freezes plain objects and arrays, so configuration cannot drift after start. */
export function deepFreeze<T> (value: T): Readonly<T> {
  if (value !== null && typeof value === 'object' && !(value instanceof URL) && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child)
    Object.freeze(value)
  }
  return value
}
