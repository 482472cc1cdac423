import t from 'tap'
import {
  NAME_MAX_LENGTH,
  parseEmail,
  parseEmailCode,
  parseEmailCodeLogin,
  parseLoginContext,
  parseNewPassword,
  parseRegistration,
  PASSWORD_MAX_LENGTH,
  DEFAULT_PASSWORD_MIN_LENGTH as PASSWORD_MIN_LENGTH,
  type NewPasswordRules
} from '../../../../server/reference/http/validation.js'
import { GOOD_PASSWORD, startReference } from '../../../fixtures/servers/reference.js'
import { postJson } from '../../../fixtures/http/post-json.js'

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

const RULES: NewPasswordRules = { minLength: PASSWORD_MIN_LENGTH, contextWords: ['Threshold'] }
const newPassword = (password: string, rules: NewPasswordRules = RULES): ReturnType<typeof parseNewPassword> => parseNewPassword(password, password, rules)

t.test(`a new password has ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters, counted as characters rather than UTF-16 units`, async (t) => {
  t.same(newPassword('xq7mzr2k'), { ok: true, value: 'xq7mzr2k' })
  t.same(newPassword('xq7mzr2'), { ok: false, error: { key: 'field.passwordTooShort', params: { min: 8 } } })
  t.same(newPassword('😀🐙'.repeat(2)).ok, false, 'four emoji are four characters, not eight')
  t.same(newPassword('😀🐙'.repeat(PASSWORD_MAX_LENGTH / 2)).ok, true, '256 emoji are allowed')
  t.same(newPassword('xy'.repeat(PASSWORD_MAX_LENGTH / 2 + 1)).ok, false)
  t.same(newPassword('  a  b  c  ').ok, true, 'any characters, spaces included (NIST SP 800-63B)')
  t.same(newPassword('PassWord123'), { ok: false, error: 'field.passwordTooCommon' }, 'common passwords are refused in any case')
})

t.test('PASSWORD_MIN_LENGTH raises the minimum, and the refusal names it', async (t) => {
  const rules = { ...RULES, minLength: 15 }
  t.same(newPassword('xq7mzr2kvb4wpt', rules), { ok: false, error: { key: 'field.passwordTooShort', params: { min: 15 } } })
  t.same(newPassword('xq7mzr2kvb4wptn', rules).ok, true)
})

t.test('the issue\'s examples are refused: one character repeated, a common password with digits or punctuation added', async (t) => {
  t.same(newPassword('aaaaaaaa'), { ok: false, error: 'field.passwordRepeated' })
  t.same(newPassword('😀'.repeat(8)), { ok: false, error: 'field.passwordRepeated' }, 'counted by characters')
  t.same(newPassword('password1234'), { ok: false, error: 'field.passwordTooCommon' }, 'in the list itself')
  t.same(newPassword('Summer2024!'), { ok: false, error: 'field.passwordCommonWithSuffix' })
  t.same(newPassword('password98765!?'), { ok: false, error: 'field.passwordCommonWithSuffix' })
  t.same(newPassword('MONKEY!!99'), { ok: false, error: 'field.passwordCommonWithSuffix' }, 'case does not matter')
  t.same(newPassword('sunshine 2024'), { ok: false, error: 'field.passwordCommonWithSuffix' }, 'a space counts as punctuation')
})

t.test('only a short ending counts as added: up to 8 digits, spaces or marks after a listed password are refused, a longer run is a passphrase', async (t) => {
  t.same(newPassword('dragon1234!!'), { ok: false, error: 'field.passwordCommonWithSuffix' }, '6 characters')
  t.same(newPassword('sunshine19991231'), { ok: false, error: 'field.passwordCommonWithSuffix' }, '8 characters, a date')
  t.same(newPassword('qwertyuiop 123'), { ok: false, error: 'field.passwordCommonWithSuffix' })
  for (const password of ['dragon 4817 2931 0563 7742', 'bonjour 1234567890123', 'sunshine123456789']) {
    t.same(newPassword(password).ok, true, password)
  }
})

t.test('the same cap holds for a context word: a long ending after the product\'s name passes', async (t) => {
  t.same(newPassword('threshold2024!'), { ok: false, error: 'field.passwordContextWord' })
  t.same(newPassword('threshold 4817 2931 0563').ok, true)
})

t.test('the offline list has tens of thousands of passwords, checked without regard to case', async (t) => {
  for (const password of ['qwertyuiop', 'Iloveyou1', 'BASEBALL', 'trustno1', 'superman', 'starwars', 'p@ssw0rd']) {
    t.same(newPassword(password), { ok: false, error: 'field.passwordTooCommon' }, password)
  }
})

t.test('the suffix rule is precise: only digits and punctuation at the end of a listed password', async (t) => {
  for (const password of ['2024summer', 'summer in paris', 'summerxq7mzr', 'correct horse battery staple', 'xq7mzr2k!!']) {
    t.same(newPassword(password).ok, true, password)
  }
})

t.test('a password that is the product\'s name or the address, digits and punctuation aside, is refused', async (t) => {
  t.same(newPassword('Threshold2024!'), { ok: false, error: 'field.passwordContextWord' })
  t.same(newPassword('acme cloud 1', { ...RULES, contextWords: ['Acme Cloud'] }), { ok: false, error: 'field.passwordContextWord' })
  t.same(newPassword('acmecloud12', { ...RULES, contextWords: ['Acme Cloud'] }), { ok: false, error: 'field.passwordContextWord' })
  const registration = (email: string, password: string): unknown =>
    parseRegistration({ email, password, confirm_password: password }, RULES)
  t.same(registration('zanzibar.quill@example.com', 'Zanzibar.Quill99'), { ok: false, error: 'field.passwordContextWord' }, 'the local part')
  t.same(registration('zq@example.com', 'zq@example.com'), { ok: false, error: 'field.passwordContextWord' }, 'the whole address')
  t.same((registration('zq@example.com', 'zanzibar.quill99') as { ok: boolean }).ok, true, 'another person\'s name is fine')
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

t.test('an emailed code is read in any case, with spaces or a dash; one that cannot be a code is refused before it is tried', async (t) => {
  t.same(parseEmailCode('abcd-efgh'), { ok: true, value: 'ABCDEFGH' })
  t.same(parseEmailCode(' AbCd eFgH '), { ok: true, value: 'ABCDEFGH' })
  t.same(parseEmailCode('ABCDEFG0'), { ok: false, error: 'emailCode.codeMalformed' }, 'a zero is no letter of the alphabet')
  t.same(parseEmailCode('ABCD-EFGHJ'), { ok: false, error: 'emailCode.codeMalformed' })
  for (const missing of [undefined, null, '', '   ', 12345678]) t.same(parseEmailCode(missing), { ok: false, error: 'emailCode.codeMissing' }, String(missing))
  t.same(parseEmailCodeLogin({ email: 'a@example.com', code: 'abcd-efgh', insecure_allowed_orgs: ['acme'] }),
    { ok: true, value: { email: 'a@example.com', code: 'ABCDEFGH', context: { organizations: ['acme'], resourceType: null, clusterName: null } } })
  t.same(parseEmailCodeLogin({ email: 'nope', code: 'abcd-efgh' }), { ok: false, error: 'field.emailInvalid' }, 'the address first')
})
