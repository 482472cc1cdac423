import { describe, notRefusal, notSuccess, type Answer } from '../answers.js'
import { checkCall, RATE_LIMITED, rowsFor, type Probe, type Row, type TestAccount } from '../rows.js'
import { randomName, unknownAddress } from './login-context.js'

const PATH = 'register'
const CALL = `POST ${PATH}`
const rows = rowsFor(CALL)

const SUCCESS = '2xx with a "success" text'
const REFUSAL = '4xx with an "error" text'

/** The registration body the page sends. */
export function registrationBody (account: TestAccount, confirmation: string = account.password): Record<string, string> {
  return { first_name: 'Conformance', last_name: 'Check', email: account.email, password: account.password, confirm_password: confirmation }
}

/**
 * The rows of registration. `registered` is the throwaway account's
 * registration when the suite made one (its row and answer), null when the
 * operator named an account instead.
 */
export async function registerRows (probe: Probe, registered: { readonly row: Row, readonly answer: Answer | null } | null): Promise<Row[]> {
  const out: Row[] = []
  if (registered === null) {
    out.push(rows.skip('a new address registers', SUCCESS, 'a test account was named (--email), so the check registers none of its own'))
  } else {
    out.push(registered.row)
  }

  // Taken: the spec's 409 tells that the address has an account; answering as for a new one hides it.
  const taken = 'registering a taken address answers as a new one does'
  const takenExpected = `${SUCCESS} like a new address (409 "taken" is allowed, but tells who has an account)`
  if (probe.account === null) {
    out.push(rows.skip(taken, takenExpected, `needs a test account: ${probe.noAccountReason}`))
  } else {
    const answer = await probe.call(PATH, registrationBody({ email: probe.account.email, password: `Conformance-${randomName()}-Taken` }))
    out.push(takenRow(taken, takenExpected, answer, registered?.answer ?? null, probe))
  }

  const fresh = { email: `conformance-${randomName()}@example.com`, password: `Conformance-${randomName()}-Pass` }
  out.push(await mayAccept(probe, registrationBody(fresh, `${fresh.password}-other`),
    'a registration whose passwords differ is refused', 'the page checks the confirmation too, but a backend should not take it on trust'))
  out.push((await checkCall(probe, { path: PATH, body: registrationBody({ email: 'not an address', password: `Conformance-${randomName()}-Pass` }) },
    'a registration with an invalid email is refused', REFUSAL, notRefusal)).row)
  out.push((await checkCall(probe, { path: PATH, body: {} }, 'an empty body is refused', REFUSAL, notRefusal)).row)
  out.push((await checkCall(probe, { path: PATH, body: registrationBody({ email: unknownAddress(), password: 'x' }) },
    'a one-character password is refused', REFUSAL, notRefusal)).row)
  return out
}

/** A row where refusing is expected but accepting is only advised against (a readable 2xx is an advisory). */
async function mayAccept (probe: Probe, body: unknown, check: string, advice: string): Promise<Row> {
  const { row, answer } = await checkCall(probe, { path: PATH, body }, check, REFUSAL, notRefusal)
  if (row.result === 'fail' && answer !== null && answer.readable && notSuccess(answer) === null) {
    return rows.advisory(check, REFUSAL, `${describe(answer)} — accepted: ${advice}`)
  }
  return row
}

function takenRow (check: string, expected: string, answer: Answer | null, newAnswer: Answer | null, probe: Probe): Row {
  if (answer === null) return rows.skip(check, expected, probe.stoppedReason())
  if (!answer.readable) return rows.fail(check, expected, answer.problem)
  if (answer.status === 429) return rows.fail(check, expected, `${describe(answer)} — ${RATE_LIMITED}`)
  if (notSuccess(answer) === null) {
    if (newAnswer !== null && newAnswer.readable && newAnswer.status === answer.status && newAnswer.body.success === answer.body.success) {
      return rows.pass(check, expected, `${describe(answer)}, as for the new address`)
    }
    if (newAnswer === null) return rows.pass(check, expected, describe(answer))
    return rows.advisory(check, expected, `${describe(answer)} — a success, but not the new address's answer (${newAnswer.readable ? describe(newAnswer) : 'unreadable'}): the difference tells who has an account`)
  }
  if (notRefusal(answer) === null) {
    return rows.advisory(check, expected, `${describe(answer)} — a readable refusal the page shows, but it tells that the address has an account (the reference service answers alike with REQUIRE_VERIFIED_EMAIL=true)`)
  }
  return rows.fail(check, expected, `${describe(answer)} — ${notRefusal(answer)}`)
}
