import t from 'tap'
import { emailKey } from '../../../../server/shared/email-key.js'
import { rekeyAccounts } from '../../../../server/reference/store/email-key.js'

t.test('addresses a person cannot tell apart have one key', async (t) => {
  const same: Array<[string, string, string]> = [
    ['n3x@b.co', 'n3x@ｂ.co', 'a full-width letter in the domain'],
    ['ann@example.com', 'ａｎｎ@example.com', 'full-width letters in the local part'],
    ['ann@example.com', ' ANN@Example.COM ', 'case and surrounding spaces'],
    ['josé@example.com', 'jose\u0301@example.com', 'a decomposed accent'],
    ['ann@bücher.example', 'ann@xn--bcher-kva.example', 'an internationalised domain, in Unicode and in punycode'],
    ['ann@bücher.example', 'ann@BÜCHER.example', 'an internationalised domain in upper case'],
    ['ﬁ@example.com', 'fi@example.com', 'a ligature']
  ]
  for (const [a, b, why] of same) t.equal(emailKey(a), emailKey(b), why)
  t.equal(emailKey('ann@bücher.example'), 'ann@xn--bcher-kva.example', 'the domain is kept in its ASCII form')
})

t.test('different addresses keep different keys', async (t) => {
  t.not(emailKey('ann@example.com'), emailKey('anne@example.com'))
  t.not(emailKey('ann@b.co'), emailKey('ann@d.co'))
  t.not(emailKey('ann@example.com'), emailKey('ann@example.co'))
})

t.test('a string that is no address keeps a key of its own rather than failing', async (t) => {
  t.equal(emailKey('no-at-sign'), 'no-at-sign')
  t.equal(emailKey('a@'), 'a@')
})

t.test('re-keying changes only outdated keys and gives an address to one account', async (t) => {
  const rekeying = rekeyAccounts([
    { id: 'current', email: 'ann@example.com', emailKey: 'ann@example.com' },
    { id: 'idn', email: 'bo@bücher.example', emailKey: 'bo@bücher.example' },
    // Registered first, as a look-alike of an address whose account already has the current key.
    { id: 'lookalike', email: 'ａnn@example.com', emailKey: 'ａnn@example.com' },
    { id: 'older-wide', email: 'ｃy@example.com', emailKey: 'ｃy@example.com' },
    { id: 'newer-wide', email: 'cｙ@example.com', emailKey: 'cｙ@example.com' }
  ])
  t.same(rekeying.changes, [
    { id: 'idn', emailKey: 'bo@xn--bcher-kva.example' },
    { id: 'older-wide', emailKey: 'cy@example.com' }
  ])
  t.same(rekeying.conflicts, [
    { id: 'lookalike', keptBy: 'current' },
    { id: 'newer-wide', keptBy: 'older-wide' }
  ], 'the account already keyed as the address reads keeps it; else the oldest')
})
