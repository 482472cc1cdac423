// The catalogues' message format: values, numbers in the visitor's locale,
// plural branches by each language's CLDR rules, and texts that do not parse.
import t from 'tap'
import { formatMessage, messageShape, parseMessage, placeholdersOf } from '../../../common/languages/message-format.js'

const DAYS = '{days, plural, one {Added in the last day} other {Added in the last # days}}'

t.test('a value is inserted as it is, a missing one stays as its name', async (t) => {
  t.equal(formatMessage('{heading} · {product}', { heading: 'Sign in', product: 'Acme' }), 'Sign in · Acme')
  t.equal(formatMessage('{heading} · {product}', { heading: 'Sign in' }), 'Sign in · {product}')
  t.equal(formatMessage('No braces at all.'), 'No braces at all.')
  t.equal(formatMessage('{name}', { name: '<b>{x}</b> #' }), '<b>{x}</b> #', 'a value is never read as the format')
})

t.test('a number is written as the language writes numbers', async (t) => {
  t.equal(formatMessage('{count} left', { count: 1234 }, 'en'), '1,234 left')
  t.equal(formatMessage('{count} left', { count: 1234 }, 'de'), '1.234 left')
  t.equal(formatMessage('{count}', { count: 30 }, 'fa'), '۳۰')
  t.equal(formatMessage('{count}', { count: '1234' }, 'de'), '1234', 'a string stays as given')
})

t.test('a plural picks the branch of the language\'s rules, # is the number', async (t) => {
  t.equal(formatMessage(DAYS, { days: 1 }), 'Added in the last day')
  t.equal(formatMessage(DAYS, { days: 7 }), 'Added in the last 7 days')
  t.equal(formatMessage(DAYS, { days: 0 }), 'Added in the last 0 days')
  const polish = '{count, plural, one {# minuta} few {# minuty} many {# minut} other {# minuty}}'
  t.same([1, 2, 5, 22, 25, 1.5].map((count) => formatMessage(polish, { count }, 'pl')), ['1 minuta', '2 minuty', '5 minut', '22 minuty', '25 minut', '1,5 minuty'])
  const arabic = '{n, plural, zero {لا دقائق} one {دقيقة واحدة} two {دقيقتان} few {# دقائق} many {# دقيقة} other {# دقيقة}}'
  t.same([0, 1, 2, 3, 11, 100].map((n) => formatMessage(arabic, { n }, 'ar')), ['لا دقائق', 'دقيقة واحدة', 'دقيقتان', '3 دقائق', '11 دقيقة', '100 دقيقة'])
})

t.test('an exact branch wins over the rules; values inside a branch are filled', async (t) => {
  const text = 'In {days, plural, =1 {the last day} one {# day} other {# days}} at {product}'
  t.equal(formatMessage(text, { days: 1, product: 'Acme' }), 'In the last day at Acme')
  t.equal(formatMessage(text, { days: 3, product: 'Acme' }), 'In 3 days at Acme')
})

t.test('a plural without its value shows its name, not a wrong form', async (t) => {
  t.equal(formatMessage(DAYS, {}), '{days}')
})

t.test('a text that does not parse is shown as it is, and the shape says why', async (t) => {
  for (const [text, why] of [
    ['{days, plural, one {# day}}', /no "other" branch/],
    ['{days, plural, one {# day} other {# days}', /never closed/],
    ['Wait } there', /without its "\{"/],
    ['{days, plural, several {#} other {#}}', /"several" is not a plural category/],
    ['{days, plural, one {#} one {#} other {#}}', /"one" twice/],
    ['{days, select, a {x} other {y}}', /neither \{name\} nor \{name, plural/],
    ['{ heading}', /neither/]
  ] as const) {
    t.equal(formatMessage(text, { days: 2 }), text, `${text}: shown as written`)
    t.throws(() => parseMessage(text), why, `${text}: said why`)
  }
})

t.test('the shape lists the names and each plural\'s branches, nested ones too', async (t) => {
  t.same(messageShape('{a} {n, plural, one {# {b}} other {# {c}}}'), { names: ['a', 'b', 'c', 'n'], plurals: [{ name: 'n', branches: ['one', 'other'] }] })
  t.same(placeholdersOf('{n, plural, one {x} other {'), [], 'none for a text that does not parse')
})
