// The strict reading of the message format: what the catalogue test and
// MESSAGES_DIR's check refuse, and why; the shape they compare; the
// pseudo-locales' rewriting.
import t from 'tap'
import { messageShape, parseMessage, placeholdersOf, rewriteLiterals } from '../../../../server/shared/languages/message-syntax.js'

t.test('a text that does not parse says why', async (t) => {
  for (const [text, why] of [
    ['{days, plural, one {# day}}', /no "other" branch/],
    ['{days, plural, one {# day} other {# days}', /never closed/],
    ['Wait } there', /without its "\{"/],
    ['{days, plural, several {#} other {#}}', /"several" is not a plural category/],
    ['{days, plural, one {#} one {#} other {#}}', /"one" twice/],
    ['{days, select, a {x} other {y}}', /neither \{name\} nor \{name, plural/],
    ['{ heading}', /neither/],
    ['{days, plural, one {#} other {#} trailing}', /not a branch: "trailing"/],
    ['{a, plural, one {# {b, plural, one {#} other {#}}} other {#}}', /the plural of \{b\} is inside another plural/],
    ['{n, plural, =01 {one} other {#}}', /not a branch/],
    ["Don'{t} worry", /an apostrophe before "\{" at character 4 quotes it in ICU tools/],
    ["{n, plural, one {'#'} other {#}}", /an apostrophe before "#"/]
  ] as const) {
    t.throws(() => parseMessage(text), why, text)
  }
})

t.test('the shape lists the names and each plural\'s branches, nested ones too', async (t) => {
  t.same(messageShape('{a} {n, plural, one {# {b}} other {# {c}}} {m, plural, other {#}}'), { names: ['a', 'b', 'c', 'm', 'n'], plurals: [{ name: 'n', branches: ['one', 'other'] }, { name: 'm', branches: ['other'] }] })
  t.same(placeholdersOf('{n, plural, one {x} other {'), [], 'none for a text that does not parse')
})

t.test('rewriting the literals keeps the syntax', async (t) => {
  const text = 'Wait {n, plural, =1 {a minute} one {# minute} other {# minutes at {place}}}.'
  t.equal(rewriteLiterals(text, (literal) => literal.toUpperCase()), 'WAIT {n, plural, =1 {A MINUTE} one {# MINUTE} other {# MINUTES AT {place}}}.')
})
