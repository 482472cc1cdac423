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
  t.equal(translationProblem('pl', 'Odczekaj {minutes, plural, one {# minutę} other {# minut}}.', ENGLISH), 'the plural of {minutes} lacks few, many (pl has one, few, many, other)')
  t.equal(translationProblem('de', '{minutes, plural, one {# Minute} few {# Minuten} other {# Minuten}}', ENGLISH), 'the plural of {minutes} has few, which de never uses (it has one, other)')
  t.match(translationProblem('ru', 'Подождите {minutes} мин.', ENGLISH), /says \{minutes\} without its plural forms: write \{minutes, plural, one \{…\} few \{…\} many \{…\} other \{…\}\}/)
})

t.test('another placeholder, or a text that does not parse, is refused', async (t) => {
  t.equal(translationProblem('fr', 'Attendez {minute, plural, one {# minute} many {# minutes} other {# minutes}}.', ENGLISH), 'has the placeholders {minute} where English has {minutes}')
  t.match(translationProblem('fr', 'Attendez {minutes, plural, one {# minute} other {# minutes}.', ENGLISH), /^does not parse: /)
})

t.test('the categories are CLDR\'s, as Intl has them', async (t) => {
  t.same([...pluralCategoriesOf('ar')].sort(), ['few', 'many', 'one', 'other', 'two', 'zero'])
  t.ok(pluralCategoriesOf('cs').includes('few'))
  t.same(pluralCategoriesOf('zh-Hant'), ['other'])
})
