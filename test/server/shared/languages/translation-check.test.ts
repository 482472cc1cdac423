// What MESSAGES_DIR and the catalogue test refuse in a translated text, in
// the language's own plural rules.
import t from 'tap'
import { pluralCategoriesOf, translationProblem } from '../../../../server/shared/languages/translation-check.js'

const ENGLISH = 'Please wait {minutes, plural, one {# minute} other {# minutes}} and try again.'

t.test('a text with English\'s values and its language\'s plural forms passes', async (t) => {
  t.equal(translationProblem('de', 'Bitte warten Sie {minutes, plural, one {# Minute} other {# Minuten}}.', ENGLISH), null)
  t.equal(translationProblem('pl', 'Odczekaj {minutes, plural, one {# minutę} few {# minuty} many {# minut} other {# minuty}}.', ENGLISH), null)
  t.equal(translationProblem('ja', '{minutes} 分お待ちください。', ENGLISH), null, 'one form only: a plain value is enough')
  t.equal(translationProblem('ja', '{minutes, plural, other {# 分}}お待ちください。', ENGLISH), null)
})

t.test('a plural that lacks a form its language needs, or has one it never uses, is refused', async (t) => {
  t.equal(translationProblem('pl', 'Odczekaj {minutes, plural, one {# minutę} other {# minut}}.', ENGLISH), 'has a plural of {minutes} without few, many (pl has one, few, many, other)')
  t.equal(translationProblem('de', '{minutes, plural, one {# Minute} few {# Minuten} other {# Minuten}}', ENGLISH), 'has a plural of {minutes} with few, which de never uses (it has one, other)')
  t.match(translationProblem('ru', 'Подождите {minutes} мин.', ENGLISH), /says \{minutes\} without its plural forms: write \{minutes, plural, one \{…\} few \{…\} many \{…\} other \{…\}\}/)
})

t.test('MESSAGES_DIR\'s texts may say a count plainly, or give a form Node\'s CLDR data no longer has: an upgrade never stops a start', async (t) => {
  t.equal(translationProblem('fr', 'Au moins {min} caractères.', '{min, plural, one {At least # character.} other {At least # characters.}}', 'operator'), null)
  t.equal(translationProblem('he', '{minutes, plural, one {דקה} two {שתי דקות} many {# דקות} other {# דקות}}', ENGLISH, 'operator'), null)
  t.match(translationProblem('pl', 'Odczekaj {minutes, plural, one {# minutę} other {# minut}}.', ENGLISH, 'operator'), /without few, many/, 'a missing form still stops it')
})

t.test('another placeholder, or a text that does not parse, is refused', async (t) => {
  t.equal(translationProblem('fr', 'Attendez {minute, plural, one {# minute} many {# minutes} other {# minutes}}.', ENGLISH), 'has the placeholders {minute} where English has {minutes}')
  t.match(translationProblem('fr', 'Attendez {minutes, plural, one {# minute} other {# minutes}.', ENGLISH), /^does not parse: /)
})

t.test('the categories are CLDR\'s, as Intl has them, in CLDR\'s order', async (t) => {
  t.same(pluralCategoriesOf('ar'), ['zero', 'one', 'two', 'few', 'many', 'other'])
  t.same(pluralCategoriesOf('ru'), ['one', 'few', 'many', 'other'])
  t.ok(pluralCategoriesOf('cs').includes('few'))
  t.same(pluralCategoriesOf('zh-Hant'), ['other'])
})
