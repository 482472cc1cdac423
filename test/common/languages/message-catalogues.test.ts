// The shipped catalogues, as a test: every language has exactly English's
// keys, each text says something, parses, keeps English's placeholders and
// gives every plural form its language's rules pick from, no text is left
// in English unless it is only names (or is listed, with its reason, in
// same-as-english.json beside this test), and no
// key lingers that nothing says any more (in the code of its own family; a
// key named only in a comment is not said). The same holds for the reference
// service's emails and for its answers' texts (errors and successes), whose
// catalogues sit beside them.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { LOCALES } from '../../../common/languages/message-catalogue.js'
import { placeholdersOf } from '../../../server/shared/languages/message-syntax.js'
import { translationProblem } from '../../../server/shared/languages/translation-check.js'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/**
 * The families of catalogues: one file per locale in each folder, `en.json` the reference;
 * `users`, the code that says a family's texts (test/ does not count), where a key must be
 * written as a string literal to count as used.
 */
const FAMILIES = [
  { name: 'page', folder: 'common/messages', users: ['client', 'common', 'server/edge', 'server/shared'] },
  { name: 'email', folder: 'server/reference/emails/messages', users: ['server/reference/emails'] },
  { name: 'answer', folder: 'server/reference/languages', users: ['server/reference'] }
] as const

/**
 * Unicode's directional controls (LRM, RLM, ALM, the embeddings and
 * overrides, the isolates): invisible in review, they reorder what a visitor
 * reads; the page sets `dir` and isolates what it inserts instead.
 */
const DIRECTIONAL_CONTROLS = /[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/u

/**
 * Words kept as they are in every language: names of products, protocols and
 * things a visitor types or sees written so (docs/translations.md).
 */
const NAMES = /\b(?:Google|Apple|Microsoft|GitHub|OpenID Connect|OAuth|SSO|JavaScript|QR|IP|URL|TOTP|Passkeys?)\b/g

/** A text that says nothing but names, placeholders, numbers and punctuation: the same in any language. */
const onlyNames = (text: string): boolean => !/\p{L}/u.test(text.replace(/\{[^{}]*\}/g, '').replace(NAMES, ''))

/** Texts a language rightly writes as English does, by locale and family, each with its reason. */
const SAME_AS_ENGLISH = JSON.parse(readFileSync(new URL('same-as-english.json', import.meta.url), 'utf8')) as
  Readonly<Record<string, Readonly<Record<string, Readonly<Record<string, string>>>>>>

/**
 * Buttons whose visible text is one key and whose accessible name another
 * (client/components/PasswordField.tsx, client/account-changes/RecentFactors.tsx):
 * the name must hold the visible text, word for word (WCAG 2.5.3, Label in
 * Name), so that a visitor who says "click Show" reaches the button.
 */
const LABEL_IN_NAME: ReadonlyArray<readonly [visible: string, name: string]> = [
  ['field.show', 'field.showPassword'], ['field.show', 'field.showNewPassword'], ['field.show', 'field.showConfirmPassword'],
  ['field.hide', 'field.hidePassword'], ['field.hide', 'field.hideNewPassword'], ['field.hide', 'field.hideConfirmPassword'],
  ['recentFactors.remove', 'recentFactors.removePasskey'], ['recentFactors.remove', 'recentFactors.removeSecondFactor']
]

/** A text as axe compares a label with a name: lower case, without punctuation, spaces folded. */
const comparable = (text: string, locale: string): string =>
  text.toLocaleLowerCase(locale).replace(/[\p{P}\p{S}]/gu, ' ').replace(/\s+/g, ' ').trim()

/**
 * The glossary's passkey (docs/languages.md, "Glossary"), by locale: the
 * stems its word takes in any form (Norwegian nøkkel, nøkler). A text whose
 * English names a passkey names it with the language's one word, never a
 * synonym a visitor could take for another thing (the setup key).
 */
const GLOSSARY = JSON.parse(readFileSync(new URL('glossary.json', import.meta.url), 'utf8')) as
  { readonly passkey: Readonly<Record<string, readonly string[]>> }

/** What a catalogue file holds once read: its keys in the file's order, or why it cannot be used. */
type ReadCatalogue =
  | { readonly ok: true, readonly entries: ReadonlyArray<readonly [string, string]> }
  | { readonly ok: false, readonly problem: string }

/** An assertion's message: what holds, or the offenders named when it does not. */
const saying = (offenders: readonly string[], holds: string, fails: string): string =>
  offenders.length === 0 ? holds : `${fails}: ${offenders.join(', ')}`

/** A printable label for a character that does not show (TAP output stays readable). */
const codePoint = (character: string): string => `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`

function readCatalogue (path: string): ReadCatalogue {
  if (!existsSync(join(ROOT, path))) return { ok: false, problem: `${path} does not exist` }
  const source = readFileSync(join(ROOT, path), 'utf8')
  let parsed: unknown
  try {
    parsed = JSON.parse(source)
  } catch (error) {
    return { ok: false, problem: `${path} is not JSON: ${(error as Error).message}` }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ok: false, problem: `${path} is not a JSON object` }
  }
  const nonStrings = Object.entries(parsed).filter(([, value]) => typeof value !== 'string').map(([key]) => key)
  if (nonStrings.length > 0) {
    return { ok: false, problem: `${path} is not flat: ${nonStrings.join(', ')} ${nonStrings.length === 1 ? 'is not a string' : 'are not strings'}` }
  }
  // JSON.parse keeps the last of two equal keys without a word; a flat file has one key a line, so count them.
  const written = [...source.matchAll(/^\s*("(?:[^"\\]|\\.)*")\s*:/gm)].map((match) => JSON.parse(match[1]!) as string)
  const duplicates = [...new Set(written.filter((key, index) => written.indexOf(key) !== index))]
  if (duplicates.length > 0) return { ok: false, problem: `${path} has a key twice: ${duplicates.join(', ')}` }
  return { ok: true, entries: Object.entries(parsed as Record<string, string>) }
}

/** A source without its comments: a key named only in a comment is not said by anything. */
const withoutComments = (text: string): string =>
  text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '')

