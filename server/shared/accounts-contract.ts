import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import { readFileSync } from 'node:fs'
import { parse } from 'yaml'

/**
 * The accounts API's contract, docs/accounts-api.openapi.yaml (OpenAPI 3.1),
 * read for the code that checks answers and request bodies against it: the
 * tests of the reference service, the edge and the page's calls, and the
 * conformance check (`npm run conformance`). Nothing the edge or the
 * reference service runs in production imports this module.
 */

/** Where the document lives, from the repository's root. */
export const CONTRACT_PATH = 'docs/accounts-api.openapi.yaml'

export type HttpMethod = 'get' | 'post'

/** A route's path as the document names it: Fastify's `:name` parameters are OpenAPI's `{name}` (`auth/social/callback/:provider` → `/auth/social/callback/{provider}`). */
export function documentPath (routePath: string): string {
  return `/${routePath.replace(/^\//, '').replace(/:(\w+)/g, '{$1}')}`
}

/** The document as parsed: only the parts this module reads are typed. */
interface ContractDocument {
  readonly openapi: string
  readonly info: { readonly version: string, readonly title: string }
  readonly paths: Readonly<Record<string, Readonly<Partial<Record<HttpMethod, OperationObject>>>>>
  readonly [key: string]: unknown
}

/** A response, or a request body, as the document gives it: inline or by `$ref` to `components`. */
interface ContentHolder {
  readonly $ref?: string
  readonly content?: Readonly<Record<string, { readonly schema?: unknown }>>
  readonly [key: string]: unknown
}

interface OperationObject {
  readonly operationId?: string
  readonly requestBody?: ContentHolder
  readonly responses?: Readonly<Record<string, ContentHolder>>
  readonly [key: string]: unknown
}

/** One answer checked: null when it fits the contract, else why not (Ajv's errors, made readable). */
type AnswerCheck = (body: unknown) => string | null

/** One request body checked, as AnswerCheck does an answer. */
type RequestCheck = (body: unknown) => string | null

export interface AccountsContract {
  readonly document: ContractDocument
  /** The contract's version (`info.version`). */
  readonly version: string
  /** Every `METHOD path` the document describes, path as written there (`/v2/login`). */
  readonly operations: ReadonlyArray<{ readonly method: HttpMethod, readonly path: string, readonly operation: OperationObject }>
  /**
   * The check for a JSON answer of `method path` with `status`: the
   * response the document gives for that status, else for its class
   * (`4XX`), else `default`. Null when the document describes no JSON
   * answer for it (the status itself is then outside the contract).
   */
  answerCheck: (method: HttpMethod, path: string, status: number) => AnswerCheck | null
  /**
   * The check for the JSON body the page sends to `method path`: the
   * operation's `application/json` request schema. Null when the operation
   * takes no JSON body (or the document does not describe it).
   */
  requestCheck: (method: HttpMethod, path: string) => RequestCheck | null
  /**
   * The response object the document gives for `status` (exact, class,
   * `default`; a `$ref` followed), with the key it was found under; null when none.
   */
  responseFor: (method: HttpMethod, path: string, status: number) => { readonly key: string, readonly response: ContentHolder } | null
}

/** JSON Pointer escaping (RFC 6901) of one reference token. */
const pointerToken = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1')

function describeErrors (validate: ValidateFunction, what: string): string {
  return (validate.errors ?? [])
    .map((error) => `${error.instancePath === '' ? what : error.instancePath} ${error.message ?? 'is not valid'}`)
    .join('; ')
}

/** The JSON Pointer tokens of a local `$ref` (`#/components/responses/Busy`). */
function localRefTokens (ref: string): string[] {
  if (!ref.startsWith('#/')) throw new Error(`the accounts contract refers outside itself: ${ref}`)
  return ref.slice(2).split('/').map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
}

