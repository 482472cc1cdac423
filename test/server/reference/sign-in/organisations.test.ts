import { decodeJwt } from 'jose'
import t, { type Test } from 'tap'
import { CONTEXT_FIELD_MAX_LENGTH, MAX_ALLOWED_ORGS } from '../../../../server/reference/http/validation.js'
import { GOOD_PASSWORD, startReference } from '../../../fixtures/servers/reference.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'

const NOT_A_MEMBER = { error: 'Your account is not a member of an organisation allowed here.' }

async function memberOf (t: Test, organizations: string[]) {
  const reference = await startReference(t)
  await registerAccount(reference.base, 'member@example.com')
  const account = await reference.services.store.findAccountByEmail('member@example.com')
  for (const organization of organizations) await reference.services.store.addMembership(account!.id, organization)
  return reference
}

t.test('a login naming allowed organisations succeeds for a member; the token lists the ones it belongs to', async (t) => {
  const { base } = await memberOf(t, ['acme', 'globex'])
  const answer = await postJson(base, '/accounts/v2/login', {
    email: 'member@example.com', password: GOOD_PASSWORD, insecure_allowed_orgs: ['initech', 'globex', 'acme', 'acme']
  })
  t.equal(answer.status, 200)
  t.same(decodeJwt(answer.body.auth as string).orgs, ['globex', 'acme'], 'the intersection, in the order asked, without repeats')
})

t.test('a single allowed organisation may be given as text instead of a list', async (t) => {
  const { base } = await memberOf(t, ['acme'])
  const answer = await postJson(base, '/accounts/v2/login', { email: 'member@example.com', password: GOOD_PASSWORD, insecure_allowed_orgs: 'acme' })
  t.equal(answer.status, 200)
  t.same(decodeJwt(answer.body.auth as string).orgs, ['acme'])
})

t.test('a login naming only organisations the account is not in is refused with 403, and issues no token', async (t) => {
  const { base, services } = await memberOf(t, ['acme'])
  const answer = await postJson(base, '/accounts/v2/login', { email: 'member@example.com', password: GOOD_PASSWORD, insecure_allowed_orgs: ['globex'] })
  t.equal(answer.status, 403)
  t.same(answer.body, NOT_A_MEMBER)
  const account = await services.store.findAccountByEmail('member@example.com')
  t.same(await services.store.listMemberships(account!.id), ['acme'], 'memberships unchanged')
})

t.test('an account in no organisation is refused wherever organisations are named', async (t) => {
  const { base } = await memberOf(t, [])
  const answer = await postJson(base, '/accounts/v2/login', { email: 'member@example.com', password: GOOD_PASSWORD, insecure_allowed_orgs: ['acme'] })
  t.same([answer.status, answer.body], [403, NOT_A_MEMBER])
})

t.test('without allowed organisations any account logs in, and the token names no organisation', async (t) => {
  const { base } = await memberOf(t, ['acme'])
  for (const insecureAllowedOrgs of [undefined, null, [], ['']]) {
    const answer = await postJson(base, '/accounts/v2/login', { email: 'member@example.com', password: GOOD_PASSWORD, insecure_allowed_orgs: insecureAllowedOrgs })
    t.equal(answer.status, 200, `${JSON.stringify(insecureAllowedOrgs)}: logs in`)
    t.same(decodeJwt(answer.body.auth as string).orgs, [], `${JSON.stringify(insecureAllowedOrgs)}: no organisation in the token`)
  }
})

t.test('resource_type and cluster_name are carried into the token, and left out when not given', async (t) => {
  const { base } = await memberOf(t, [])
  const withContext = await postJson(base, '/accounts/v2/login', {
    email: 'member@example.com', password: GOOD_PASSWORD, resource_type: 'database', cluster_name: 'eu-west-prod'
  })
  const claims = decodeJwt(withContext.body.auth as string)
  t.equal(claims.resource_type, 'database')
  t.equal(claims.cluster_name, 'eu-west-prod')
  const without = decodeJwt((await postJson(base, '/accounts/v2/login', { email: 'member@example.com', password: GOOD_PASSWORD, resource_type: '' })).body.auth as string)
  t.notOk('resource_type' in without)
  t.notOk('cluster_name' in without)
})

const badContexts: Array<[string, Record<string, unknown>, string]> = [
  ['too many allowed organisations', { insecure_allowed_orgs: Array.from({ length: MAX_ALLOWED_ORGS + 1 }, (_, index) => `org-${index}`) }, 'The list of allowed organisations is not valid.'],
  ['an allowed organisation that is too long', { insecure_allowed_orgs: ['x'.repeat(CONTEXT_FIELD_MAX_LENGTH + 1)] }, 'The list of allowed organisations is not valid.'],
  ['an allowed organisation that is not text', { insecure_allowed_orgs: [42] }, 'The list of allowed organisations is not valid.'],
  ['allowed organisations that are an object', { insecure_allowed_orgs: { acme: true } }, 'The list of allowed organisations is not valid.'],
  ['an allowed organisation with a control character', { insecure_allowed_orgs: ['ac\nme'] }, 'The list of allowed organisations is not valid.'],
  ['a resource type that is too long', { resource_type: 'r'.repeat(CONTEXT_FIELD_MAX_LENGTH + 1) }, 'The resource type is not valid.'],
  ['a resource type that is not text', { resource_type: ['database'] }, 'The resource type is not valid.'],
  ['a cluster name that is too long', { cluster_name: 'c'.repeat(CONTEXT_FIELD_MAX_LENGTH + 1) }, 'The cluster name is not valid.'],
  ['a cluster name with a bidirectional override', { cluster_name: 'prod\u202eved' }, 'The cluster name is not valid.']
]

t.test('context fields out of bounds answer 400 with a readable error before any password check', async (t) => {
  const { base } = await memberOf(t, [])
  for (const [name, fields, message] of badContexts) {
    const answer = await postJson(base, '/accounts/v2/login', { email: 'member@example.com', password: 'wrong, never checked', ...fields })
    t.same([answer.status, answer.body], [400, { error: message }], name)
  }
  const atTheLimit = await postJson(base, '/accounts/v2/login', {
    email: 'member@example.com',
    password: GOOD_PASSWORD,
    insecure_allowed_orgs: Array.from({ length: MAX_ALLOWED_ORGS }, (_, index) => `org-${index}`),
    resource_type: 'r'.repeat(CONTEXT_FIELD_MAX_LENGTH),
    cluster_name: 'c'.repeat(CONTEXT_FIELD_MAX_LENGTH)
  })
  t.same([atTheLimit.status, atTheLimit.body], [403, NOT_A_MEMBER], 'at the limits the fields are accepted (and the membership rule applies)')
})
