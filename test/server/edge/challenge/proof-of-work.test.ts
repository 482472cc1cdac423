import t from 'tap'
import { edgeKeys } from '../../../../server/edge/keys/edge-secrets.js'
import { checkProofOfWork, issueProofOfWork } from '../../../../server/edge/challenge/proof-of-work.js'
import { solvedHeader } from '../../../fixtures/challenge/challenge.js'

const keys = edgeKeys('the same edge secret on every instance, 32+ chars')
const binding = { path: 'v2/login', account: 'account-hash', range: 'range-hash' }

/*
 * Instances judge a challenge by the clock they share (Redis's), which may be
 * minutes from this process's own: the expiry is read from the challenge's
 * signed data and compared with the `now` given, never with Date.now.
 */
t.test('a challenge expires by the clock it is checked with, not by this process\'s', async (t) => {
  const tenMinutesAgo = Date.now() - 10 * 60_000
  const header = await solvedHeader(await issueProofOfWork(keys, 1, binding, tenMinutesAgo) as unknown as Record<string, unknown>)
  const soon = await checkProofOfWork(keys, header, binding, 1, tenMinutesAgo + 60_000)
  t.notOk('refused' in soon, 'a minute later by the shared clock: accepted, though ten minutes old by this process\'s')
  t.same(await checkProofOfWork(keys, header, binding, 1, tenMinutesAgo + 181_000), { refused: 'expired' }, 'three minutes later by it: expired')
  t.same(await checkProofOfWork(keys, header, binding, 1, Date.now()), { refused: 'expired' }, 'by this process\'s clock: expired')
})

t.test('a challenge issued by a clock ahead of this process\'s stays good for its three minutes by that clock', async (t) => {
  const ahead = Date.now() + 10 * 60_000
  const header = await solvedHeader(await issueProofOfWork(keys, 1, binding, ahead) as unknown as Record<string, unknown>)
  const checked = await checkProofOfWork(keys, header, binding, 1, ahead + 1000)
  t.notOk('refused' in checked)
  t.equal('expiresAt' in checked ? checked.expiresAt : 0, Math.floor(ahead / 1000) * 1000 + 180_000, 'recorded as used until it expires by that clock')
})