/** Reads and compiles the contract from its text (YAML). Throws when it is not a readable OpenAPI 3.1 document. */
export function accountsContractFromText (text: string): AccountsContract {
  const document = parse(text) as ContractDocument
  if (document === null || typeof document !== 'object' || typeof document.openapi !== 'string' || !document.openapi.startsWith('3.1')) {
    throw new Error('the accounts contract is not an OpenAPI 3.1 document')
  }
  // OpenAPI's own keywords (example, discriminator, x-…) are not JSON Schema's: strict mode would refuse them.
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  const id = 'threshold-accounts-contract'
  ajv.addSchema(document, id)

  const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    (['get', 'post'] as const).flatMap((method) => item[method] === undefined ? [] : [{ method, path, operation: item[method] }]))

  /** The object at `tokens` and where it is, following `$ref`s (a response or body given by reference). */
  function resolve (tokens: readonly string[], depth = 0): { readonly value: ContentHolder, readonly tokens: readonly string[] } | null {
    // A reference to a reference is allowed; a cycle is a broken document, not a reason to hang.
    if (depth > 8) throw new Error(`the accounts contract's references go round in circles at ${tokens.join('/')}`)
    let current: unknown = document
    for (const token of tokens) {
      if (current === null || typeof current !== 'object') return null
      current = (current as Record<string, unknown>)[token]
    }
    if (current === null || typeof current !== 'object') return null
    const ref = (current as ContentHolder).$ref
    return typeof ref === 'string' ? resolve(localRefTokens(ref), depth + 1) : { value: current as ContentHolder, tokens }
  }

  /** A compiled check of the JSON schema under the holder at `tokens`, null when it has none. */
  function jsonCheck (tokens: readonly string[], what: string): ((body: unknown) => string | null) | null {
    const holder = resolve(tokens)
    if (holder === null || holder.value.content?.['application/json']?.schema === undefined) return null
    const pointer = [...holder.tokens, 'content', 'application/json', 'schema'].map(pointerToken).join('/')
    const validate = ajv.getSchema(`${id}#/${pointer}`)
    if (validate === undefined) throw new Error(`the accounts contract has no schema at ${pointer}`)
    return (body) => validate(body) ? null : describeErrors(validate, what)
  }

  function responseKey (method: HttpMethod, path: string, status: number): string | null {
    const responses = document.paths[path]?.[method]?.responses ?? {}
    return [String(status), `${String(status)[0]}XX`, 'default'].find((candidate) => responses[candidate] !== undefined) ?? null
  }

  function responseFor (method: HttpMethod, path: string, status: number): { key: string, response: ContentHolder } | null {
    const key = responseKey(method, path, status)
    const resolved = key === null ? null : resolve(['paths', path, method, 'responses', key])
    return key === null || resolved === null ? null : { key, response: resolved.value }
  }

  const cache = new Map<string, AnswerCheck | null>()
  function answerCheck (method: HttpMethod, path: string, status: number): AnswerCheck | null {
    const cacheKey = `${method} ${path} ${status}`
    if (cache.has(cacheKey)) return cache.get(cacheKey)!
    const key = responseKey(method, path, status)
    const check = key === null ? null : jsonCheck(['paths', path, method, 'responses', key], 'the answer')
    cache.set(cacheKey, check)
    return check
  }

  const requestCache = new Map<string, RequestCheck | null>()
  function requestCheck (method: HttpMethod, path: string): RequestCheck | null {
    const cacheKey = `${method} ${path}`
    if (requestCache.has(cacheKey)) return requestCache.get(cacheKey)!
    const check = document.paths[path]?.[method] === undefined ? null : jsonCheck(['paths', path, method, 'requestBody'], 'the body')
    requestCache.set(cacheKey, check)
    return check
  }

  return { document, version: document.info.version, operations, answerCheck, requestCheck, responseFor }
}

/** Reads the contract from `path` (by default the repository's, CONTRACT_PATH from the working directory). */
export function loadAccountsContract (path: string = CONTRACT_PATH): AccountsContract {
  return accountsContractFromText(readFileSync(path, 'utf8'))
}
