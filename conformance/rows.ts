import type { AccountsContract } from '../server/shared/accounts-contract.js'
import { contractProblem, describe, type Answer, type ReadableAnswer } from './answers.js'

/**
 * A row of the report and what the rows of each call are written with: a
 * call to the backend, and verdicts that say what was expected and what came.
 */

/**
 * - `pass`: the backend does what the page and the contract need.
 * - `fail`: it does not; the run exits non-zero.
 * - `skip`: the row needs something the operator did not give (a test account,
 *   a Google token) or the run stopped calling; never counted as a pass.
 * - `advisory`: allowed by the contract but worth knowing (an answer that
 *   tells that an address has an account where a choice of the backend's
 *   allows it); never fails the run.
 */
export type Result = 'pass' | 'fail' | 'skip' | 'advisory'

export interface Row {
  /** The call, as the edge proxies it (`POST v2/login`), or `setup`. */
  readonly call: string
  /** What is checked, as a sentence an operator reads. */
  readonly check: string
  readonly result: Result
  readonly expected: string
  readonly got: string
}

/** An account the check signs in with. */
export interface TestAccount {
  readonly email: string
  readonly password: string
}

interface CallOptions {
  readonly bearer?: string
  readonly cookie?: string
}

/** What the rows of a call are given. */
export interface Probe {
  readonly contract: AccountsContract | null
  /** The test account, or null (registration closed and none named): rows needing one are skipped. */
  readonly account: TestAccount | null
  /** Why there is no test account, for the rows skipped for it. */
  readonly noAccountReason: string
  readonly options: ProbeOptions
  /**
   * One call to the backend, read as the edge reads it. Null when the run
   * has stopped calling (the backend kept hanging, or the run's time is up):
   * the row is then skipped with `stoppedReason()`.
   */
  call (path: string, body: unknown, options?: CallOptions): Promise<Answer | null>
  stoppedReason (): string
}

/** What the operator gave beside the URL, as the rows need it. */
export interface ProbeOptions {
  readonly googleToken: string | null
  /** The address the Google token is for (the login body names it); the test account's by default. */
  readonly googleEmail: string | null
  readonly googleNonceSecret: string | null
  readonly googleClientId: string | null
  readonly ssoEmail: string | null
  readonly blockedAccount: TestAccount | null
  /** The backend says it answers the emailed code's calls (`--email-codes`, as EMAIL_CODES=true says it to the edge); absent: it does not. */
  readonly emailCodes?: boolean
  /** The backend says it answers `auth/sso/discover` (`--sso-discovery`, as SSO_DISCOVERY=true says it to the edge); absent: it does not. */
  readonly ssoDiscovery?: boolean
  /** A domain the backend has single sign-on for (`--sso-domain`), for the discovery row that expects it; absent: that row is skipped. */
  readonly ssoDomain?: string | null
  /** The social connections the backend serves, by id (`--social github,gitlab`); absent or empty: none asked about. */
  readonly social?: readonly string[]
}

/**
 * A 429 hides the answer the row is about (a refusal that passes for the
 * wrong reason, a success never seen): the row fails and says what to do.
 */
export const RATE_LIMITED = 'rate limited, so the real answer was not seen: through an edge, raise its RATE_LIMIT_PER_MINUTE for the run (one run makes 43 calls, up to 63 with every option and one social connection, one more per further connection) or check ACCOUNTS_URL itself; else wait a minute and run again'

/** Builds rows for one call. */
export function rowsFor (call: string): {
  pass: (check: string, expected: string, got: string) => Row
  fail: (check: string, expected: string, got: string) => Row
  skip: (check: string, expected: string, why: string) => Row
  advisory: (check: string, expected: string, got: string) => Row
} {
  const row = (result: Result) => (check: string, expected: string, got: string): Row => ({ call, check, result, expected, got })
  return { pass: row('pass'), fail: row('fail'), skip: row('skip'), advisory: row('advisory') }
}

/**
 * A row from one answer: `problemOf` says why a readable answer is not what
 * was expected (null: it is), and the contract is checked as well. An
 * unreadable answer fails the row with what the edge would do.
 */
function verdict (
  call: string,
  path: string,
  contract: AccountsContract | null,
  check: string,
  expected: string,
  answer: Answer,
  problemOf: (answer: ReadableAnswer) => string | null
): Row {
  const rows = rowsFor(call)
  if (!answer.readable) return rows.fail(check, expected, answer.problem)
  if (answer.status === 429) return rows.fail(check, expected, `${describe(answer)} — ${RATE_LIMITED}`)
  const problem = problemOf(answer) ?? contractProblem(contract, path, answer)
  return problem === null ? rows.pass(check, expected, describe(answer)) : rows.fail(check, expected, `${describe(answer)} — ${problem}`)
}

/**
 * Makes the call and gives the verdict, or a skipped row when the run has
 * stopped calling.
 */
export async function checkCall (
  probe: Probe,
  call: { readonly path: string, readonly body: unknown, readonly bearer?: string, readonly cookie?: string },
  check: string,
  expected: string,
  problemOf: (answer: ReadableAnswer) => string | null
): Promise<{ row: Row, answer: Answer | null }> {
  const answer = await probe.call(call.path, call.body, {
    ...(call.bearer === undefined ? {} : { bearer: call.bearer }),
    ...(call.cookie === undefined ? {} : { cookie: call.cookie })
  })
  const label = `POST ${call.path}`
  if (answer === null) return { row: rowsFor(label).skip(check, expected, probe.stoppedReason()), answer }
  return { row: verdict(label, call.path, probe.contract, check, expected, answer, problemOf), answer }
}
