import t from 'tap'
import { GOOD_PASSWORD, startReference } from '../../../fixtures/servers/reference.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { resetLinkOf, waitForEmail } from '../../../fixtures/emails/outbox.js'

/*
 * A sign-in whose first factor was right waits for its code or its
 * enrolment (docs/second-factor.md). When the owner ends every session, that
 * waiting sign-in must end too: else whoever knew the old password finishes
 * it after the reset and sets up an authenticator app of his own.
 */

const NEW_PASSWORD = 'a brand new passphrase for ada'

t.test('a sign-in waiting for its enrolment ends with a password reset: its challenge is refused after it', async (t) => {
  const { base, dataDir, services } = await startReference(t)
  const { store } = services
  await registerAccount(base, 'ada@example.com')
  const ada = (await store.findAccountByEmail('ada@example.com'))!
  await store.addMembership(ada.id, 'acme')
  await store.setOrganizationRequiresSecondFactor('acme', true)

  // The attacker, who knows the password, keeps a sign-in waiting at the required enrolment.
  const waiting = await postJson(base, '/accounts/v2/login', { email: 'ada@example.com', password: GOOD_PASSWORD })
  t.equal(waiting.body.second_factor, 'enrol')
  const challenge = String(waiting.body.challenge)

  t.equal((await postJson(base, '/accounts/resetPasswordRequest', { email: 'ada@example.com' })).status, 200)
  const { token } = resetLinkOf(await waitForEmail(dataDir, 1, 'reset'))
  t.equal((await postJson(base, '/accounts/resetPassword', { token, password: NEW_PASSWORD, confirm_password: NEW_PASSWORD })).status, 200)

  const started = await postJson(base, '/accounts/second-factor/enrol/start', { challenge })
  t.equal(started.status, 401, 'the waiting sign-in cannot go on')
  t.notOk('secret' in started.body)
  t.equal(await store.findSecondFactor(ada.id), null, 'no authenticator of his')
})
