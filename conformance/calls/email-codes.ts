import { randomInt } from 'node:crypto'
import { displayEmailCode, EMAIL_CODE_ALPHABET, EMAIL_CODE_LENGTH } from '../../common/email-codes/email-code-format.js'
import { describe, notRefusal, notSuccess, type Answer, type ReadableAnswer } from '../answers.js'
import { checkCall, rowsFor, type Probe, type Row } from '../rows.js'
import { NO_CONTEXT, unknownAddress } from './login-context.js'

/*
 * The emailed code's calls (docs/email-codes.md), as far as they can be
 * checked without reading mail: the send answers every address alike and
 * binds the code to the browser, malformed bodies and wrong codes are
 * refused, and a code from a browser without the binding never signs in.
 * Run only with --email-codes: a backend answers these calls only where its
 * operator turns EMAIL_CODES on.
 */

const SEND = 'email-code/send'
const LOGIN = 'email-code/login'
const sendRows = rowsFor(`POST ${SEND}`)
const loginRows = rowsFor(`POST ${LOGIN}`)

/** The binding cookie's name, the one the edge passes on to these calls (server/edge/upstream/accounts-proxy.ts). */
const BINDING_COOKIE = 'email_code_browser'

/** The reasons a refused code may name (docs/accounts-api.openapi.yaml, EmailCodeRefusal): none tells whether an address has an account. */
const REFUSAL_REASONS: ReadonlySet<string> = new Set(['code_wrong', 'code_expired', 'code_other_browser'])

const SENT = '200 with a "success" text, a positive "expires_in" and the email_code_browser cookie'
const MALFORMED = '400 with an "error" text'
const CODE_REFUSED = '401 with an "error" text, a "reason" of code_wrong, code_expired or code_other_browser, and no tokens'

const NOT_ASKED = 'not asked: give --email-codes where the backend answers the emailed code\'s calls (EMAIL_CODES=true)'

/** A code of the right form that no one was sent: 31^8 codes make a match by chance negligible. */
function madeUpCode (): string {
  return displayEmailCode(Array.from({ length: EMAIL_CODE_LENGTH }, () => EMAIL_CODE_ALPHABET[randomInt(EMAIL_CODE_ALPHABET.length)]).join(''))
}

const bindingOf = (answer: ReadableAnswer): string | undefined => answer.setCookies.find((pair) => pair.startsWith(`${BINDING_COOKIE}=`) && pair.length > BINDING_COOKIE.length + 1)

/** Why an answer is not the send's success the page shows above the code step, or null. */
function notSent (answer: ReadableAnswer): string | null {
  const problem = notSuccess(answer)
  if (problem !== null) return problem
  if (answer.status !== 200) return `status ${answer.status}, not 200`
  const expiresIn = answer.body.expires_in
  if (typeof expiresIn !== 'number' || !(expiresIn > 0)) return '"expires_in" is missing or not a positive number'
  if (bindingOf(answer) === undefined) return `no ${BINDING_COOKIE} cookie: the code is bound to no browser, so a phishing page's visitor could hand it to another`
  return null
}

function notMalformedRefusal (answer: ReadableAnswer): string | null {
  return notRefusal(answer) ?? (answer.status === 400 ? null : `status ${answer.status}, not 400`)
}

function notCodeRefusal (answer: ReadableAnswer): string | null {
  const problem = notRefusal(answer)
  if (problem !== null) return problem
  if (answer.status !== 401) return `status ${answer.status}, not 401`
  const reason = answer.body.reason
  if (typeof reason !== 'string' || !REFUSAL_REASONS.has(reason)) return `"reason" ${JSON.stringify(reason)} is none of code_wrong, code_expired, code_other_browser`
  return null
}

/** The send's answer with the address made a placeholder: a text may name the address it went to, and still tell nothing else. */
function shapeOf (answer: ReadableAnswer, email: string): string {
  const { success, ...rest } = answer.body
  const text = typeof success === 'string' ? success.split(email).join('{email}') : success
  return JSON.stringify({ status: answer.status, success: text, ...rest, bound: bindingOf(answer) !== undefined })
}

