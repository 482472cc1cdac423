// The page's formatter: values, numbers in the visitor's locale, plural
// branches by each language's CLDR rules, and texts that do not parse shown as
// they are; and that it reads every shipped text as the strict parser does.
import { readdirSync, readFileSync } from 'node:fs'
import t from 'tap'
import { formatMessage, type MessageParams } from '../../../common/languages/message-format.js'
import { parseMessage, type MessagePart } from '../../../server/shared/languages/message-syntax.js'

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

t.test('a text that does not parse is shown as it is', async (t) => {
  for (const text of [
    '{days, plural, one {# day}}',
    '{days, plural, one {# day} other {# days}',
    '{days, select, a {x} other {y}}',
    '{days, plural, one {#} other {#} trailing'
  ]) t.equal(formatMessage(text, { days: 2 }), text, `${text}: shown as written`)
})

t.test('a value named like an object\'s own property is no value', async (t) => {
  t.equal(formatMessage('{toString} {constructor}', {}), '{toString} {constructor}')
  t.equal(formatMessage('{n, plural, __proto__ {x} other {#}}', { n: 2 }), '2')
})

/** The strict parser's reading of a text, filled: what the page's formatter must agree with. */
function reference (parts: readonly MessagePart[], params: MessageParams, locale: string, count = '#'): string {
  return parts.map((part) => {
    if (typeof part === 'string') return part
    if ('hash' in part) return count
    if (!Object.hasOwn(params, part.name)) return `{${part.name}}`
    const value = params[part.name]!
    const written = typeof value === 'number' ? new Intl.NumberFormat(locale).format(value) : value
    if (part.branches === undefined) return written
    const branch = part.branches.get(`=${value}`) ?? part.branches.get(new Intl.PluralRules(locale).select(Number(value))) ?? part.branches.get('other')!
    return reference(branch, params, locale, written)
  }).join('')
}

t.test('every shipped text, in every language, reads as the strict parser reads it', async (t) => {
  const folders = ['common/messages', 'server/reference/languages', 'server/reference/emails/messages']
  let compared = 0
  const differing: string[] = []
  for (const folder of folders) {
    const root = new URL(`../../../${folder}/`, import.meta.url)
    for (const file of readdirSync(root).filter((name) => name.endsWith('.json'))) {
      const locale = file.slice(0, -'.json'.length)
      for (const [key, text] of Object.entries(JSON.parse(readFileSync(new URL(file, root), 'utf8')) as Record<string, string>)) {
        if (!text.includes('{')) continue
        for (const count of [0, 1, 2, 3, 5, 11, 21, 100, 1.5, 1234]) {
          const parts = parseMessage(text)
          const names = new Set<string>()
          const collect = (list: readonly MessagePart[]): void => { for (const part of list) if (typeof part !== 'string' && !('hash' in part)) { names.add(part.name); part.branches?.forEach(collect) } }
          collect(parts)
          const params = Object.fromEntries([...names].map((name) => [name, count]))
          compared++
          if (formatMessage(text, params, locale) !== reference(parts, params, locale)) differing.push(`${folder}/${file} ${key} at ${count}`)
        }
      }
    }
  }
  t.same(differing, [], `${compared} formattings agree`)
})
