/**
 * The catalogues' message format (docs/languages.md, "The message format"):
 * a subset of ICU MessageFormat that translation tools read.
 *
 * - `{name}` is a value, inserted as it is; a number is written as the
 *   language writes numbers (Intl.NumberFormat: `1 234`, `۳۰`).
 * - `{name, plural, one {# day} other {# days}}` picks a branch by the
 *   language's CLDR plural rules (Intl.PluralRules); `=0`-style branches win
 *   over the rules for that exact number; `#` in a branch is the number.
 *
 * No quoting: an apostrophe is an apostrophe, and braces are the syntax's
 * only. This is the page's formatter, in its first load, so it reads leniently
 * and is small: what does not parse is shown as it is written. The catalogue
 * test and MESSAGES_DIR's check read texts strictly
 * (server/shared/languages/message-syntax.ts) and refuse one that does not.
 */

/** Values for a text's placeholders, by name. */
export type MessageParams = Readonly<Record<string, string | number>>

/**
 * `{name}`, `{name, plural, …}` (its branches may hold `{name}`s, not another
 * plural: the strict reading refuses one), or `#`.
 */
const ARGUMENT = /\{\s*(\w+)\s*(?:,\s*plural\s*,((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*))?\}|#/g

/** One branch of a plural: `one {…}`, `=0 {…}`. */
const BRANCH = /(=?\w+)\s*\{((?:[^{}]|\{[^{}]*\})*)\}/g

/** `text` filled; `count` is what `#` stands for inside a plural's branch. */
function fill (text: string, params: MessageParams, locale: string, count?: string): string {
  return text.replace(ARGUMENT, (whole, name: string | undefined, branches: string | undefined) => {
    if (name === undefined) return count ?? whole
    if (!Object.hasOwn(params, name)) return `{${name}}`
    const value = params[name]!
    const written = typeof value === 'number' ? new Intl.NumberFormat(locale).format(value) : value
    if (branches === undefined) return written
    // The exact number's branch, else the rules' category, else `other`; none of them: the text as written.
    const found = new Map(Array.from(branches.matchAll(BRANCH), (branch) => [branch[1], branch[2]]))
    const number = Number(value)
    const branch = found.get(`=${number}`) ?? found.get(new Intl.PluralRules(locale).select(number)) ?? found.get('other')
    return branch === undefined ? whole : fill(branch, params, locale, written)
  })
}

/**
 * A text with its values filled, in `locale`'s plural rules and numbers. A
 * value that is not given stays as `{name}`, so that it shows rather than
 * vanishes; values are inserted as they are (React escapes them when it
 * renders). What does not parse is returned as it is written.
 */
export function formatMessage (text: string, params: MessageParams = {}, locale = 'en'): string {
  return text.includes('{') ? fill(text, params, locale) : text
}