/** The rows of the emailed code, or one skipped row each without --email-codes. */
export async function emailCodeRows (probe: Probe): Promise<Row[]> {
  const checks: Array<[ReturnType<typeof rowsFor>, string, string]> = [
    [sendRows, 'a code for the test account is sent', SENT],
    [sendRows, 'a code for an unknown address is answered as a success', SENT],
    [sendRows, 'known and unknown addresses answer alike (status, fields, text but the address)', 'the same answer'],
    [sendRows, 'a send for an invalid email is refused', MALFORMED],
    [sendRows, 'a send with an empty body is refused', MALFORMED],
    [loginRows, 'a sign-in without a code is refused', MALFORMED],
    [loginRows, 'a wrong code is refused with a listed reason', CODE_REFUSED],
    [loginRows, 'a code from a browser without the binding cookie is refused', CODE_REFUSED]
  ]
  if (probe.options.emailCodes !== true) return checks.map(([rows, check, expected]) => rows.skip(check, expected, NOT_ASKED))

  const out: Row[] = []
  let known: Answer | null = null
  if (probe.account === null) out.push(sendRows.skip(checks[0]![1], SENT, `needs a test account: ${probe.noAccountReason}`))
  else {
    const sent = await checkCall(probe, { path: SEND, body: { email: probe.account.email } }, checks[0]![1], SENT, notSent)
    out.push(sent.row)
    known = sent.answer
  }
  const address = unknownAddress()
  const unknown = await checkCall(probe, { path: SEND, body: { email: address } }, checks[1]![1], SENT, notSent)
  out.push(unknown.row)

  const alike = checks[2]![1]
  if (probe.account === null) out.push(sendRows.skip(alike, 'the same answer', `needs a test account: ${probe.noAccountReason}`))
  else if (known === null || unknown.answer === null) out.push(sendRows.skip(alike, 'the same answer', probe.stoppedReason()))
  else if (!known.readable || !unknown.answer.readable) out.push(sendRows.skip(alike, 'the same answer', 'one of the two answers was unreadable (its row says why)'))
  else if (known.status === 429 || unknown.answer.status === 429) out.push(sendRows.skip(alike, 'the same answer', 'one of the two answers was rate limited (its row says why)'))
  else {
    const got = `known: ${describe(known)}; unknown: ${describe(unknown.answer)}`
    const same = shapeOf(known, probe.account.email) === shapeOf(unknown.answer, address)
    out.push(same ? sendRows.pass(alike, 'the same answer', got) : sendRows.fail(alike, 'the same answer', `${got} — the difference tells which addresses have accounts`))
  }

  out.push((await checkCall(probe, { path: SEND, body: { email: 'not an address' } }, checks[3]![1], MALFORMED, notMalformedRefusal)).row)
  out.push((await checkCall(probe, { path: SEND, body: {} }, checks[4]![1], MALFORMED, notMalformedRefusal)).row)

  // The sign-in rows use the unknown address's code: they spend tries of a made-up address, never the test account's.
  const binding = unknown.answer?.readable === true ? bindingOf(unknown.answer) : undefined
  out.push((await checkCall(probe, { path: LOGIN, body: { email: address, ...NO_CONTEXT }, ...(binding === undefined ? {} : { cookie: binding }) }, checks[5]![1], MALFORMED, notMalformedRefusal)).row)
  if (binding === undefined) out.push(loginRows.skip(checks[6]![1], CODE_REFUSED, 'the send for the unknown address set no binding cookie (its row says so)'))
  else out.push((await checkCall(probe, { path: LOGIN, body: { email: address, code: madeUpCode(), ...NO_CONTEXT }, cookie: binding }, checks[6]![1], CODE_REFUSED, notCodeRefusal)).row)
  out.push((await checkCall(probe, { path: LOGIN, body: { email: address, code: madeUpCode(), ...NO_CONTEXT } }, checks[7]![1], CODE_REFUSED, notCodeRefusal)).row)
  return out
}
