import t from 'tap'
import { ACR } from '../../../../server/reference/oidc/acr.js'
import { decideLogin, requestedAcrs, type LoginRequest } from '../../../../server/reference/oidc/login-decision.js'

const NOW = 1_800_000_000
const request: LoginRequest = { promptLogin: false, maxAge: null, acrs: [], acrEssential: false, startedAt: NOW - 10 }
const oldSession = { accountId: 'a1', sessionId: 's1', authTime: NOW - 3600, amr: ['pwd'] }
/** A new session, signed in on the page the request sent the visitor to (from the old one). */
const freshSession = { ...oldSession, sessionId: 's2', authTime: NOW - 5 }
const afterTrip = { sentToPageFrom: { sessionId: 's1' } }

t.test('no session: the page; with the step-up mark only when the request asks for more than one factor', async (t) => {
  t.same(decideLogin(null, request, NOW), { kind: 'page', stepUp: false })
  t.same(decideLogin(null, { ...request, acrs: [ACR.multiFactor] }, NOW), { kind: 'page', stepUp: true })
  t.same(decideLogin(null, { ...request, acrs: [ACR.oneFactor, ACR.multiFactor] }, NOW), { kind: 'page', stepUp: false }, 'one factor is acceptable')
})

t.test('a live session finishes the login with its account, amr, acr and sign-in time', async (t) => {
  t.same(decideLogin(oldSession, request, NOW), { kind: 'finish', login: { accountId: 'a1', acr: ACR.oneFactor, amr: ['pwd'], ts: NOW - 3600, remember: true } })
  t.match(decideLogin({ ...oldSession, amr: ['pwd', 'otp', 'mfa'] }, request, NOW), { login: { acr: ACR.multiFactor } })
  t.match(decideLogin({ ...oldSession, amr: ['hwk'] }, request, NOW), { login: { acr: ACR.phishingResistant } })
})

t.test('prompt=login and max_age want a sign-in since the request; one made since finishes it, whatever max_age', async (t) => {
  t.same(decideLogin(oldSession, { ...request, promptLogin: true }, NOW), { kind: 'page', stepUp: false })
  t.same(decideLogin(freshSession, { ...request, promptLogin: true }, NOW), { kind: 'page', stepUp: false }, 'a session met before any trip to the page is not one made for the request, even in the same second')
  t.same(decideLogin(oldSession, { ...request, promptLogin: true, ...afterTrip }, NOW), { kind: 'page', stepUp: false }, 'back from the page with the session it left with')
  t.same(decideLogin({ ...oldSession, authTime: request.startedAt }, { ...request, promptLogin: true, ...afterTrip }, NOW), { kind: 'page', stepUp: false },
    'the same session, in the second the request began')
  t.equal(decideLogin(freshSession, { ...request, promptLogin: true, ...afterTrip }, NOW).kind, 'finish')
  t.equal(decideLogin({ ...freshSession, authTime: request.startedAt }, { ...request, promptLogin: true, sentToPageFrom: { sessionId: null } }, NOW).kind, 'finish',
    'a new session in the second the request began, after a trip from none')
  t.same(decideLogin(oldSession, { ...request, maxAge: 60 }, NOW), { kind: 'page', stepUp: false })
  t.equal(decideLogin(oldSession, { ...request, maxAge: 7200 }, NOW).kind, 'finish')
  t.equal(decideLogin(freshSession, { ...request, maxAge: 0, ...afterTrip }, NOW).kind, 'finish', 'never a loop')
})

t.test('a stronger acr: one trip to the page, then what was reached, or unmet when essential', async (t) => {
  const mfa = { ...request, acrs: [ACR.multiFactor] }
  t.same(decideLogin(oldSession, mfa, NOW), { kind: 'page', stepUp: true })
  t.match(decideLogin(freshSession, { ...mfa, ...afterTrip }, NOW), { kind: 'finish', login: { acr: ACR.oneFactor } })
  t.same(decideLogin(freshSession, { ...mfa, acrEssential: true, ...afterTrip }, NOW), { kind: 'unmet' })
  t.match(decideLogin({ ...oldSession, amr: ['hwk'] }, mfa, NOW), { kind: 'finish', login: { acr: ACR.multiFactor } }, 'a passkey meets mfa, stated as asked')
  t.match(decideLogin({ ...oldSession, amr: ['hwk'] }, { ...request, acrs: [ACR.phishingResistant] }, NOW), { login: { acr: ACR.phishingResistant } })
  t.match(decideLogin(oldSession, { ...request, acrs: ['urn:other:acr'] }, NOW), { kind: 'finish' }, 'an unknown class asks for nothing')
})

t.test('acr wishes come from acr_values and the claims parameter', async (t) => {
  t.same(requestedAcrs(`${ACR.multiFactor} ${ACR.phishingResistant}`, undefined), { acrs: [ACR.multiFactor, ACR.phishingResistant], essential: false })
  t.same(requestedAcrs(undefined, { id_token: { acr: { essential: true, values: [ACR.multiFactor] } } }), { acrs: [ACR.multiFactor], essential: true })
  t.same(requestedAcrs(undefined, { id_token: { acr: { essential: true } } }), { acrs: [], essential: false })
  t.same(requestedAcrs(undefined, { id_token: { acr: { value: ACR.phishingResistant } } }), { acrs: [ACR.phishingResistant], essential: false })
})
