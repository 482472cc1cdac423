import { describe, notRefusal, notSuccess, type Answer, type ReadableAnswer } from '../answers.js'
import { checkCall, rowsFor, type Probe, type Row } from '../rows.js'
import { unknownAddress } from './login-context.js'

const PATH = 'resetPasswordRequest'
const CALL = `POST ${PATH}`
const rows = rowsFor(CALL)

const SUCCESS = '2xx with a "success" text'

/** The rows of the reset request: a success for every address, the same for known and unknown ones. */
export async function resetPasswordRequestRows (probe: Probe): Promise<Row[]> {
  const out: Row[] = []
  let known: Answer | null = null
  if (probe.account === null) {
    out.push(rows.skip('a reset for the test account is accepted', SUCCESS, `needs a test account: ${probe.noAccountReason}`))
  } else {
    const checked = await checkCall(probe, { path: PATH, body: { email: probe.account.email } }, 'a reset for the test account is accepted', SUCCESS, notSuccess)
    out.push(checked.row)
    known = checked.answer
  }
  const unknown = await checkCall(probe, { path: PATH, body: { email: unknownAddress() } }, 'a reset for an unknown address is answered as a success', SUCCESS, notSuccess)
  out.push(unknown.row)

  const alike = 'known and unknown addresses answer alike (status and text)'
  const expected = 'the same status and "success" text'
  if (probe.account === null) out.push(rows.skip(alike, expected, `needs a test account: ${probe.noAccountReason}`))
  else if (known === null || unknown.answer === null) out.push(rows.skip(alike, expected, probe.stoppedReason()))
  else if (!known.readable || !unknown.answer.readable) out.push(rows.skip(alike, expected, 'one of the two answers was unreadable (its row says why)'))
  else if (known.status === 429 || unknown.answer.status === 429) out.push(rows.skip(alike, expected, 'one of the two answers was rate limited (its row says why)'))
  else {
    const got = `known: ${describe(known)}; unknown: ${describe(unknown.answer)}`
    const same = known.status === unknown.answer.status && known.body.success === unknown.answer.body.success && known.body.error === unknown.answer.body.error
    out.push(same ? rows.pass(alike, expected, got) : rows.fail(alike, expected, `${got} — the difference tells which addresses have accounts`))
  }

  // Refusing says nothing about accounts, and neither does the usual success: either reads well on the page.
  const readable = (answer: ReadableAnswer): string | null => notRefusal(answer) === null || notSuccess(answer) === null ? null : notRefusal(answer)
  const expectedForBad = '4xx with an "error" text (or the usual success), never 5xx'
  out.push((await checkCall(probe, { path: PATH, body: { email: 'not an address' } }, 'a reset for an invalid email is refused', expectedForBad, readable)).row)
  out.push((await checkCall(probe, { path: PATH, body: {} }, 'an empty body is refused', expectedForBad, readable)).row)
  return out
}
