import t from 'tap'
import {
  NAME_MAX_LENGTH,
  parseEmail,
  parseLoginContext,
  parseNewPassword,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH
} from '../../../server/reference/validation.js'
import { GOOD_PASSWORD, postJson, startReference } from '../../fixtures/reference.js'

const VALID_EMAILS = [
  'a@example.com',
  'first.last+tag@sub.example.co.uk',
  'o\'brien@example.ie',
  'zoë@exämple.test',
  '用户@例子.广告',
  '  spaced@example.com  ',
  `${'l'.repeat(64)}@example.com`
]

const INVALID_EMAILS = [
  'plain',
  '@example.com',
  'no-domain@',
  'no-dot@localhost',
  'two@at@example.com',
  '.leading-dot@example.com',
  'trailing-dot.@example.com',
  'double..dot@example.com',
  'space in@example.com',
  '"quoted"@example.com',
  'angle<@example.com',
  'a@-leading-hyphen.example.com',
  'a@trailing-hyphen-.example.com',
  'a@exa_mple.com',
  'a@example..com',
  'line\nbreak@example.com',
  'zero\u200bwidth@example.com',
  `${'l'.repeat(65)}@example.com`,
  `a@${'d'.repeat(63)}.${'d'.repeat(63)}.${'d'.repeat(63)}.${'d'.repeat(60)}.com`
]

t.test('addresses that can be delivered to are accepted, trimmed', async (t) => {
  for (const email of VALID_EMAILS) {
    t.same(parseEmail(email), { ok: true, value: email.trim() }, email)
  }
})

t.test('malformed addresses are refused with one message (a key of the answers\' catalogue, said in the request\'s language)', async (t) => {
  for (const email of INVALID_EMAILS) {
    t.same(parseEmail(email), { ok: false, error: 'field.emailInvalid' }, JSON.stringify(email))
  }
  for (const missing of [undefined, null, '', '   ', 42, ['a@example.com']]) {
    t.same(parseEmail(missing), { ok: false, error: 'field.emailMissing' }, JSON.stringify(missing) ?? 'undefined')
  }
})

t.test(`a new password has ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters, counted as characters rather than UTF-16 units`, async (t) => {
  t.same(parseNewPassword('x'.repeat(PASSWORD_MIN_LENGTH), 'x'.repeat(PASSWORD_MIN_LENGTH)), { ok: true, value: 'xxxxxxxx' })
  t.same(parseNewPassword('x'.repeat(7), 'x'.repeat(7)).ok, false)
  t.same(parseNewPassword('😀'.repeat(4), '😀'.repeat(4)).ok, false, 'four emoji are four characters, not eight')
  t.same(parseNewPassword('😀'.repeat(PASSWORD_MAX_LENGTH), '😀'.repeat(PASSWORD_MAX_LENGTH)).ok, true, '256 emoji are allowed')
  t.same(parseNewPassword('x'.repeat(PASSWORD_MAX_LENGTH + 1), 'x'.repeat(PASSWORD_MAX_LENGTH + 1)).ok, false)
  t.same(parseNewPassword('        ', '        ').ok, true, 'any characters, spaces included (NIST SP 800-63B)')
  t.same(parseNewPassword('PassWord123', 'PassWord123'), { ok: false, error: 'field.passwordTooCommon' },
    'common passwords are refused in any case')
})

t.test('an allowed organisation given twice counts once; blank ones are dropped', async (t) => {
  t.same(parseLoginContext({ insecure_allowed_orgs: ['acme', 'acme', '', null] }), {
    ok: true, value: { organizations: ['acme'], resourceType: null, clusterName: null }
  })
})

const badRegistrations: Array<[string, Record<string, unknown>, string]> = [
  ['no email', { password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD }, 'Enter your email address.'],
  ['an invalid email', { email: 'nobody', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD }, 'Enter a valid email address.'],
  ['no password', { email: 'a@example.com', confirm_password: GOOD_PASSWORD }, 'Choose a password.'],
  ['a password that is not text', { email: 'a@example.com', password: 12345678, confirm_password: 12345678 }, 'Choose a password.'],
  ['a short password', { email: 'a@example.com', password: 'seven77', confirm_password: 'seven77' }, `Your password must have at least ${PASSWORD_MIN_LENGTH} characters.`],
  ['a long password', { email: 'a@example.com', password: 'x'.repeat(257), confirm_password: 'x'.repeat(257) }, `Your password can have at most ${PASSWORD_MAX_LENGTH} characters.`],
  ['a common password', { email: 'a@example.com', password: 'qwertyuiop', confirm_password: 'qwertyuiop' }, 'This password is too common. Please choose another.'],
  ['no confirmation', { email: 'a@example.com', password: GOOD_PASSWORD }, 'The passwords do not match.'],
  ['a confirmation that differs', { email: 'a@example.com', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD.toUpperCase() }, 'The passwords do not match.'],
  ['a first name that is not text', { first_name: 7, email: 'a@example.com', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD }, 'First name must be text.'],
  ['a first name that is too long', { first_name: 'F'.repeat(NAME_MAX_LENGTH + 1), email: 'a@example.com', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD }, `First name can have at most ${NAME_MAX_LENGTH} characters.`],
  ['a first name with a control character', { first_name: 'Ann\u0007', email: 'a@example.com', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD }, 'First name contains characters that are not allowed.'],
  ['a last name that is not text', { last_name: ['Smith'], email: 'a@example.com', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD }, 'Last name must be text.'],
  ['a last name that is too long', { last_name: 'L'.repeat(NAME_MAX_LENGTH + 1), email: 'a@example.com', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD }, `Last name can have at most ${NAME_MAX_LENGTH} characters.`],
  ['a last name with a right-to-left override', { last_name: 'Smith\u202e', email: 'a@example.com', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD }, 'Last name contains characters that are not allowed.']
]

t.test('a registration breaking a rule answers 400 with the rule\'s message, through the edge, and creates nothing', async (t) => {
  const { base, services } = await startReference(t)
  for (const [name, body, message] of badRegistrations) {
    const answer = await postJson(base, '/accounts/register', body)
    t.same([answer.status, answer.body], [400, { error: message }], name)
  }
  t.equal(await services.store.findAccountByEmail('a@example.com'), null, 'no account was made')
})

t.test(`names of exactly ${NAME_MAX_LENGTH} characters are accepted`, async (t) => {
  const { base, services } = await startReference(t)
  const answer = await postJson(base, '/accounts/register', {
    first_name: 'ß'.repeat(NAME_MAX_LENGTH), last_name: '👩'.repeat(NAME_MAX_LENGTH), email: 'long-names@example.com', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD
  })
  t.equal(answer.status, 200)
  t.equal((await services.store.findAccountByEmail('long-names@example.com'))!.lastName, '👩'.repeat(NAME_MAX_LENGTH))
})
