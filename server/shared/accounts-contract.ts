import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import { readFileSync } from 'node:fs'
import { parse } from 'yaml'

/**
 * The accounts API's contract, docs/accounts-api.openapi.yaml (OpenAPI 3.1),
 * read for the code that checks answers against it: the reference service's
 * tests and the conformance check (`npm run conformance`). Nothing the edge or
 * the reference service runs in production imports this module.
 */

/** Where the document lives, from the repository's root. */
export const CONTRACT_PATH = 'docs/accounts-api.openapi.yaml'

export type HttpMethod = 'get' | 'post'

/** The document as parsed: only the parts this module reads are typed. */
export interface ContractDocument {
  readonly openapi: string
  readonly info: { readonly version: string, readonly title: string }
  readonly paths: Readonly<Record<string, Readonly<Partial<Record<HttpMethod, OperationObject>>>>>
  readonly [key: string]: unknown
}

export interface OperationObject {
  readonly operationId?: string
  readonly responses?: Readonly<Record<string, { readonly content?: Readonly<Record<string, { readonly schema?: unknown }>> }>>
  readonly [key: string]: unknown
}

/** One answer checked: null when it fits the contract, else why not (Ajv's errors, made readable). */
export type AnswerCheck = (body: unknown) => string | null

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
}

/** JSON Pointer escaping (RFC 6901) of one reference token. */
const pointerToken = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1')

function describeErrors (validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .map((error) => `${error.instancePath === '' ? 'the answer' : error.instancePath} ${error.message ?? 'is not valid'}`)
    .join('; ')
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
  ajv.addSchema(document as object, id)

  const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    (['get', 'post'] as const).flatMap((method) => item[method] === undefined ? [] : [{ method, path, operation: item[method] }]))

  const cache = new Map<string, AnswerCheck | null>()
  function answerCheck (method: HttpMethod, path: string, status: number): AnswerCheck | null {
    const key = `${method} ${path} ${status}`
    if (cache.has(key)) return cache.get(key)!
    const responses = document.paths[path]?.[method]?.responses ?? {}
    const statusKey = [String(status), `${String(status)[0]}XX`, 'default'].find((candidate) => responses[candidate] !== undefined)
    let check: AnswerCheck | null = null
    if (statusKey !== undefined && responses[statusKey]?.content?.['application/json']?.schema !== undefined) {
      const pointer = ['paths', path, method, 'responses', statusKey, 'content', 'application/json', 'schema'].map(pointerToken).join('/')
      const validate = ajv.getSchema(`${id}#/${pointer}`)
      if (validate === undefined) throw new Error(`the accounts contract has no schema at ${pointer}`)
      check = (body) => validate(body) ? null : describeErrors(validate)
    }
    cache.set(key, check)
    return check
  }

  return { document, version: document.info.version, operations, answerCheck }
}

/** Reads the contract from `path` (by default the repository's, CONTRACT_PATH from the working directory). */
export function loadAccountsContract (path: string = CONTRACT_PATH): AccountsContract {
  return accountsContractFromText(readFileSync(path, 'utf8'))
}