/** Every key-like string literal ('…', "…" or `…` without interpolation) in the sources under `folders`. */
function literalsIn (folders: readonly string[]): Set<string> {
  const literals = new Set<string>()
  for (const folder of folders) {
    const files = readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
      .filter((name) => /\.tsx?$/.test(name) && !name.endsWith('.d.ts'))
    for (const file of files) {
      const text = withoutComments(readFileSync(join(ROOT, folder, file), 'utf8'))
      for (const match of text.matchAll(/(['"`])([A-Za-z0-9_.-]+)\1/g)) literals.add(match[2]!)
    }
  }
  return literals
}

for (const family of FAMILIES) {
  const englishPath = `${family.folder}/en.json`
  const english = readCatalogue(englishPath)

  t.test(`the English ${family.name} catalogue is a flat object of strings, each key once`, async (t) => {
    t.ok(english.ok, english.ok ? englishPath : english.problem)
  })
  if (!english.ok) continue
  const englishTexts = new Map(english.entries)
  const englishKeys = english.entries.map(([key]) => key)

  t.test(`every key of the English ${family.name} catalogue is said somewhere in ${family.users.join(', ')}`, async (t) => {
    const literals = literalsIn(family.users)
    const unused = englishKeys.filter((key) => !literals.has(key))
    t.same(unused, [], saying(unused, 'every key is named by a string literal', 'keys nothing uses (no string literal names them)'))
  })

  t.test(`the ${family.name} catalogues are exactly the shipped locales`, async (t) => {
    const present = readdirSync(join(ROOT, family.folder)).filter((name) => name.endsWith('.json')).map((name) => name.slice(0, -'.json'.length)).sort()
    t.same(present, [...LOCALES].sort(), `${family.folder} holds one catalogue per locale of LOCALES and nothing else`)
  })

  for (const locale of LOCALES) {
    const path = `${family.folder}/${locale}.json`
    t.test(`the ${locale} ${family.name} catalogue matches English`, async (t) => {
      const catalogue = locale === 'en' ? english : readCatalogue(path)
      if (!catalogue.ok) {
        t.fail(catalogue.problem)
        return
      }
      const texts = new Map(catalogue.entries)
      const keys = catalogue.entries.map(([key]) => key)

      const missing = englishKeys.filter((key) => !texts.has(key))
      t.same(missing, [], saying(missing, `${path} has every English key`, `${path} lacks`))
      const extra = keys.filter((key) => !englishTexts.has(key))
      t.same(extra, [], saying(extra, `${path} has no key English lacks`, `${path} has keys English does not`))
      // Same order as English, so that a reviewer reads two catalogues side by side.
      if (missing.length === 0 && extra.length === 0) t.same(keys, englishKeys, `${path} lists its keys in en.json's order`)

      const empty = keys.filter((key) => texts.get(key)!.trim() === '')
      t.same(empty, [], saying(empty, `${path} has a text for every key`, `${path} has empty texts`))

      const formatProblems = keys
        .filter((key) => englishTexts.has(key) && texts.get(key)!.trim() !== '')
        .flatMap((key) => {
          const problem = translationProblem(locale, texts.get(key)!, englishTexts.get(key)!)
          return problem === null ? [] : [`${key} ${problem}`]
        })
      t.same(formatProblems, [], saying(formatProblems, `${path} parses, keeps English's placeholders and gives ${locale}'s plural forms`, `${path} has texts that do not fit`))

      if (family.name === 'page') {
        const misnamed = LABEL_IN_NAME.filter(([visible, name]) => texts.has(visible) && texts.has(name) &&
          !comparable(texts.get(name)!, locale).includes(comparable(texts.get(visible)!, locale)))
          .map(([visible, name]) => `${name} "${texts.get(name)!}" lacks ${visible} "${texts.get(visible)!}"`)
        t.same(misnamed, [], saying(misnamed, `${path}: each button's name holds its visible text (WCAG 2.5.3)`, `${path}: button names without their visible text`))
      }

      const passkeyStems = GLOSSARY.passkey[locale]
      if (locale !== 'en') {
        t.ok(passkeyStems !== undefined, `glossary.json gives ${locale}'s word for passkey`)
        const synonyms = keys.filter((key) => /passkey/i.test(englishTexts.get(key) ?? '') &&
          !(passkeyStems ?? []).some((stem) => texts.get(key)!.toLocaleLowerCase(locale).includes(stem)))
        t.same(synonyms, [], saying(synonyms, `${path} says passkey with the glossary's word`, `${path} names a passkey otherwise than the glossary (${(passkeyStems ?? []).join(', ')})`))
      }

      if (locale !== 'en') {
        const allowed = SAME_AS_ENGLISH[family.name]?.[locale] ?? {}
        const untranslated = keys.filter((key) => texts.get(key) === englishTexts.get(key) && !onlyNames(texts.get(key)!) && !Object.hasOwn(allowed, key))
        t.same(untranslated, [], saying(untranslated, `${path} leaves no text in English but names`, `${path} has texts still in English (translate them, or list them with a reason in same-as-english.json)`))
        const stale = Object.keys(allowed).filter((key) => texts.get(key) !== englishTexts.get(key))
        t.same(stale, [], saying(stale, `same-as-english.json lists only texts ${path} does write as English does`, `same-as-english.json lists ${locale} texts that are translated now`))
      }

      const controlled = keys.flatMap((key) => {
        const found = texts.get(key)!.match(DIRECTIONAL_CONTROLS)
        return found === null ? [] : [`${key} (${codePoint(found[0])})`]
      })
      t.same(controlled, [], saying(controlled, `${path} has no directional control characters`, `${path} has directional control characters`))
    })
  }
}

t.test('a placeholder typed with a space or another name is told apart from English\'s', async (t) => {
  // What the comparison above relies on: a name misspelt or spaced is a problem, not a match.
  t.same(placeholdersOf('{heading} · {product}'), ['heading', 'product'])
  t.match(translationProblem('de', '{ heading} · {product}', '{heading} · {product}'), /does not parse/)
  t.match(translationProblem('de', '{heading} · {produkt}', '{heading} · {product}'), /\{heading\}, \{produkt\} where English has \{heading\}, \{product\}/)
  t.same(placeholdersOf('{minutes} {minutes}'), ['minutes'])
})

t.test('only names, placeholders and punctuation may stand as English does without a reason', async (t) => {
  t.ok(onlyNames('{heading} · {product}'))
  t.ok(onlyNames('Google'))
  t.ok(onlyNames('GitHub, Microsoft · OpenID Connect'))
  t.notOk(onlyNames('Sign in with Google'))
  t.notOk(onlyNames('Passkey “{name}”, added {date}'))
})
