// The pseudo-locales' texts: accented, at least 40 % longer, bracketed, and
// still the same message format (placeholders and plurals work in them).
import t from 'tap'
import englishCatalogue from '../../../../common/messages/en.json' with { type: 'json' }
import { formatMessage } from '../../../../common/languages/message-format.js'
import { messageShape } from '../../../../server/shared/languages/message-syntax.js'
import { pseudoCatalogue, pseudoText } from '../../../../server/edge/languages/pseudo-locales.js'

t.test('a text is accented, bracketed and 40 % longer, its words still words', async (t) => {
  t.equal(pseudoText('Sign in'), '[Šîĝñšî îñî]')
  const text = pseudoText('Show password')
  t.ok(text.startsWith('[') && text.endsWith(']'))
  t.notMatch(text, /[A-Za-z]/, 'no plain Latin letter left')
  t.ok(text.length >= Math.ceil('Show password'.length * 1.4), `${text.length} characters for 13`)
  t.ok(text.includes(pseudoText('Show').slice(1, -1)), 'a word is always the same pseudo-word: a label keeps its visible text (WCAG 2.5.3)')
})

t.test('placeholders and plurals are kept and still work', async (t) => {
  const english = '{days, plural, one {Added in the last day} other {Added in the last # days at {product}}}'
  const pseudo = pseudoText(english)
  t.same(messageShape(pseudo), messageShape(english))
  t.match(formatMessage(pseudo, { days: 7, product: 'Acme' }), /^\[.* 7 .* Acme\]$/)
})

t.test('every English text has its pseudo-text, in the same shape', async (t) => {
  const pseudo = pseudoCatalogue(englishCatalogue)
  const unlike = Object.entries(englishCatalogue).filter(([key, text]) => JSON.stringify(messageShape(text)) !== JSON.stringify(messageShape(pseudo[key as keyof typeof pseudo])))
  t.same(unlike.map(([key]) => key), [])
})
