import { randomBytes } from 'node:crypto'
import type { AccountsContract } from '../server/shared/accounts-contract.js'
import { describe, notSuccess, readAnswer, type Answer } from './answers.js'
import { accountChangeRows } from './calls/account-changes.js'
import { accountViewRows } from './calls/account-view.js'
import { emailCodeRows } from './calls/email-codes.js'
import { ssoDiscoveryRows } from './calls/sso-discovery.js'
import { socialRows } from './calls/social.js'
import { googleRows } from './calls/google.js'
import { randomName } from './calls/login-context.js'
import { passwordLoginRows } from './calls/password-login.js'
import { registerRows, registrationBody } from './calls/register.js'
import { resetPasswordRequestRows } from './calls/reset-password-request.js'
import { ssoRows } from './calls/sso.js'
import { postJson } from './http-client.js'
import { checkCall, rowsFor, type Probe, type ProbeOptions, type Row, type TestAccount } from './rows.js'

/**
 * The whole check: the calls in an order that keeps the backend's throttles
 * out of the way (the test account signs in before its wrong password), with
 * a time limit per call and for the run, so that it ends in bounded time
 * whatever the backend does.
 */

/** The default time limit of one call: the edge's own (UPSTREAM_TIMEOUT_MS). */
export const DEFAULT_TIMEOUT_MS = 10_000

/** The run's time limit, in calls' time limits: the whole run ends within this many of them (and a little work). */
const RUN_BUDGET_IN_TIMEOUTS = 6

/** After this many calls that timed out, the backend is taken to hang: later rows are skipped, not waited for. */
const TIMEOUTS_BEFORE_STOPPING = 2
/** After this many calls in a row that got no answer at all, later rows are skipped (each row would say the same). */
const SILENCES_BEFORE_STOPPING = 3

export interface SuiteOptions {
  readonly accountsUrl: URL
  readonly timeoutMs: number
  /** The operator's test account; null: the check registers a throwaway one. */
  readonly account: TestAccount | null
  readonly contract: AccountsContract | null
  readonly probe: ProbeOptions
}

export interface SuiteReport {
  readonly rows: readonly Row[]
  /** The throwaway account's address when the check registered one (its password is never shown). */
  readonly throwawayAccount: string | null
  readonly elapsedMs: number
  /** The time the run was allowed. */
  readonly budgetMs: number
}

/** A strong random password: long, random, with every character class a composition rule might ask for. */
function throwawayPassword (): string {
  return `Conformance-${randomBytes(18).toString('base64url')}-9!`
}

/** Runs every row. `announce` hears what the operator should know before the table (the throwaway account). */
export async function runSuite (options: SuiteOptions, announce: (line: string) => void = () => {}): Promise<SuiteReport> {
  const started = performance.now()
  const budgetMs = options.timeoutMs * RUN_BUDGET_IN_TIMEOUTS
  const deadline = started + budgetMs
  let timeouts = 0
  let silences = 0
  let stopped: string | null = null

  const runLimitReached = `not tried: the run's time limit (${budgetMs} ms, ${RUN_BUDGET_IN_TIMEOUTS} × --timeout-ms) was reached`
  async function call (path: string, body: unknown, callOptions: { bearer?: string, cookie?: string } = {}): Promise<Answer | null> {
    const remaining = Math.floor(deadline - performance.now())
    if (stopped === null && remaining <= 0) stopped = runLimitReached
    if (stopped !== null) return null
    const cutShort = remaining < options.timeoutMs
    const answer = readAnswer(await postJson(options.accountsUrl, {
      path, body, timeoutMs: cutShort ? remaining : options.timeoutMs, ...callOptions
    }))
    // A call the run's end cut short says nothing of the backend's own time: the run has ended, not the backend hung.
    if (!answer.readable && answer.timedOut && cutShort) {
      stopped = runLimitReached
      return answer
    }
    if (!answer.readable && answer.timedOut) timeouts++
    silences = !answer.readable && answer.silent ? silences + 1 : 0
    if (timeouts >= TIMEOUTS_BEFORE_STOPPING) stopped = `not tried: ${timeouts} calls got no answer within their time limit, so the backend is taken to hang`
    else if (silences >= SILENCES_BEFORE_STOPPING) stopped = `not tried: ${silences} calls in a row got no answer (see the rows above)`
    return answer
  }

  const baseProbe = {
    contract: options.contract,
    options: options.probe,
    call,
    stoppedReason: () => stopped ?? 'not tried'
  }

  let account = options.account
  let noAccountReason = ''
  let registered: { row: Row, answer: Answer | null } | null = null
  let throwawayAccount: string | null = null
  if (account === null) {
    const throwaway = { email: `conformance-${randomName()}@example.com`, password: throwawayPassword() }
    announce(`No test account was named (--email, --password): registering a throwaway account, ${throwaway.email}, with a random password. It stays on the backend: remove it afterwards.`)
    registered = await checkCall({ ...baseProbe, account: null, noAccountReason: '' }, { path: 'register', body: registrationBody(throwaway) },
      'a new address registers (the throwaway account)', '2xx with a "success" text', notSuccess)
    const { answer } = registered
    if (answer !== null && answer.readable && notSuccess(answer) === null) {
      account = throwaway
      throwawayAccount = throwaway.email
    } else {
      noAccountReason = 'registering the throwaway account did not succeed (see its row); where registration is closed, name one with --email and --password'
      if (answer !== null && answer.readable && answer.status >= 400 && answer.status < 500 && typeof answer.body.error === 'string') {
        // Closed registration is a backend's choice: the row says so without failing the run.
        registered = { ...registered, row: rowsFor('POST register').advisory(registered.row.check, registered.row.expected, `${describe(answer)} — registration is refused here; the rows needing an account are skipped`) }
      }
    }
  }

  const probe: Probe = { ...baseProbe, account, noAccountReason }
  const login = await passwordLoginRows(probe)
  const reset = await resetPasswordRequestRows(probe)
  const google = await googleRows(probe)
  const sso = await ssoRows(probe)
  const emailCodes = await emailCodeRows(probe)
  const ssoDiscovery = await ssoDiscoveryRows(probe)
  const social = await socialRows(probe)
  const register = await registerRows(probe, registered)
  const changes = await accountChangeRows(probe)
  // Last: it ends the session it signs in with.
  const accountView = await accountViewRows(probe)
  return {
    rows: [...register, ...login, ...reset, ...google, ...sso, ...emailCodes, ...ssoDiscovery, ...social, ...changes, ...accountView],
    throwawayAccount,
    elapsedMs: Math.round(performance.now() - started),
    budgetMs
  }
}
