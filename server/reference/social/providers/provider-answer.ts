/** What a provider's `error` may be quoted as: its protocol code, never free text it chose. */
const ERROR_CODE_FORMAT = /^[\w.-]{1,64}$/

/** A provider's error code as it may be quoted in a message or a log line. */
export const quotedErrorCode = (error: unknown): string => typeof error === 'string' && ERROR_CODE_FORMAT.test(error) ? error : 'an error'

/**
 * The authorization code of a provider's answer (the callback's query, or the fields Apple posts). An
 * answer that carries the provider's `error` (the visitor cancelled, the provider refused), or no code, or
 * a parameter twice, throws: its message names the error code, never the code itself.
 */
export function authorizationCodeOf (answer: URLSearchParams): string {
  for (const name of ['code', 'state', 'error']) {
    if (answer.getAll(name).length > 1) throw new Error(`the provider's answer carries "${name}" more than once`)
  }
  const error = answer.get('error')
  if (error !== null) {
    throw new Error(`the provider answered ${quotedErrorCode(error)}`)
  }
  const code = answer.get('code')
  if (code === null || code === '') throw new Error('the provider\'s answer carries no code')
  return code
}
